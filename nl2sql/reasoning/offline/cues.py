"""Cue words of question shapes, found before linking so their words are not read as names.

Numeric conditions ("quantity greater than 5", "between 10 and 20", "3 or more"), the row limit
("top 5", "which 3"), aggregate words, superlatives, group-by and order-by cues. Each finder
returns what it found and the token indices it used.
"""

from __future__ import annotations

from dataclasses import dataclass

from nl2sql.reasoning.offline.text import Token

_COMPARATORS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("greater", "than", "or", "equal", "to"), ">="),
    (("more", "than", "or", "equal", "to"), ">="),
    (("less", "than", "or", "equal", "to"), "<="),
    (("no", "more", "than"), "<="),
    (("not", "more", "than"), "<="),
    (("no", "less", "than"), ">="),
    (("not", "less", "than"), ">="),
    (("no", "fewer", "than"), ">="),
    (("at", "least"), ">="),
    (("at", "most"), "<="),
    (("greater", "than"), ">"),
    (("more", "than"), ">"),
    (("larger", "than"), ">"),
    (("higher", "than"), ">"),
    (("bigger", "than"), ">"),
    (("older", "than"), ">"),
    (("longer", "than"), ">"),
    (("less", "than"), "<"),
    (("fewer", "than"), "<"),
    (("lower", "than"), "<"),
    (("smaller", "than"), "<"),
    (("younger", "than"), "<"),
    (("shorter", "than"), "<"),
    (("cheaper", "than"), "<"),
    (("equal", "to"), "="),
    (("other", "than"), "!="),
    (("exceeding",), ">"),
    (("exceeds",), ">"),
    (("exceed",), ">"),
    (("over",), ">"),
    (("above",), ">"),
    (("under",), "<"),
    (("below",), "<"),
    (("equals",), "="),
    (("exactly",), "="),
)
_COMPARATIVES = {"greater": ">", "more": ">", "higher": ">", "larger": ">", "bigger": ">", "older": ">",
                 "longer": ">", "less": "<", "fewer": "<", "lower": "<", "smaller": "<", "younger": "<",
                 "shorter": "<", "cheaper": "<"}
_OPS = {">": ">", ">=": ">=", "<": "<", "<=": "<=", "=": "=", "!=": "!=", "<>": "!="}
_TRAILING = {("or", "more"): ">=", ("or", "greater"): ">=", ("or", "above"): ">=",
             ("or", "less"): "<=", ("or", "fewer"): "<=", ("or", "below"): "<="}

AGG_WORDS = {
    "average": "avg", "avg": "avg", "mean": "avg", "total": "sum", "sum": "sum",
    "overall": "sum", "combined": "sum", "cumulative": "sum", "maximum": "max", "max": "max",
    "minimum": "min", "min": "min",
}
SUPER_DESC = {"highest", "largest", "biggest", "greatest", "most", "top", "best", "longest",
              "heaviest", "tallest", "latest", "newest", "oldest", "priciest", "maximal"}
SUPER_ASC = {"lowest", "smallest", "least", "fewest", "bottom", "worst", "shortest", "lightest",
             "earliest", "cheapest", "youngest", "minimal"}
#: Superlative adjectives that name their measure: word -> (measure stems, direction).
ADJ_MEASURES = {
    "expensive": (("pric", "cost"), "desc"), "priciest": (("pric", "cost"), "desc"),
    "cheapest": (("pric", "cost"), "asc"), "oldest": (("ag",), "desc"),
    "youngest": (("ag",), "asc"), "heaviest": (("weight",), "desc"),
    "lightest": (("weight",), "asc"), "tallest": (("height",), "desc"),
    "longest": (("length", "duration"), "desc"), "shortest": (("length", "duration"), "asc"),
    "latest": (("@date",), "desc"), "newest": (("@date",), "desc"), "recent": (("@date",), "desc"),
    "earliest": (("@date",), "asc"),
}
DESC_WORDS = {"descending", "desc", "decreasing", "highest", "largest", "most", "biggest"}
ASC_WORDS = {"ascending", "asc", "increasing", "alphabetically", "alphabetical", "lowest", "smallest"}


@dataclass(frozen=True)
class NumCue:
    """A numeric condition: `op value` (or BETWEEN value AND high) and where it sits."""

    op: str
    value: float | int
    high: float | int | None
    start: int  # first token of the comparator phrase
    end: int  # after the last number
    text: str
    gap: tuple[int, int] | None = None  # words between comparator and number ("above age 20")


def _words(tokens: list[Token], i: int, n: int) -> tuple[str, ...]:
    return tuple(t.low for t in tokens[i : i + n])


def _num(tokens: list[Token], i: int) -> float | int | None:
    return tokens[i].number if 0 <= i < len(tokens) else None


def find_numeric(tokens: list[Token], taken: set[int]) -> list[NumCue]:
    """Comparisons on numbers; `taken` (dates) is respected and extended."""
    cues: list[NumCue] = []
    i = 0
    while i < len(tokens):
        cue = _cue_at(tokens, i, taken)
        if cue is None:
            i += 1
            continue
        cues.append(cue)
        gap = range(*cue.gap) if cue.gap else range(0)
        taken.update(k for k in range(cue.start, cue.end) if k not in gap)
        i = cue.end
    return cues


def _cue_at(tokens: list[Token], i: int, taken: set[int]) -> NumCue | None:
    if i in taken:
        return None
    text = lambda a, b: " ".join(t.text for t in tokens[a:b])  # noqa: E731
    if tokens[i].low == "between":
        lo, hi = _num(tokens, i + 1), _num(tokens, i + 3)
        if lo is not None and hi is not None and _words(tokens, i + 2, 1) == ("and",):
            return NumCue("between", lo, hi, i, i + 4, text(i, i + 4))
        return None
    if tokens[i].kind == "op" and tokens[i].text in _OPS:
        value = _num(tokens, i + 1)
        return None if value is None else NumCue(_OPS[tokens[i].text], value, None, i, i + 2, text(i, i + 2))
    for words, op in _COMPARATORS:
        if _words(tokens, i, len(words)) == words:
            k = i + len(words)
            value = _num(tokens, k)
            if value is not None and k not in taken:
                return NumCue(op, value, None, i, k + 1, text(i, k + 1))
            return _gapped(tokens, i, k, op, taken, need_than=False)
    if tokens[i].low in _COMPARATIVES:
        return _gapped(tokens, i, i + 1, _COMPARATIVES[tokens[i].low], taken, need_than=True)
    value = _num(tokens, i)
    if value is not None and tokens[i].kind == "number":
        op = _TRAILING.get(_words(tokens, i + 1, 2))
        if op:
            return NumCue(op, value, None, i, i + 3, text(i, i + 3))
    return None


def _gapped(tokens: list[Token], i: int, k: int, op: str, taken: set[int], need_than: bool) -> NumCue | None:
    """"above age 20", "greater weight than 10": the column sits between comparator and number."""
    for j in range(k + 1, min(k + 5, len(tokens))):
        gap = tokens[k:j]
        if any(t.kind != "word" or t.index in taken for t in gap):
            return None
        if need_than:
            if tokens[j].low != "than":
                continue
            value = _num(tokens, j + 1)
            if value is None or tokens[j + 1].kind != "number":
                return None
            return NumCue(op, value, None, i, j + 2, " ".join(t.text for t in tokens[i : j + 2]), (k, j))
        value = _num(tokens, j)
        if value is not None and tokens[j].kind == "number":
            return NumCue(op, value, None, i, j + 1, " ".join(t.text for t in tokens[i : j + 1]), (k, j))
    return None


def find_limit(tokens: list[Token], taken: set[int]) -> tuple[int | None, int | None, str | None]:
    """("top 5" | "which 3" | "5 most" | "first 10") -> (limit, index of the number, direction)."""
    for i, tok in enumerate(tokens):
        if i in taken:
            continue
        value = tok.number
        if value is None or isinstance(value, float) or value <= 0:
            continue
        prev = tokens[i - 1].low if i > 0 else ""
        nxt = tokens[i + 1].low if i + 1 < len(tokens) else ""
        if prev in ("top", "first", "which", "what", "highest", "largest", "best"):
            return int(value), i, "desc" if prev != "first" else None
        if prev in ("bottom", "last", "lowest", "smallest", "worst"):
            return int(value), i, "asc"
        if nxt in SUPER_DESC or nxt in ADJ_MEASURES and ADJ_MEASURES[nxt][1] == "desc":
            return int(value), i, "desc"
        if nxt in SUPER_ASC or nxt in ADJ_MEASURES:
            return int(value), i, "asc"
    return None, None, None


def count_cue(tokens: list[Token], skip: set[int] = frozenset()) -> tuple[int, int] | None:
    """Span of "how many" / "number of" / "count of" / "count the"; None when absent."""
    for i, tok in enumerate(tokens):
        if i in skip:
            continue
        pair = _words(tokens, i, 2)
        if pair == ("how", "many") or pair in (("number", "of"), ("count", "of"), ("counts", "of")):
            return i, i + 2
        if tok.low == "count" and (i == 0 or pair[1:] in (("the",), ("all",))):
            return i, i + 1
    return None


def agg_cue(tokens: list[Token], taken: set[int]) -> tuple[str, int] | None:
    """The first aggregate word ("average", "total", "maximum", ...) and its index."""
    for i, tok in enumerate(tokens):
        if i in taken or tok.low not in AGG_WORDS:
            continue
        if tok.low == "total" and _words(tokens, i + 1, 2) in (("number", "of"), ("count", "of")):
            continue  # "total number of" is a count
        return AGG_WORDS[tok.low], i
    if _words(tokens, 0, 2) == ("how", "much"):
        return "sum", 1
    return None


def superlative(tokens: list[Token], taken: set[int]) -> tuple[str, int, tuple[str, ...] | None] | None:
    """The first superlative: (direction, index, measure stems named by the adjective or None).

    "top"/"bottom" only count when no more specific superlative follows ("top 5 ... lowest price").
    """
    found = [s for s in (_superlative_at(tokens, i, taken) for i in range(len(tokens))) if s]
    specific = [s for s in found if tokens[s[1]].low not in ("top", "bottom")]
    return (specific or found or [None])[0]


def _superlative_at(tokens: list[Token], i: int, taken: set[int]):
    tok = tokens[i]
    if i in taken:
        return None
    nxt = tokens[i + 1].low if i + 1 < len(tokens) else ""
    if tok.low in ("most", "least") and nxt in ADJ_MEASURES:
        stems, direction = ADJ_MEASURES[nxt]
        flip = tok.low == "least"
        return ("asc" if direction == "desc" else "desc") if flip else direction, i, stems
    if tok.low in ("most", "least") and nxt in ("common", "frequent", "popular", "frequently"):
        return ("desc" if tok.low == "most" else "asc"), i, ("@count",)
    if tok.low in ADJ_MEASURES and tok.low not in ("expensive", "recent"):
        stems, direction = ADJ_MEASURES[tok.low]
        return direction, i, stems
    if tok.low in SUPER_DESC:
        return "desc", i, None
    if tok.low in SUPER_ASC:
        return "asc", i, None
    return None


def group_cues(tokens: list[Token]) -> list[tuple[int, int, str]]:
    """(start, end, word) of group-by cues: per, for each/every, in each, each, by, grouped by."""
    out: list[tuple[int, int, str]] = []
    i = 0
    while i < len(tokens):
        w = _words(tokens, i, 3)
        if w[:2] in (("for", "each"), ("for", "every"), ("in", "each"), ("grouped", "by"), ("group", "by")):
            out.append((i, i + 2, "each")); i += 2; continue  # noqa: E702
        if w == ("broken", "down", "by") or w == ("split", "up", "by"):
            out.append((i, i + 3, "each")); i += 3; continue  # noqa: E702
        if w[:1] in (("per",), ("each",), ("every",)):
            out.append((i, i + 1, "each"))
        elif w[:1] == ("by",):
            out.append((i, i + 1, "by"))
        i += 1
    return out


def order_cue(tokens: list[Token]) -> tuple[int, int, str | None] | None:
    """An explicit ordering: "ordered/sorted/ranked by", "in descending order", "alphabetically"."""
    for i, tok in enumerate(tokens):
        pair = _words(tokens, i, 2)
        if pair[0] in ("ordered", "sorted", "ranked", "order", "sort", "rank", "arranged") and pair[1:] == ("by",):
            return i, i + 2, _direction(tokens, i + 2)
        if pair[0] in ("descending", "ascending", "decreasing", "increasing", "alphabetically", "alphabetical"):
            return i, i + 1, "desc" if pair[0] in DESC_WORDS else "asc"
    return None


def _direction(tokens: list[Token], start: int) -> str | None:
    for tok in tokens[start:]:
        if tok.low in ("descending", "desc", "decreasing") or tok.low == "highest":
            return "desc"
        if tok.low in ("ascending", "asc", "increasing") or tok.low == "lowest":
            return "asc"
    return None
