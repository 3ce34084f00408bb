"""The validated plan as a readable tree: one branch per clause, expressions as short SQL text.

The tree is built from the plan's own sqlglot rendering (`sqlgen.render.plan_to_expression`), so
what the reader sees is exactly what the generator will turn into the dialect's SQL; only the
quoting is dropped, for reading, and a metric shows as its name (`oi.revenue /* metric */`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlglot import exp

    from nl2sql.plan import PlanModel


@dataclass(frozen=True)
class Tree:
    """A labelled node with children: what the text and HTML renderers draw."""

    label: str
    children: tuple[Tree, ...] = field(default_factory=tuple)


def plan_tree(plan: PlanModel) -> Tree:
    """The plan as a tree of clauses.

    >>> from nl2sql.plan import PlanModel, SelectItem, TableRef, col
    >>> p = PlanModel(tables=[TableRef(name="orders", alias="o")], select=[SelectItem(expr=col("id", "o"))])
    >>> print(tree_text(plan_tree(p)))
    query
    ├── SELECT
    │   └── o.id
    └── FROM orders AS o
    """
    from nl2sql.sqlgen.render import plan_to_expression

    return _query_tree("query", plan_to_expression(plan, expand_metrics=False))


def _query_tree(label: str, query: exp.Expr) -> Tree:
    from sqlglot import exp

    if isinstance(query, exp.SetOperation):
        word = type(query).__name__.upper() + ("" if query.args.get("distinct", True) else " ALL")
        return Tree(label, (_query_tree("left", query.this), Tree(word), _query_tree("right", query.expression)))
    if isinstance(query, exp.Subquery):
        return _query_tree(label, query.this)
    return Tree(label, tuple(_clauses(query)))


def _clauses(select: exp.Expr) -> list[Tree]:
    from sqlglot import exp

    head = "SELECT DISTINCT" if select.args.get("distinct") else "SELECT"
    out = [Tree(head, tuple(Tree(_sql(e)) for e in select.expressions))]
    source = select.args.get("from_") or select.args.get("from")
    if source is not None:
        joins = tuple(_joined(j) for j in select.args.get("joins") or [])
        if isinstance(source.this, exp.Subquery):  # a derived table: its own query below
            out.append(Tree(f"FROM ({source.this.alias})", (_query_tree(source.this.alias, source.this),
                                                            *joins)))
        else:
            out.append(Tree(f"FROM {_sql(source.this)}", joins))
    where = select.args.get("where")
    if where is not None:
        out.append(Tree("WHERE", tuple(Tree(_sql(c)) for c in _conjuncts(where.this, exp.And))))
    group = select.args.get("group")
    if group is not None:
        out.append(Tree("GROUP BY", tuple(Tree(_sql(e)) for e in group.expressions)))
    having = select.args.get("having")
    if having is not None:
        out.append(Tree("HAVING", tuple(Tree(_sql(c)) for c in _conjuncts(having.this, exp.And))))
    order = select.args.get("order")
    if order is not None:
        out.append(Tree("ORDER BY", tuple(Tree(_sql(e)) for e in order.expressions)))
    for key in ("limit", "offset"):
        node = select.args.get(key)
        if node is not None:
            out.append(Tree(_sql(node)))
    return out


def _joined(join: exp.Join) -> Tree:
    """A join; joining a derived table shows that table's query below the join."""
    from sqlglot import exp

    table = join.this
    if not isinstance(table, exp.Subquery):
        return Tree(_sql(join))
    head = join.copy()
    head.set("this", exp.to_identifier(table.alias, quoted=False))
    return Tree(_sql(head), (_query_tree(table.alias, table),))


def _conjuncts(node: exp.Expression, kind: type) -> list[exp.Expression]:
    """`a AND b AND c` as [a, b, c]: one branch per condition reads better than one long line."""
    if isinstance(node, kind):
        return _conjuncts(node.this, kind) + _conjuncts(node.expression, kind)
    return [node]


_PLAIN = re.compile(r"^[a-z_][a-z0-9_]*$")


def _sql(node: exp.Expression) -> str:
    """SQL text without the quotes a plain lowercase name does not need (easier to read)."""
    from sqlglot import exp

    def unquote(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Identifier) and n.quoted and _PLAIN.match(n.name):
            return exp.Identifier(this=n.name, quoted=False)
        return n

    return node.copy().transform(unquote).sql()


def tree_text(tree: Tree) -> str:
    """Draw a tree with box-drawing characters, one node per line."""
    lines = [tree.label]
    _draw(tree.children, "", lines)
    return "\n".join(lines)


def _draw(children: tuple[Tree, ...], prefix: str, lines: list[str]) -> None:
    for i, child in enumerate(children):
        last = i == len(children) - 1
        lines.append(f"{prefix}{'└── ' if last else '├── '}{child.label}")
        _draw(child.children, prefix + ("    " if last else "│   "), lines)
