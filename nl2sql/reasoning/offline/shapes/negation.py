"""Negation: "branches without any copies", "members who do not have an overdue loan", "authors
with no books" — rows of the root table for which no matching row exists.

What each negation word negates is its scope (`scopes.py`). When the scope names another table,
or a value, number or date of a table the root reaches only through rows it repeats, the
condition becomes an anti-join: `root.key NOT IN (SELECT root.key FROM root JOIN … WHERE <scope
conditions>)` (the sub-query starts from the root table, so the foreign-key path is the same one
the outer query would take). A negated value of the root itself stays a plain `!=` ("singers not
from France").

`reserve_negated_tables` is a rule of its own (it runs before the shape is read);
`negated_conditions` is called by `clauses.conditions` while a shape fills its WHERE clause.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.linking.linker import Mention, ValueMatch
from nl2sql.reasoning.offline.linking.phrases import is_verb_form
from nl2sql.reasoning.offline.plan.joins import JoinError, connect
from nl2sql.reasoning.offline.shapes.comparisons import numeric_conditions
from nl2sql.reasoning.offline.shapes.conditions import value_conditions
from nl2sql.reasoning.offline.shapes.date_conditions import GUESSED_DATE_PENALTY, date_conditions
from nl2sql.reasoning.offline.shapes.flags import flag_conditions
from nl2sql.reasoning.offline.shapes.scopes import Scope
from nl2sql.reasoning.offline.shapes.spec import Col, Query, Unclear
from nl2sql.reasoning.offline.shapes.state import Analysis
from nl2sql.reasoning.offline.words.dates import DateCond
from nl2sql.reasoning.offline.words.numeric import NumCue


def reserve_negated_tables(a: Analysis) -> None:
    """Rule: table mentions inside a negation are not the question's entity: keep them aside."""
    mentions = a.question.mentions
    for scope in a.question.scopes:
        for m in mentions:
            if scope.start <= m.start < scope.end and a.res.table(m):
                a.negated_mentions[m.start] = scope
                a.used.add(m.start)
        # "staff who never got a rebate in an audit": a column of a negated table describes
        # the rows excluded, it is not asked to be shown
        negated = {a.res.table(m) for m in mentions if a.negated_mentions.get(m.start) == scope}
        for m in mentions:
            if (
                scope.start <= m.start < scope.end
                and m.start not in a.used
                and (any(e.table in negated for e in m.columns()) or (negated and _verb_date(a, m)))
            ):
                a.used.add(m.start)
                a.absorbed.add(m.start)


def _verb_date(a: Analysis, m: Mention) -> bool:
    """ "students who never enrolled in a section": the negated clause's verb, though it names
    a date (`enrolledDate`), says the relation the anti-join excludes, no date to show."""
    idx = a.question.idx
    return (m.end - m.start == 1 and is_verb_form(a.question.tokens[m.start]) and bool(m.columns())
            and all(e.column is not None and idx.kind(e.table, e.column) == "date"
                    for e in m.columns()))


def negated_conditions(a: Analysis, q: Query) -> tuple[set[int], set[int], set[int]]:
    """Add anti-joins to q; return the value, numeric-cue and date token starts they used."""
    used_values: set[int] = set()
    used_nums: set[int] = set()
    used_dates: set[int] = set()
    scan, values_all = a.question.scan, a.question.linking.values
    for scope in a.question.scopes:
        values = [v for v in values_all if scope.start <= v.start < scope.end]
        nums = [c for c in scan.nums if scope.start <= c.start < scope.end]
        dates = [d for d in scan.dates if d.tokens and scope.start <= min(d.tokens) < scope.end]
        tables = [
            a.res.table(m)
            for m in a.question.mentions
            if a.negated_mentions.get(m.start) == scope and a.res.table(m) != q.root
        ]
        if not (tables or nums or dates) and not _fans_out(a, q.root, values):
            continue  # a negated value of the root's own row: a plain != condition
        if not (tables or nums or dates or values):
            continue
        q.anti.append(_anti_join(a, q, scope, tables, values, nums, dates))
        used_values |= {v.start for v in values}
        used_nums |= {c.start for c in nums}
        used_dates |= {min(d.tokens) for d in dates}
        a.negations_done.add(scope.cue)
        a.notes.append(
            f"'{a.question.tokens[scope.cue].text} {a.question.text(scope.start, scope.end)}': "
            f"{q.root} rows with no matching row"
        )
    return used_values, used_nums, used_dates


def _anti_join(
    a: Analysis,
    q: Query,
    scope: Scope,
    tables: list[str | None],
    values: list[ValueMatch],
    nums: list[NumCue],
    dates: list[DateCond],
) -> tuple[Col, Query]:
    pk = a.question.idx.pk(q.root)
    if len(pk) != 1:
        raise Unclear(f"{q.root} has no single-column key to exclude rows by")
    key = Col(q.root, pk[0])
    sub = Query(root=q.root, select=[(key, None)], joined=[t for t in tables if t])
    mentions, tokens = a.question.mentions, a.question.tokens
    conds, notes, _ = value_conditions(
        values, mentions, a.res, tokens, a.used, a.question.replace, positive=True
    )
    nconds, having = numeric_conditions(nums, mentions, a.res, tokens, a.used, values)
    if having:
        raise Unclear(f"could not negate '{a.question.text(scope.cue, scope.end)}'")
    date_root = next((t for t in tables if t), q.root)
    dated, guessed = date_conditions(dates, mentions, a.res, date_root, tokens, a.used, a.notes)
    a.penalty += GUESSED_DATE_PENALTY * guessed
    sub.where = flag_conditions(a, sub, scope) + conds + nconds + dated
    a.notes += notes
    return key, sub


def _fans_out(a: Analysis, root: str, values: list[ValueMatch]) -> bool:
    """Whether any value's table is reached from the root only through repeated rows."""
    for v in values:
        table = v.options[0][0] if v.options else root
        if table == root:
            continue
        try:
            if connect(a.question.idx, root, [table]).fans_out:
                return True
        except JoinError:
            return True
    return False
