"""What a count cue counts: "how many loans", "the number of different genres", "how many pages".

A count names a table (COUNT(*)), a column (COUNT(DISTINCT col) when it repeats in its table; a
numeric column that already holds a count is summed: "how many pages") or a foreign key (the
rows it references). "The maximum number of pages" aggregates a numeric column instead.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.catalog.flags import flag_values
from nl2sql.reasoning.offline.linking.linker import Mention
from nl2sql.reasoning.offline.shapes.roles import referenced
from nl2sql.reasoning.offline.shapes.spec import Agg, Col, Unclear
from nl2sql.reasoning.offline.shapes.state import Analysis
from nl2sql.reasoning.offline.words import cues as C
from nl2sql.schema.key_names import KEY_SUFFIXES, split_words
from nl2sql.schema.relationships import holds_every_row_once

_DISTINCT = {"different", "distinct", "unique"}
_COUNT_SUFFIXES = {"num", "number", "nr", "no"}  # `page_num` may hold a count; `ref`, `id` never


def count_measure(a: Analysis, cc: tuple[int, int]) -> tuple[Agg, Mention | None]:
    """The aggregate of the count cue spanning tokens[cc[0]:cc[1]], and the mention it counts."""
    question, tokens = a.question, a.question.tokens
    m = a.next_mention(cc[1], within=5)
    if m is None or _value_is_the_noun(a, cc[1]):
        table = _counted_value(a, cc[1])
        if table is not None:  # "how many dogs are there": the rows holding the value
            a.res.add_context(table)
            return Agg("count", table), None
    if m is None or question.unknown_between(cc[1], m.start):
        raise Unclear(
            question.unknown_between(cc[1], len(tokens))
            or "could not tell what to count after '" + question.text(*cc) + "'"
        )
    distinct = any(t.low in _DISTINCT for t in tokens[cc[1] : m.start])
    head = a.next_mention(m.end, within=0)
    counted = a.res.table(head) if head is not None else None
    if head is not None and counted and (
        a.res.table(m) or any(e.table == counted for e in m.columns())
    ):
        # "how many class bookings": a compound of tables counts its head; "how many
        # high-priority work orders": a column of the head's table is its modifier, and a
        # flag ("how many active customers") is left to be the rows' condition
        if not _flag(a, m):
            a.used.add(m.start)
            a.absorbed.add(m.start)
        m = head
    a.used.add(m.start)
    # the cue's own words ("total number of") are the count, even where a column is named
    # "number" or "total": they have no other role to play
    start = cc[0] - 1 if cc[0] > 0 and tokens[cc[0] - 1].low == "total" else cc[0]
    a.used.update(x.start for x in question.mentions if start <= x.start and x.end <= cc[1])
    before = [t for t in tokens[max(0, cc[0] - 2) : cc[0]] if t.low != "the"]
    if before and before[-1].low in C.AGG_WORDS and C.AGG_WORDS[before[-1].low] != "sum":
        return _agg_of_number(a, C.AGG_WORDS[before[-1].low], m), m
    return _count_of(a, m, distinct), m


def _flag(a: Analysis, m: Mention) -> bool:
    col = None if a.res.table(m) else a.res.column(m)
    return col is not None and flag_values(a.question.idx, col.table, col.column) is not None


def _value_is_the_noun(a: Analysis, at: int) -> bool:
    """ "how many cats have come through the shelters": a stored value right after the cue with
    no noun after it is what is counted (not "how many Fantasy books", where it modifies)."""
    value = next((v for v in a.question.linking.values if v.start == at), None)
    return value is not None and a.next_mention(value.end, within=0) is None


def _counted_value(a: Analysis, at: int) -> str | None:
    """The table of the stored value written right after the count cue as the counted noun
    ("how many dogs", "how many cats are older than 4"), when it is stored in one table."""
    value = next((v for v in a.question.linking.values if v.start == at), None)
    tables = {o[0] for o in value.options} if value is not None else set()
    return tables.pop() if len(tables) == 1 else None


def _agg_of_number(a: Analysis, func: str, m: Mention) -> Agg:
    """For "the maximum number of X", X must be a numeric column (else it is a nested count)."""
    col = a.res.column(m, ("number",))
    if col is None:
        raise Unclear(
            f"the {func} of a count of '{m.text}' needs a nested aggregate; not supported"
        )
    return Agg(func, col.table, col)


def _count_of(a: Analysis, m: Mention, distinct: bool) -> Agg:
    idx = a.question.idx
    table = a.res.table(m)
    if table is not None:
        tally = None if distinct else _tally(a, table)
        # "how many check-ins" over rows that each tally several (`checkin.count`): their sum
        return Agg("sum", table, tally) if tally is not None else Agg("count", table)
    col = a.res.column(m)
    if col is None:
        raise Unclear(f"could not tell what '{m.text}' counts")
    entity = referenced(a, col)
    if entity is not None and not distinct:
        # "the number of suppliers" names a foreign key: count the rows it references
        a.res.add_context(entity)
        return Agg("count", entity)
    # a column named as a key (`memberId`) identifies things, it holds no count to add up
    is_key = col.column in idx.keys.get(col.table, set()) or _key_named(col.column)
    if idx.kind(col.table, col.column) == "number" and not is_key and not distinct:
        # "how many pages does X have": the column holds the count already
        a.quantity = True
        return Agg("sum", col.table, col)
    if not distinct and _yes_no(a, col):
        raise Unclear(f"'{m.text}' is a yes/no column: count the rows where it holds, or "
                      "name what to count")
    # a key repeated in its table (`member_id` of bookings) counts entities once each
    return Agg("count", col.table, col, distinct=distinct or not identifies_rows(a, col))


_TALLY_WORDS = {"count", "tally"}  # `cnt` reads "count"


def _tally(a: Analysis, table: str) -> Col | None:
    """The numeric column of `table` that says how many things each row stands for: named a
    count and nothing else but the table's own name (`count`, `visit_count`, `checkinCnt`)."""
    idx = a.question.idx
    own = set(idx.table_words.get(table, ()))
    found = [
        c.name for c in idx.tables[table].columns
        if idx.kind(table, c.name) == "number"
        and (words := [w for w in idx.col_words.get((table, c.name), ()) if w not in own])
        and set(words) <= _TALLY_WORDS
    ]
    return Col(table, found[0]) if len(found) == 1 else None


def _yes_no(a: Analysis, col: Col) -> bool:
    """A flag column: counting its distinct values (two at most) answers no "how many"."""
    idx = a.question.idx
    column = idx.column(col.table, col.column)
    two = column is not None and column.distinct_count is not None and column.distinct_count <= 2
    return idx.kind(col.table, col.column) == "bool" or two


def identifies_rows(a: Analysis, col: Col) -> bool:
    """Whether the column holds one value per row: its table's key or unique in the data."""
    idx = a.question.idx
    if idx.pk(col.table) == [col.column]:
        return True
    table, column = idx.tables[col.table], idx.column(col.table, col.column)
    return column is not None and holds_every_row_once(table, column)


def _key_named(column: str) -> bool:
    """`memberId`, `class_code`, `custRef`: the last word says the column identifies things."""
    last = split_words(column)[-1]
    return last in KEY_SUFFIXES and last not in _COUNT_SUFFIXES
