"""Numeric conditions in a question: "greater than 5", "between 10 and 20", "3 or more",
"above age 20" and "a greater weight than 10" (the column between comparator and number).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from nl2sql.reasoning.llm.run_limits import checkpoint
from nl2sql.reasoning.offline.words.lexicon import COMPARATIVE_MEASURES
from nl2sql.reasoning.offline.words.text import Token

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
# "heavier than 10", "younger than 30": the comparative also names the measure (lexicon)
_COMPARATORS += tuple(
    ((word, "than"), op)
    for word, (_, op) in COMPARATIVE_MEASURES.items()
    if (word, "than") not in dict(_COMPARATORS)
)
_COMPARATIVES = {
    "greater": ">",
    "more": ">",
    "higher": ">",
    "larger": ">",
    "bigger": ">",
    "older": ">",
    "longer": ">",
    "less": "<",
    "fewer": "<",
    "lower": "<",
    "smaller": "<",
    "younger": "<",
    "shorter": "<",
    "cheaper": "<",
    **{word: op for word, (_, op) in COMPARATIVE_MEASURES.items()},
}
_OPS = {">": ">", ">=": ">=", "<": "<", "<=": "<=", "=": "=", "!=": "!=", "<>": "!="}
_TRAILING: dict[tuple[str, ...], str] = {
    ("or", "more"): ">=",
    ("or", "greater"): ">=",
    ("or", "above"): ">=",
    ("or", "less"): "<=",
    ("or", "fewer"): "<=",
    ("or", "below"): "<=",
}


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
    measure: tuple[str, ...] = ()  # the measure a comparative names ("older" -> age)
    nested: str | None = None  # "above the average": compare with avg|min|max of the column


NESTED_AGGS = {"average": "avg", "avg": "avg", "mean": "avg", "maximum": "max", "max": "max",
               "minimum": "min", "min": "min"}  # fmt: skip


def _nested_at(tokens: list[Token], k: int) -> tuple[str, int] | None:
    """ "(the) average" at token k: (aggregate, index after it)."""
    if k < len(tokens) and tokens[k].low == "the":
        k += 1
    if k < len(tokens) and tokens[k].low in NESTED_AGGS:
        return NESTED_AGGS[tokens[k].low], k + 1
    return None


def _words(tokens: list[Token], i: int, n: int) -> tuple[str, ...]:
    return tuple(t.low for t in tokens[i : i + n])


def _num(tokens: list[Token], i: int) -> float | int | None:
    return tokens[i].number if 0 <= i < len(tokens) else None


def find_numeric(tokens: list[Token], taken: set[int]) -> list[NumCue]:
    """Comparisons on numbers; `taken` (dates) is respected and extended."""
    cues: list[NumCue] = []
    i = 0
    while i < len(tokens):
        checkpoint()
        cue = _cue_at(tokens, i, taken)
        if cue is None:
            i += 1
            continue
        if tokens[i].low in COMPARATIVE_MEASURES:
            cue = replace(cue, measure=COMPARATIVE_MEASURES[tokens[i].low][0])
        cues.append(cue)
        gap = range(*cue.gap) if cue.gap else range(0)
        taken.update(k for k in range(cue.start, cue.end) if k not in gap)
        i = cue.end
    return cues


def _cue_at(tokens: list[Token], i: int, taken: set[int]) -> NumCue | None:
    if i in taken:
        return None

    def text(a: int, b: int) -> str:
        return " ".join(t.text for t in tokens[a:b])

    if tokens[i].low == "between":
        lo, hi = _num(tokens, i + 1), _num(tokens, i + 3)
        if lo is not None and hi is not None and _words(tokens, i + 2, 1) == ("and",):
            return NumCue("between", lo, hi, i, i + 4, text(i, i + 4))
        return None
    if tokens[i].kind == "op" and tokens[i].text in _OPS:
        value = _num(tokens, i + 1)
        return (
            None
            if value is None
            else NumCue(_OPS[tokens[i].text], value, None, i, i + 2, text(i, i + 2))
        )
    for words, op in _COMPARATORS:
        if _words(tokens, i, len(words)) == words:
            k = i + len(words)
            value = _num(tokens, k)
            if value is not None and k not in taken:
                return NumCue(op, value, None, i, k + 1, text(i, k + 1))
            nested = _nested_at(tokens, k)
            if nested is not None:  # "older than (the) average"
                return NumCue(op, 0, None, i, nested[1], text(i, nested[1]), nested=nested[0])
            return _gapped(tokens, i, k, op, taken, need_than=False)
    if tokens[i].low in _COMPARATIVES:
        return _gapped(tokens, i, i + 1, _COMPARATIVES[tokens[i].low], taken, need_than=True)
    value = _num(tokens, i)
    if value is not None and tokens[i].kind == "number":
        trailing = _TRAILING.get(_words(tokens, i + 1, 2))
        if trailing:
            return NumCue(trailing, value, None, i, i + 3, text(i, i + 3))
    return None


def _gapped(
    tokens: list[Token], i: int, k: int, op: str, taken: set[int], need_than: bool
) -> NumCue | None:
    """A comparison with the column between comparator and number ("above age 20")."""
    for j in range(k + 1, min(k + 5, len(tokens))):
        gap = tokens[k:j]
        if any(t.kind != "word" or t.index in taken for t in gap):
            return None
        if need_than:
            if tokens[j].low != "than":
                continue
            nested = _nested_at(tokens, j + 1)
            if nested is not None:  # "a greater weight than the average"
                text = " ".join(t.text for t in tokens[i : nested[1]])
                return NumCue(op, 0, None, i, nested[1], text, (k, j), nested=nested[0])
            value = _num(tokens, j + 1)
            if value is None or tokens[j + 1].kind != "number":
                return None
            return NumCue(
                op, value, None, i, j + 2, " ".join(t.text for t in tokens[i : j + 2]), (k, j)
            )
        value = _num(tokens, j)
        if value is not None and tokens[j].kind == "number":
            return NumCue(
                op, value, None, i, j + 1, " ".join(t.text for t in tokens[i : j + 1]), (k, j)
            )
    return None
