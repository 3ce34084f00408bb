"""Per-group extremes: "the most expensive product of each category", "the employee with the
highest salary in each department".

A superlative that ranks rows, with an "each / per" group named beside it, picks the top row of
every group, not one row overall: WHERE measure = (SELECT MAX(measure) FROM <the same table>
WHERE <group columns> = <the outer row's>), a correlated sub-query, so rows that tie for a
group's extreme are all kept (the answer says so). The group is a column of the ranked rows'
table or a table they reference in one step (grouped by the referencing columns); anything
further (a group two joins away, "the top 3 … in each …") is refused rather than guessed.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.plan.joins import JoinError, connect
from nl2sql.reasoning.offline.shapes.clauses import conditions
from nl2sql.reasoning.offline.shapes.conditions import adjacent_after
from nl2sql.reasoning.offline.shapes.roles import group_target, outputs, projections
from nl2sql.reasoning.offline.shapes.spec import Col, GroupExtreme, Query, Target, Unclear
from nl2sql.reasoning.offline.shapes.state import Analysis
from nl2sql.reasoning.offline.words import cues as C


def per_group_extreme(
    a: Analysis, entity: Col | str, root: str, measure: Col, direction: str
) -> Query | None:
    """The per-group extreme query when an "each" group is named; None when none is."""
    group = _each_group(a)
    if group is None:
        return None
    if a.question.scan.limit[0] is not None:
        raise Unclear("the top rows of each group (a window ranking) are not supported")
    if group == entity or (isinstance(group, Col) and group == measure):
        raise Unclear("could not tell what the groups of the ranking are")
    by, group_table = _group_columns(a, root, group)
    q = Query(root=root, shape="ranking")
    a.res.add_context(root)
    compared = [cue.text for cue, m in conditions(a, q) if m.metric is not None]
    if compared:
        raise Unclear(f"could not tell which rows' metric '{compared[0]}' compares")
    _, group_shown = outputs(a, group)
    _, entity_shown = outputs(a, entity)
    shown = projections(a, entity_shown)
    select: list[Target] = []
    for t in [*group_shown, *shown, measure]:
        if t not in select:
            select.append(t)
    q.select = [(t, None) for t in select]
    q.extreme = GroupExtreme(measure, "max" if direction == "desc" else "min", by)
    q.order = [(t, "asc") for t in group_shown]
    note = f"the {'highest' if direction == 'desc' else 'lowest'} {measure.ref} of each "
    a.notes.append(note + f"{group_table if isinstance(group, str) else group.ref}; ties kept")
    return q


def _each_group(a: Analysis) -> Col | str | None:
    """The target of the first "each / per / for every" cue, marked used; None without one."""
    tokens, mentions = a.question.tokens, a.question.mentions
    for _, end, word in C.group_cues(tokens):
        if word != "each":
            continue
        m = adjacent_after(mentions, tokens, end, a.used, within=2)
        if m is None:
            raise Unclear(f"could not tell what '{tokens[end - 1].text}' groups by")
        return group_target(a, m)
    return None


def _group_columns(a: Analysis, root: str, group: Col | str) -> tuple[tuple[str, ...], str]:
    """The columns of `root` whose equal values make one group, and the group's table."""
    table = group if isinstance(group, str) else group.table
    if table == root and isinstance(group, Col):
        return (group.column,), table
    try:
        tree = connect(a.question.idx, root, [table])
    except JoinError as exc:
        raise Unclear(f"could not tell how {root} rows belong to a {table}") from exc
    if len(tree.steps) != 1 or tree.steps[0].fan_out:
        raise Unclear(f"{root} rows do not each belong to one {table} (one join away)")
    # (root column, referenced column) of the one join step, whichever side declares it
    pairs = [(ca, cb) if ta == root else (cb, ca) for ta, ca, _, cb in tree.steps[0].pairs()]
    if isinstance(group, Col) and group.column not in {other for _, other in pairs}:
        # "each city" of the referenced stores: several referenced rows make one group,
        # which a comparison of the referencing columns does not express
        raise Unclear(f"grouping {root} rows by {group.ref} needs a join in the sub-query")
    return tuple(own for own, _ in pairs), table
