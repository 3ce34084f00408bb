"""Cue words of question shapes, found before linking so their words are not read as names.

The row limit ("top 5", "which 3"), count and aggregate words, superlatives, group-by and
order-by cues (numeric conditions are in `numeric.py`). Each finder returns what it found and the
token indices it used.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

from nl2sql.reasoning.offline.words import wordnet
from nl2sql.reasoning.offline.words.lexicon import FILLER, PLAIN_MEASURES, SUPERLATIVE_MEASURES
from nl2sql.reasoning.offline.words.text import Token, is_noun, noun_lemmas

_COUNT_LEADS = frozenset(
    """
    the a what whats total average maximum minimum max min show find give list return get is
    are and or of by highest lowest largest smallest greatest compare tell count their its
    """.split()
)
AGG_WORDS = {
    "average": "avg",
    "avg": "avg",
    "mean": "avg",
    "total": "sum",
    "sum": "sum",
    "overall": "sum",
    "combined": "sum",
    "cumulative": "sum",
    "maximum": "max",
    "max": "max",
    "minimum": "min",
    "min": "min",
}
# Superlatives that name no measure of their own; those that do ("oldest", "cheapest") are the
# lexicon's SUPERLATIVE_MEASURES, inflected by lemminflect.
SUPER_DESC = frozenset("highest largest biggest greatest most top best maximal".split())
SUPER_ASC = frozenset("lowest smallest least fewest bottom worst minimal".split())
#: Adjectives that name their measure: word -> (measure stems, direction) — "oldest", and the
#: plain forms that follow "most" / "least" ("most expensive").
ADJ_MEASURES = {**PLAIN_MEASURES, **SUPERLATIVE_MEASURES}
DESC_WORDS = {"descending", "desc", "decreasing", "highest", "largest", "most", "biggest"}
ASC_WORDS = frozenset(
    """
    ascending asc increasing alphabetically alphabetical lowest smallest
    """.split()
)

#: A superlative cue: (direction, token index, measure stems the adjective names or None).
Superlative = tuple[str, int, tuple[str, ...] | None]


def _words(tokens: list[Token], i: int, n: int) -> tuple[str, ...]:
    return tuple(t.low for t in tokens[i : i + n])


def find_limit(tokens: list[Token], taken: set[int]) -> tuple[int | None, int | None, str | None]:
    """("top 5" | "which 3" | "5 most" | "first 10" | "the 5 … with the highest") -> (limit, index
    of the number, direction)."""
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
        if nxt in SUPER_DESC or nxt in SUPERLATIVE_MEASURES and ADJ_MEASURES[nxt][1] == "desc":
            return int(value), i, "desc"
        if nxt in SUPER_ASC or nxt in SUPERLATIVE_MEASURES:
            return int(value), i, "asc"
        if prev == "the" and value < 1000 and _plural(nxt) and _superlative_after(tokens, i + 1):
            return int(value), i, None  # "the 5 episodes with the longest duration"
    return None, None, None


def _plural(word: str) -> bool:
    """A plural noun ("episodes"; not "cylinder" of "the 4 cylinder cars")."""
    return is_noun(word) and word not in noun_lemmas(word)


def _superlative_after(tokens: list[Token], start: int) -> bool:
    """A superlative later in the question ("… with the highest price", "… that cost the most")."""
    return any(t.low in SUPER_DESC or t.low in SUPER_ASC or t.low in SUPERLATIVE_MEASURES
               or t.low in ("most", "least") for t in tokens[start:])


def count_cue(tokens: list[Token], skip: AbstractSet[int] = frozenset()) -> tuple[int, int] | None:
    """Span of "how many" / "number of" / "count of" / "count the"; None when absent."""
    for i, tok in enumerate(tokens):
        if i in skip:
            continue
        pair = _words(tokens, i, 2)
        if pair == ("how", "many"):
            return i, i + 2
        prev = tokens[i - 1] if i > 0 else None
        after_noun = (
            prev is not None
            and prev.kind == "word"
            and prev.low not in _COUNT_LEADS
            and prev.low not in FILLER  # "the corresponding number of people"
        )
        if pair in (("number", "of"), ("count", "of"), ("counts", "of")) and not after_noun:
            return i, i + 2
        if tok.low == "count" and (i == 0 or pair[1:] in (("the",), ("all",))):
            return i, i + 1
    return None


def agg_cue(tokens: list[Token], taken: set[int]) -> tuple[str, int] | None:
    """The first aggregate word ("average", "total", "maximum", ...) and its index."""
    for i, tok in enumerate(tokens):
        if i in taken or tok.low not in AGG_WORDS:
            continue
        if (
            tok.low == "total"
            and _words(tokens, i + 1, 2) in (("number", "of"), ("count", "of"))
            and i + 1 not in taken
        ):
            continue  # "total number of" is a count, unless a column is named "number of …"
        return AGG_WORDS[tok.low], i
    if _words(tokens, 0, 2) == ("how", "much"):
        return "sum", 1
    return None


def superlative(
    tokens: list[Token], taken: set[int], tables: AbstractSet[int] = frozenset()
) -> Superlative | None:
    """The first superlative: (direction, index, measure stems named by the adjective or None);
    `tables`: where a table's name starts and where a date column's name ends, before and
    after which "first" / "last" rank by date.

    "top"/"bottom" only count when no more specific superlative follows ("top 5 ... lowest price").
    """
    found = [
        s for s in (_superlative_at(tokens, i, taken, tables) for i in range(len(tokens))) if s
    ]
    specific = [s for s in found if tokens[s[1]].low not in ("top", "bottom")]
    chosen = specific or found
    return chosen[0] if chosen else None


def _superlative_at(
    tokens: list[Token], i: int, taken: set[int], tables: AbstractSet[int]
) -> Superlative | None:
    tok = tokens[i]
    if i in taken:
        return None
    nxt = tokens[i + 1].low if i + 1 < len(tokens) else ""
    if tok.low in ("most", "least") and nxt not in ADJ_MEASURES:
        nxt = adjective_of(nxt) or nxt  # "most recently hired": the most recent hire
    if tok.low in ("most", "least") and nxt in ADJ_MEASURES:
        stems, direction = ADJ_MEASURES[nxt]
        flip = tok.low == "least"
        return ("asc" if direction == "desc" else "desc") if flip else direction, i, stems
    if tok.low in ("most", "least") and nxt in ("common", "frequent", "popular", "frequently"):
        return ("desc" if tok.low == "most" else "asc"), i, ("@count",)
    if tok.low in ("first", "last") and (i + 1 in tables or i in tables):
        # "the first order", "the last employee hired", "hired first": the earliest / latest
        # by a date (right before a table's name or after a date's: "first 10", "first and
        # last names" are not)
        return ("asc" if tok.low == "first" else "desc"), i, ("@date",)
    if tok.low in SUPERLATIVE_MEASURES:
        stems, direction = SUPERLATIVE_MEASURES[tok.low]
        return direction, i, stems
    if tok.low in SUPER_DESC:
        return "desc", i, None
    if tok.low in SUPER_ASC:
        return "asc", i, None
    return None


def adjective_of(word: str) -> str | None:
    """The adjective an adverb comes from, by WordNet ("recently" → "recent"), or None."""
    if not word.endswith("ly"):
        return None
    found = wordnet.derived(word, "r", "a", 2, "\\")
    return found[0][0] if found and len(found[0]) == 1 else None


def group_cues(tokens: list[Token]) -> list[tuple[int, int, str]]:
    """(start, end, word) of group-by cues: per, for each/every, in each, each, by, grouped by."""
    out: list[tuple[int, int, str]] = []
    i = 0
    while i < len(tokens):
        w = _words(tokens, i, 3)
        if w[:2] in (
            ("for", "each"),
            ("for", "every"),
            ("in", "each"),
            ("grouped", "by"),
            ("group", "by"),
        ):
            out.append((i, i + 2, "each"))
            i += 2
            continue  # noqa: E702
        different = _for_different(tokens, i)
        if different:
            out.append((i, different, "each"))
            i = different
            continue
        if w == ("broken", "down", "by") or w == ("split", "up", "by"):
            out.append((i, i + 3, "each"))
            i += 3
            continue  # noqa: E702
        if w[:1] in (("per",), ("each",), ("every",)):
            out.append((i, i + 1, "each"))
        elif w[:1] == ("by",):
            out.append((i, i + 1, "by"))
        i += 1
    return out


def _for_different(tokens: list[Token], i: int) -> int:
    """End of "for (all) (the) different (number of)" — a group cue — or 0."""
    if tokens[i].low != "for":
        return 0
    j = i + 1
    while j < len(tokens) and j <= i + 3 and tokens[j].low in ("all", "the"):
        j += 1
    if j >= len(tokens) or tokens[j].low not in ("different", "distinct", "various"):
        return 0
    j += 1
    if _words(tokens, j, 2) in (("number", "of"), ("numbers", "of"), ("values", "of")):
        j += 2
    return j


def order_cue(tokens: list[Token]) -> tuple[int, int, str | None] | None:
    """An explicit ordering: "ordered/sorted/ranked by", "in descending order", "alphabetically"."""
    for i in range(len(tokens)):
        pair = _words(tokens, i, 2)
        verb = pair[0] in ("order", "sort", "rank") and _imperative(tokens, i)
        if pair[0] in ("ordered", "sorted", "ranked", "arranged") or verb:
            by = next(
                (j for j in range(i + 1, min(i + 6, len(tokens))) if tokens[j].low == "by"), None
            )
            if by is not None:  # "sorted by X", "sort all the shops by X"
                return i, by + 1, _direction(tokens, by + 1)
        if pair[0] in (
            "descending",
            "ascending",
            "decreasing",
            "increasing",
            "alphabetically",
            "alphabetical",
        ):
            end = i + 1
            # "in ascending alphabetical order of the author's name": the key follows "of"/"by"
            while end < len(tokens) and tokens[end].low in _ORDER_FILLER:
                end += 1
            return i, end, "desc" if pair[0] in DESC_WORDS else "asc"
    return None


# words after which a bare "order" / "sort" / "rank" starts a request ("… and order them by")
_REQUEST_LEADS = frozenset("and then please also , ; to".split())


def _imperative(tokens: list[Token], i: int) -> bool:
    """Whether the base form at i is the verb of a request ("order the shops by size", "list
    them and sort by name"), not the noun ("the average order total by status")."""
    first = i == 0 or tokens[i - 1].kind == "punct" or tokens[i].text[:1].isupper()
    return first or tokens[i - 1].low in _REQUEST_LEADS  # a sentence starts with it, or after "and"


_ORDER_FILLER = {"alphabetical", "alphabetically", "order", "of", "by", "the", "their", "its"}


def _direction(tokens: list[Token], start: int) -> str | None:
    for k, tok in enumerate(tokens[start:], start):
        if tok.low in ("descending", "desc", "decreasing") or tok.low == "highest":
            return "desc"
        if tok.low in ("ascending", "asc", "increasing") or tok.low == "lowest":
            return "asc"
        if tok.low == "from" and k + 1 < len(tokens):  # "from old to young", "from high to low"
            found = scale_direction(tokens[k + 1].low)
            if found:
                return found
    return None


_HIGH = {"high", "highest", "large", "largest", "big", "biggest", "most", "max", "maximum",
         "greatest", "best", "top", "more"}  # fmt: skip
_LOW = {"low", "lowest", "small", "smallest", "least", "min", "minimum", "fewest", "worst",
        "bottom", "less", "few"}  # fmt: skip


def scale_span(tokens: list[Token]) -> list[int]:
    """Token indices of "from (the) <scale word> to (the) <scale word>" ("from old to young")."""
    for k, tok in enumerate(tokens):
        if tok.low != "from":
            continue
        words = [t for t in tokens[k + 1 : k + 7] if t.low != "the"][:3]
        if len(words) == 3 and words[1].low == "to":
            if scale_direction(words[0].low) and scale_direction(words[2].low):
                return list(range(k, words[2].index + 1))
    return []


def scale_order(tokens: list[Token]) -> tuple[int, str, tuple[str, ...] | None] | None:
    """ "from the oldest to the youngest": (index, direction, measure stems of the adjective)."""
    span = scale_span(tokens)
    if not span:
        return None
    first = next(t for t in tokens[span[0] + 1 :] if t.low != "the")
    measure = ADJ_MEASURES.get(first.low)
    return span[-1] + 1, scale_direction(first.low) or "asc", measure[0] if measure else None


def scale_direction(word: str) -> str | None:
    """The direction a scale word starts from: "old" / "high" -> desc, "young" / "low" -> asc."""
    if word in ADJ_MEASURES:
        return ADJ_MEASURES[word][1]
    if word in _HIGH:
        return "desc"
    return "asc" if word in _LOW else None
