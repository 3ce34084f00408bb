"""WHERE / HAVING conditions: stored values, numeric comparisons and date ranges.

- A value becomes `column = 'stored value'` (several values of one column: IN; "not"/"except"
  before it: != / NOT IN). A column named right beside the value picks its column; otherwise the
  column of a context table wins, then the nearest by FK hops, then the one column named with the
  preposition before the value ("from Oslo" -> `from_city`); a remaining tie is reported.
- Numeric comparisons are in `comparisons.py`.
- A date condition applies to a date column named beside it, else to a date column of the table
  named just before it, else of the root table; among several date columns the one whose words the
  question uses wins, else the first declared (reported).
"""

from __future__ import annotations

from collections.abc import Set
from typing import Any

from nl2sql.reasoning.offline.catalog.index import SchemaIndex
from nl2sql.reasoning.offline.linking.linker import Mention, ValueMatch
from nl2sql.reasoning.offline.shapes.resolve import Resolver
from nl2sql.reasoning.offline.shapes.spec import Col, Cond, Part, Unclear, iso
from nl2sql.reasoning.offline.words.dates import DateCond
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
}
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
            penalty += 0.1
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


def date_conditions(
    dates: list[DateCond],
    mentions: list[Mention],
    res: Resolver,
    root: str,
    tokens: list[Token],
    used: set[int],
    notes: list[str],
) -> list[Cond]:
    """Range or part-of-year conditions on the right date column."""
    conds: list[Cond] = []
    words = {t.canon for t in tokens if t.kind == "word"}
    for d in dates:
        first = min(d.tokens) if d.tokens else 0
        col = _date_column(mentions, res, root, tokens, first, used, words, notes)
        start = len(conds)  # the index of this date's condition
        if d.part:
            conds.append(Cond(Part(d.part, col), "=", [d.part_value], text=d.text))
        elif res.idx.kind(col.table, col.column) == "number":
            conds.append(_year_cond(col, d))
        else:
            conds.append(
                Cond(
                    col,
                    "range",
                    [iso(d.start) if d.start else None, iso(d.end) if d.end else None],
                    text=d.text,
                )
            )
        conds[start].pos = first
    return conds


def _date_column(
    mentions: list[Mention],
    res: Resolver,
    root: str,
    tokens: list[Token],
    first: int,
    used: set[int],
    words: set[str],
    notes: list[str],
) -> Col:
    idx = res.idx
    near = adjacent_before(mentions, tokens, first, used)
    if near is not None:
        col = res.column(near, ("date",))
        if col is None and _yearish(near):
            col = res.column(near, ("number",))
        if col is not None:
            used.add(near.start)
            return col
    named_table = res.table(near) if near is not None else None
    tables = ([named_table] if named_table else []) + [root] + res.context
    # then the tables the root references: an order line's date is its order's date
    tables += [e.dst for e in sorted(idx.edges, key=lambda e: e.rank) if e.src == root]
    for table in dict.fromkeys(tables):
        cols = idx.date_columns(table) or _year_columns(idx, table)
        if not cols:
            continue
        own = {"dat", "time"} | set(idx.table_words[table])
        said = [c for c in cols if (set(idx.col_words[(table, c)]) - own) & words]
        # "loan_date" of loans: the date named after its own table is the row's date
        named = [c for c in cols if set(idx.table_words[table]) & set(idx.col_words[(table, c)])]
        for pick in (said, named, cols):
            if len(pick) == 1:
                return Col(table, pick[0])
        notes.append(
            f"{table} has several date columns ({', '.join(cols)}); used {cols[0]} (first declared)"
        )
        return Col(table, cols[0])
    raise Unclear(
        f"no date column to apply '{' '.join(t.text for t in tokens[first : first + 3])}' to"
    )


def _year_cond(col: Col, d: DateCond) -> Cond:
    """A date condition on an integer year column: whole years only."""
    if d.year is not None:
        return Cond(col, "=", [d.year], text=d.text)
    bounds = [b for b in (d.start, d.end) if b is not None]
    if any((b.month, b.day) != (1, 1) for b in bounds):
        raise Unclear(f"{col.ref} holds years; '{d.text}' needs a finer date")
    if d.start and d.end:
        return Cond(col, "between", [d.start.year, d.end.year - 1], text=d.text)
    if d.start:
        return Cond(col, ">=", [d.start.year], text=d.text)
    assert d.end is not None  # a date range has at least one bound
    return Cond(col, "<", [d.end.year], text=d.text)


def _yearish(m: Mention) -> bool:
    return any("year" in (e.column or "").lower() for e in m.columns())


def _year_columns(idx: SchemaIndex, table: str) -> list[str]:
    return [
        c.name
        for c in idx.tables[table].columns
        if idx.kind(table, c.name) == "number" and "year" in idx.col_words[(table, c.name)]
    ]
