"""Date conditions: "in 2023", "before March 2024", "loans made in May".

A date condition applies to a date column named beside it, else to a date column of the table
named just before it, else of the root table (then the tables the root references); among several
date columns the one whose words the question uses wins, then the one named after its own table,
else the first declared (reported, and counted as a guess: the caller lowers its confidence).
A number column named a year takes whole years only.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.catalog.index import SchemaIndex
from nl2sql.reasoning.offline.linking.linker import Mention
from nl2sql.reasoning.offline.shapes.conditions import adjacent_before
from nl2sql.reasoning.offline.shapes.resolve import Resolver
from nl2sql.reasoning.offline.shapes.spec import Col, Cond, Part, Unclear, iso
from nl2sql.reasoning.offline.words.dates import DateCond
from nl2sql.reasoning.offline.words.text import Token

#: confidence lost to a date column taken as the first declared of several: a guess that sends
#: the reading to "did you mean …?" rather than stating its number ("cancelled in 2025" counted
#: by the start date)
GUESSED_DATE_PENALTY = 0.5


def date_conditions(
    dates: list[DateCond],
    mentions: list[Mention],
    res: Resolver,
    root: str,
    tokens: list[Token],
    used: set[int],
    notes: list[str],
) -> tuple[list[Cond], int]:
    """Range or part-of-year conditions on the right date column, and how many of them took
    the first declared of several date columns that no word of the question names."""
    conds: list[Cond] = []
    noted = len(notes)
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
    return conds, len(notes) - noted


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
    if near is None:  # "bowlers who rolled a game during October": the game's date, used or not
        near = next((m for m in mentions if m.end == first), None)
    named_table = (res.table(near) or next((e.table for e in near.tables()), None)
                   if near is not None else None)
    # the named table's, then those of the tables it references (a game's match), then the root's
    named_refs = [e.dst for e in sorted(idx.edges + idx.inferred, key=lambda e: e.rank)
                  if named_table and e.src == named_table and e.dst != root]
    tables = ([named_table] if named_table else []) + named_refs + [root] + res.context
    # then the tables the root references: an order line's date is its order's date
    tables += [e.dst for e in sorted(idx.edges, key=lambda e: e.rank) if e.src == root]
    tables = list(dict.fromkeys(tables))
    for table in tables:
        cols = idx.date_columns(table) or _year_columns(idx, table)
        if not cols:
            continue
        own = {"dat", "time"} | set(idx.table_words[table])
        said = [c for c in cols if (set(idx.col_words[(table, c)]) - own) & words]
        linked = [e.src if e.dst == table else e.dst for e in idx.edges + idx.inferred
                  if table in (e.src, e.dst)]
        dated = [t for t in dict.fromkeys(tables + linked) if t != table and idx.date_columns(t)]
        if not said and not idx.date_columns(table) and dated:
            # "titles borrowed … in 2025": a year a book holds, or the date of the loan?
            notes.append(f"{table} holds only a year ({cols[0]}), {dated[0]} has dates; "
                         f"used {cols[0]}")
            return Col(table, cols[0])
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
