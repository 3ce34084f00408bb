"""Roles of mentions: group-by keys, grouped or ranked entities, and projections.

A table used as a group or an entity is represented by its key columns (primary key + label
columns) and shown by its label columns (`book_title`; `given_name`, `family_name`), or by its
primary key when it has no label. The shapes call these while they read the question; each one
marks the mentions it gives a role as used.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.linking.linker import Mention
from nl2sql.reasoning.offline.shapes.conditions import adjacent_after
from nl2sql.reasoning.offline.shapes.spec import Col, Part, Query, Target, Unclear
from nl2sql.reasoning.offline.shapes.state import Analysis
from nl2sql.reasoning.offline.words import cues as C
from nl2sql.reasoning.offline.words.text import is_past_participle

_TIME_PARTS = {
    "year": "year",
    "yearly": "year",
    "month": "month",
    "monthly": "month",
    "quarter": "quarter",
    "quarterly": "quarter",
    "day": "day",
    "daily": "day",
}
_RESTRICTIVE = {"from", "in", "with", "who", "that", "which", "whose", "of", "at", "located",
                "based"}  # fmt: skip
MEASURE_WORDS = {"number", "count", "total", "average", "sum", "amount", "mean"}


def group_target(a: Analysis, m: Mention) -> Col | str:
    """A column, or a table (grouped by its key and label columns)."""
    table = a.res.table(m)
    try:
        col = a.res.column(m)
    except Unclear:
        if table is None:
            raise
        col = None
    a.used.add(m.start)
    entity = referenced(a, col) if col is not None else None
    if entity is not None and table in (None, entity):
        # "each publisher" / "each region" names a foreign key to a table: group by
        # the rows it references (their key and name)
        return entity
    if col is not None and (table is None or col.table in a.res.context) and not _names_table(m):
        return col
    if table is not None:
        return table
    raise Unclear(f"could not tell what '{m.text}' refers to")


def _names_table(m: Mention) -> bool:
    """ "Which 3 events …" names the table `events` more closely than a column it begins
    (`event_date`, a shortened reading): the rows are ranked, not the dates."""
    tables, columns = m.tables(), m.columns()
    return bool(tables and columns) and max(e.score for e in tables) > max(
        e.score for e in columns
    )


def referenced(a: Analysis, col: Col) -> str | None:
    """The table a single-column foreign key references (None for other columns)."""
    for e in a.question.idx.edges:
        if e.src == col.table and e.src_cols == (col.column,) and e.dst != col.table:
            return e.dst
    return None


def outputs(a: Analysis, entity: Col | Part | str) -> tuple[list[Target], list[Target]]:
    """(group keys, shown columns) of a group target."""
    if not isinstance(entity, str):
        return [entity], [entity]
    idx = a.question.idx
    labels, pk = idx.labels[entity], idx.pk(entity)
    keys: list[Target] = [Col(entity, c) for c in dict.fromkeys(pk + labels)]
    shown: list[Target] = [Col(entity, c) for c in (labels or pk)]
    if not shown:
        raise Unclear(f"{entity} has no key or name column to group by")
    return keys, shown


def groups(a: Analysis, q: Query) -> tuple[list[Target], list[Target]]:
    """Group keys and shown columns from "per / for each / by" cues."""
    keys: list[Target] = []
    shown: list[Target] = []
    for start, end, word in C.group_cues(a.question.tokens):
        for target in _group_targets(a, q, start, end, word):
            if isinstance(target, str) and a.res.entity is None:
                a.res.entity = target  # "each author": its id and name are asked
            k, o = outputs(a, target)
            keys += [x for x in k if x not in keys]
            shown += [x for x in o if x not in shown]
    return keys, shown


def _group_targets(a: Analysis, q: Query, start: int, end: int, word: str) -> list[Col | Part | str]:
    tokens, idx, mentions = a.question.tokens, a.question.idx, a.question.mentions
    nxt = [t for t in tokens[end : end + 2] if t.low not in ("the", "a")]
    if nxt and nxt[0].low.rstrip("s") in _TIME_PARTS and idx.date_columns(q.root):
        part = _TIME_PARTS[nxt[0].low.rstrip("s")]
        for mention in mentions:
            if mention.start == nxt[0].index:
                a.used.add(mention.start)
        dated = Col(q.root, idx.date_columns(q.root)[0])
        # "per day", "daily": each date (not the day of the month, which mixes the months)
        return [dated if part == "day" else Part(part, dated)]
    m = adjacent_after(mentions, tokens, end, a.used, within=2)
    if m is None and word == "each":
        raise Unclear(
            f"could not tell what '{a.question.text(start, min(end + 2, len(tokens)))}' groups by"
        )
    if m is None or (word == "by" and not _by_groups(a, start, m)):
        return []
    m = _head_of_compound(a, m)
    if tokens[start].low == "per" and _rate_per_row(a, q, m):
        a.used.add(m.start)
        a.notes.append(f"'per {m.text}': the average over the {q.root} rows, not one group each")
        return []
    targets: list[Col | Part | str] = [group_target(a, m)]
    while m.end < len(tokens) and tokens[m.end].low == "and":
        following = adjacent_after(mentions, tokens, m.end + 1, a.used, within=1)
        if following is None:
            break
        m = following
        targets.append(group_target(a, m))
    return targets


def _rate_per_row(a: Analysis, q: Query, m: Mention) -> bool:
    """ "the average fuel cost per trip" over the trips' own cost: the average of the rows, as
    "per" says of a rate, not one group per trip (each group would be one row)."""
    measure = a.measure
    return (measure is not None and measure.func == "avg" and measure.col is not None
            and measure.col.table == q.root and a.res.table(m) == q.root)


def _head_of_compound(a: Analysis, m: Mention) -> Mention:
    """In "per copy branch" the last noun is the group; earlier ones only choose the join path."""
    while True:
        nxt = next(
            (x for x in a.question.mentions if x.start == m.end and x.start not in a.used), None
        )
        if nxt is None or not a.res.table(m):
            return m
        a.used.add(m.start)
        m = nxt


def _by_groups(a: Analysis, start: int, m: Mention) -> bool:
    """Whether "by X" groups: not when X is a ranking measure or a relation ("made by members")."""
    tokens = a.question.tokens
    if any(t.low in MEASURE_WORDS for t in tokens[start + 1 : start + 3]):
        return False
    if not a.res.table(m):
        return True
    prev = tokens[start - 1].low if start > 0 else ""
    after = tokens[m.end].low if m.end < len(tokens) else ""
    # "placed by customers", "books by authors from Japan": a relation, not a grouping
    return not (prev.endswith("ed") or is_past_participle(prev) or after in _RESTRICTIVE)


def projections(a: Analysis, default: list[Target]) -> list[Target]:
    """Columns the question asks to see (unused column mentions), else `default`."""
    shown: list[Target] = []
    for m in a.question.mentions:
        if m.start in a.used or a.res.table(m) or not m.columns():
            continue
        col = a.res.column(m)
        assert col is not None  # a mention with columns names one (or raises Unclear)
        a.used.add(m.start)
        if col not in shown:
            shown.append(col)
    return shown or default
