"""Spider's hardness levels (easy, medium, hard, extra) computed from a gold query.

Question files that do not say how hard a question is (Spider-Realistic, hand-made sets) get the
level Spider's own evaluation script would give, so results can be reported by hardness for any
Spider-format set. The counts follow that script (`count_component1`, `count_component2`,
`count_others`), including its quirks: in WHERE a negated condition counts as an aggregate, and in
HAVING every AND/OR connector does.

    >>> hardness_of("SELECT count(*) FROM singer")
    'easy'
    >>> hardness_of("SELECT name FROM t WHERE a = 1 INTERSECT SELECT name FROM t WHERE a = 2")
    'hard'
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlglot
from sqlglot import exp

_CONNECTORS = exp.And | exp.Or


@dataclass(frozen=True)
class _Leaf:
    node: exp.Expr
    negated: bool


def hardness_of(sql: str) -> str:
    """easy | medium | hard | extra, by Spider's rules; "unknown" when the SQL does not parse."""
    try:
        root = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.ParseError:
        return "unknown"
    select, set_ops = _main_select(root)
    if select is None:
        return "unknown"
    comp1, others = _component1(select), _others(select)
    comp2 = set_ops + _nested(select)
    if comp1 <= 1 and others == 0 and comp2 == 0:
        return "easy"
    if (others <= 2 and comp1 <= 1 and comp2 == 0) or (comp1 <= 2 and others < 2 and comp2 == 0):
        return "medium"
    if (
        (others > 2 and comp1 <= 2 and comp2 == 0)
        or (2 < comp1 <= 3 and others <= 2 and comp2 == 0)
        or (comp1 <= 1 and others == 0 and comp2 <= 1)
    ):
        return "hard"
    return "extra"


def _main_select(root: exp.Expr) -> tuple[exp.Select | None, int]:
    """The leftmost SELECT, and 1 when a set operation follows it (Spider nests the rest)."""
    set_ops = 0
    node = root
    while isinstance(node, exp.SetOperation):
        set_ops = 1
        node = node.this
    while isinstance(node, exp.Subquery):
        node = node.this
    return (node if isinstance(node, exp.Select) else None), set_ops


def _leaves(cond: exp.Expr | None) -> tuple[list[_Leaf], int]:
    """The condition units under AND/OR (through parentheses) and the number of ORs."""
    if cond is None:
        return [], 0
    if isinstance(cond, exp.Paren):
        return _leaves(cond.this)
    if isinstance(cond, _CONNECTORS):
        left, lo = _leaves(cond.left)
        right, ro = _leaves(cond.right)
        return left + right, lo + ro + isinstance(cond, exp.Or)
    if isinstance(cond, exp.Not) and not isinstance(cond.this, _CONNECTORS | exp.Paren):
        return [_Leaf(cond.this, True)], 0
    return [_Leaf(cond, False)], 0


def _clause(select: exp.Select, name: str) -> exp.Expr | None:
    node = select.args.get(name)
    return node.this if node is not None else None


def _join_conditions(select: exp.Select) -> exp.Expr | None:
    ons = [j.args.get("on") for j in select.args.get("joins") or [] if j.args.get("on")]
    return exp.and_(*ons) if ons else None


def _component1(select: exp.Select) -> int:
    where, _ = _leaves(_clause(select, "where"))
    count = sum(
        [
            bool(where),
            bool(select.args.get("group")),
            bool(select.args.get("order")),
            select.args.get("limit") is not None,
        ]
    )
    count += len(select.args.get("joins") or [])
    ors, likes = 0, 0
    for cond in (_join_conditions(select), _clause(select, "where"), _clause(select, "having")):
        leaves, n_or = _leaves(cond)
        ors += n_or
        likes += sum(isinstance(leaf.node, exp.Like) for leaf in leaves)
    return count + ors + likes


def _is_agg(node: exp.Expr) -> bool:
    return isinstance(node.unalias(), exp.AggFunc)


def _others(select: exp.Select) -> int:
    where, _ = _leaves(_clause(select, "where"))
    having, _ = _leaves(_clause(select, "having"))
    group = select.args.get("group")
    group_items = group.expressions if group else []
    order = select.args.get("order")
    agg = sum(_is_agg(e) for e in select.expressions)
    agg += sum(leaf.negated for leaf in where)
    agg += sum(_is_agg(e) for e in group_items)
    agg += sum(_is_agg(o.this) for o in order.expressions) if order else 0
    agg += max(len(having) - 1, 0)  # Spider counts HAVING's connectors, not its aggregates
    return sum([agg > 1, len(select.expressions) > 1, len(where) > 1, len(group_items) > 1])


def _nested(select: exp.Select) -> int:
    """Sub-queries used as condition values (WHERE, HAVING, ON), one per value."""
    count = 0
    for cond in (_join_conditions(select), _clause(select, "where"), _clause(select, "having")):
        for leaf in _leaves(cond)[0]:
            values = [leaf.node.args.get(k) for k in ("expression", "query", "low", "high")]
            values += list(leaf.node.args.get("expressions") or [])
            count += sum(isinstance(v, exp.Subquery | exp.Select) for v in values if v is not None)
    return count
