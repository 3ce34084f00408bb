"""WHERE conditions on stored values, and the mentions right beside a word.

- A value becomes `column = 'stored value'` (several values of one column: IN; "not"/"except"
  before it: != / NOT IN). A column named right beside the value picks its column; otherwise the
  column of a context table wins, then the nearest by FK hops, then the one column named with the
  preposition before the value ("from Oslo" -> `from_city`); a remaining tie is reported.
- Numeric comparisons are in `comparisons.py`, date conditions in `date_conditions.py`.
"""

from __future__ import annotations

from collections.abc import Set
from typing import Any

from nl2sql.reasoning.offline.linking.linker import Mention, ValueMatch
from nl2sql.reasoning.offline.shapes.resolve import Resolver
from nl2sql.reasoning.offline.shapes.spec import Col, Cond, Unclear
from nl2sql.reasoning.offline.words.text import STOP, Token, split_identifier

_NEGATIONS = {"not", "except", "excluding", "without", "non", "exclude", "excluded", "other"}
_GAP_WORDS = STOP | {
    "whose",
    "having",
    "that",
    "which",
    "where",
    "priced",
    "aged",
    "valued",
    "costing",
    # "held in at least 3 separate lots": an adjective that only stresses the count
    "different",
    "distinct",
    "separate",
}
_PLACE_PREPOSITIONS = frozenset("in from at".split())
_QUALIFIER_GAP = _GAP_WORDS | _NEGATIONS | {"equal", "equals", "named", "called"}


def adjacent_before(
    mentions: list[Mention],
    tokens: list[Token],
    i: int,
    used: set[int],
    gap_words: Set[str] | None = None,
) -> Mention | None:
    """The unused mention ending right before token i (only function words between)."""
    allowed = gap_words or _GAP_WORDS
    for m in sorted(mentions, key=lambda m: -m.end):
        if m.end <= i and m.start not in used:
            gap = tokens[m.end : i]
            return m if all(t.kind == "word" and t.low in allowed for t in gap) else None
    return None


def adjacent_after(
    mentions: list[Mention], tokens: list[Token], i: int, used: set[int], within: int = 2
) -> Mention | None:
    """The unused mention starting at token i, or after at most `within` function words."""
    for m in sorted(mentions, key=lambda m: m.start):
        if m.start >= i and m.start not in used:
            gap = tokens[i : m.start]
            ok = len(gap) <= within and all(t.kind == "word" and t.low in _GAP_WORDS for t in gap)
            return m if ok else None
    return None


def value_conditions(
    values: list[ValueMatch],
    mentions: list[Mention],
    res: Resolver,
    tokens: list[Token],
    used: set[int],
    replace: dict[str, Any],
    positive: bool = False,
) -> tuple[list[Cond], list[str], float]:
    """Equality / IN conditions for linked values; returns (conditions, notes, penalty).
    `positive`: the values sit inside a negation that an anti-join already expresses."""
    grouped: dict[tuple[str, str, bool], list[tuple[str, ValueMatch]]] = {}
    notes: list[str] = []
    penalty = 0.0
    for v in values:
        option, note = _choose_option(v, mentions, res, tokens, used)
        if note:
            notes.append(note)
            penalty += 0.15
        table, column, written = option
        stored = _replaced(replace, table, column, written)
        if stored != written:
            notes.append(
                f"'{written}' replaced by '{stored}' in {table}.{column}, as the refiner suggested"
            )
            penalty += 0.3 if v.source == "close" else 0.1  # a near match stays one
        elif v.source == "close":
            notes.append(
                f"'{v.text}' is not stored in {table}.{column} but is close to a stored value; kept as written"
            )
            penalty += 0.3
        negated = not positive and _negated(tokens, v.start)
        grouped.setdefault((table, column, negated), []).append((stored, v))
    conds = []
    for (table, column, negated), items in grouped.items():
        stored_values = list(dict.fromkeys(s for s, _ in items))
        text = " / ".join(v.text for _, v in items)
        op = "=" if len(stored_values) == 1 else "in"
        pos = min(v.start for _, v in items)
        parts = [next(v.start for s, v in items if s == value) for value in stored_values]
        conds.append(Cond(Col(table, column), op, stored_values, negated, text, pos, parts))
    return conds, notes, penalty


def _choose_option(
    v: ValueMatch, mentions: list[Mention], res: Resolver, tokens: list[Token], used: set[int]
) -> tuple[tuple[str, str, str], str | None]:
    if not v.options:
        raise Unclear(f"could not find the value '{v.text}' in any text column")
    for near in (
        adjacent_before(mentions, tokens, v.start, used, _QUALIFIER_GAP),
        adjacent_after(mentions, tokens, v.end, used, 1),
    ):
        if near is None:
            continue
        named = {(e.table, e.column) for e in near.columns()}
        hits = [o for o in v.options if (o[0], o[1]) in named]
        if not hits and near.start >= v.end and (table := res.table(near)) is not None:
            # "the Harbour Street branch": the noun after a value names the table holding it
            hits = [o for o in v.options if o[0] == table]
        if hits:
            used.add(near.start)
            ranked, _ = res.nearest(hits)
            return ranked[0], None
    placed = _placed(v, mentions, res, tokens)
    if placed is not None:
        return placed, None
    ranked, tie = res.nearest(v.options)
    if not tie:
        return ranked[0], None
    named_by = _by_preposition(v, ranked, tokens)
    if named_by:
        return named_by[0], None
    other = ranked[1]
    note = (
        f"'{v.text}' is a value of {ranked[0][0]}.{ranked[0][1]} and of {other[0]}.{other[1]}; "
        f"chose {ranked[0][0]}.{ranked[0][1]} (declaration order) — name the column to choose"
    )
    return ranked[0], note


def _placed(
    v: ValueMatch, mentions: list[Mention], res: Resolver, tokens: list[Token]
) -> tuple[str, str, str] | None:
    """ "entered a race in Denver": a value stored in several tables is of the table named right
    before its preposition."""
    if v.start < 1 or tokens[v.start - 1].low not in _PLACE_PREPOSITIONS:
        return None
    near = next((m for m in mentions if m.end == v.start - 1), None)  # used or not
    table = res.table(near) if near is not None else None
    if table is None:
        return None
    own = [o for o in v.options if o[0] == table]
    return res.nearest(own)[0][0] if own and len({o[0] for o in v.options}) > 1 else None


def _by_preposition(
    v: ValueMatch, ranked: list[tuple[str, str, str]], tokens: list[Token]
) -> list[tuple[str, str, str]]:
    """ "trips from Oslo to Bergen": when a value is stored in several columns, the preposition
    right before it picks the one column of the nearest table named with that word
    (`from_city`, `to_city`)."""
    before = [t for t in tokens[: v.start] if t.low not in ("the", "a", "an")]
    if not before or before[-1].kind != "word" or before[-1].low not in STOP:
        return []
    word = before[-1].low
    hits = [
        o
        for o in ranked
        if o[0] == ranked[0][0] and word in (w.lower() for w in split_identifier(o[1]))
    ]
    return hits if len({c for _, c, _ in hits}) == 1 else []


def _replaced(replace: dict[str, Any], table: str, column: str, stored: str) -> str:
    """Apply a refiner `replace_value` hint to a stored value."""
    if not replace or str(replace.get("old", "")).lower() != stored.lower():
        return stored
    if replace.get("column") and str(replace["column"]).lower() != column.lower():
        return stored
    if replace.get("table") and str(replace["table"]).lower() not in (
        table.lower(),
        table.split(".")[-1].lower(),
    ):
        return stored
    return str(replace.get("new", stored))


def _negated(tokens: list[Token], start: int) -> bool:
    window = [t.low for t in tokens[max(0, start - 3) : start]]
    return any(w in _NEGATIONS for w in window) or "n't" in " ".join(window)
