"""Structural rules: joins, aggregation, set operations and the shape of expressions.

Each finds what a database would reject (or answer wrongly) whatever the names: a table never
joined, a bare column next to aggregates, UNION operands of different widths, IN over a
two-column subquery. All are INVALID_PLAN_STRUCTURE errors the planner can fix on a retry.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from nl2sql.errors import ErrorCode
from nl2sql.plan import (
    Aggregate,
    ColumnRef,
    Expr,
    Function,
    InList,
    Join,
    Literal_,
    PlanModel,
    PlanScope,
    ScalarSubquery,
    Star,
    children,
    clause_expressions,
    has_aggregate,
    is_aggregate,
    walk_expression,
)
from nl2sql.validation.scope import Finding, RuleContext, resolve

_ARITY = {"lower": (1, 1), "upper": (1, 1), "abs": (1, 1), "length": (1, 1), "round": (1, 2)}
_NO_AGGREGATES = {"where": "WHERE (use HAVING)", "joins": "a join's ON", "group_by": "GROUP BY"}


def _finding(message: str, scope: PlanScope, **details: Any) -> Finding:
    return Finding(ErrorCode.INVALID_PLAN_STRUCTURE, message, {**details, "path": scope.path})


def join_structure(ctx: RuleContext) -> list[Finding]:
    """Each join names a later table once; every later table is joined; ON looks backwards only."""
    findings = []
    for scope in ctx.scopes:
        aliases = [t.alias.lower() for t in scope.plan.tables]
        joined: dict[str, int] = {}
        for join in scope.plan.joins:
            key = join.alias.lower()
            if key not in aliases:
                findings.append(
                    _finding(
                        f"A join names {join.alias!r}, which is not one of the plan's tables.",
                        scope,
                        alias=join.alias,
                    )
                )
            elif key == aliases[0]:
                findings.append(
                    _finding(
                        f"{join.alias!r} is the first (FROM) table and cannot be joined.",
                        scope,
                        alias=join.alias,
                    )
                )
            elif key in joined:
                findings.append(
                    _finding(f"Table {join.alias!r} is joined twice.", scope, alias=join.alias)
                )
            else:
                joined[key] = aliases.index(key)
                findings += _on_looks_backwards(scope, join, aliases[: joined[key] + 1])
        for ref in scope.plan.tables[1:]:
            if ref.alias.lower() not in joined:
                message = f"Table {ref.alias!r} ({ref.name}) is never joined: add a join with an ON condition."
                findings.append(_finding(message, scope, alias=ref.alias))
    return findings


def _on_looks_backwards(scope: PlanScope, join: Join, visible: list[str]) -> list[Finding]:
    own = {a.lower() for a in scope.tables}
    findings = []
    for node in walk_expression(join.on):
        if not isinstance(node, ColumnRef):
            continue
        alias = node.table or resolve(node, scope, "joins").alias
        if alias and alias.lower() in own and alias.lower() not in visible:
            message = f"The ON of the join of {join.alias!r} uses {alias!r}, which is joined later."
            findings.append(_finding(message, scope, alias=join.alias, uses=alias))
    return findings


def aggregation(ctx: RuleContext) -> list[Finding]:
    """No aggregates in WHERE/ON/GROUP BY or inside aggregates; bare columns are grouped."""
    findings = []
    for scope in ctx.scopes:
        for clause, node in clause_expressions(scope.plan):
            if not is_aggregate(node):
                continue
            if clause in _NO_AGGREGATES:
                findings.append(
                    _finding(
                        f"Aggregates are not allowed in {_NO_AGGREGATES[clause]}.",
                        scope,
                        clause=clause,
                    )
                )
            if isinstance(node, Aggregate) and any(is_aggregate(n) for n in walk_expression(node.arg)):
                findings.append(
                    _finding("An aggregate cannot contain another aggregate.", scope, clause=clause)
                )
        findings += _ungrouped(scope)
    return findings


def _ungrouped(scope: PlanScope) -> list[Finding]:
    plan = scope.plan
    select_aggregates = any(has_aggregate(i.expr) for i in plan.select)
    if not (plan.group_by or select_aggregates or plan.having is not None):
        return []
    groups = list(plan.group_by) + _aliased_groups(plan)
    keys = {_key(g, scope) for g in groups if isinstance(g, ColumnRef)}
    roots = [("select", i.expr) for i in plan.select] + [
        ("order_by", o.expr) for o in plan.order_by
    ]
    roots += [("having", plan.having)] if plan.having is not None else []
    findings = []
    for clause, root in roots:
        if isinstance(root, Star):
            findings.append(
                _finding("SELECT * cannot be combined with GROUP BY or aggregates.", scope)
            )
            continue
        for ref in _bare_columns(root, groups):
            resolved = resolve(ref, scope, clause)
            if resolved.status in ("select_alias", "unknown_alias", "ambiguous"):
                continue  # an output alias, or a name the aliases rule already reports
            if resolved.alias and resolved.alias not in scope.tables:
                continue  # a column of an enclosing query: constant within each group
            if _key(ref, scope) not in keys:
                name = f"{ref.table}.{ref.name}" if ref.table else ref.name
                message = f"Column {name} is used next to aggregates but is not in GROUP BY."
                findings.append(
                    _finding(message, scope, column=ref.name, alias=ref.table, clause=clause)
                )
    return findings


def _aliased_groups(plan: PlanModel) -> list[Expr]:
    """The select expressions GROUP BY names by their alias."""
    names = {g.name.lower() for g in plan.group_by if isinstance(g, ColumnRef) and g.table is None}
    return [i.expr for i in plan.select if i.alias and i.alias.lower() in names]


def _key(ref: ColumnRef, scope: PlanScope) -> tuple[str, str]:
    alias = ref.table or resolve(ref, scope, "group_by").alias or ""
    return alias.lower(), ref.name.lower()


def _bare_columns(node: object, groups: list[Expr]) -> Iterator[ColumnRef]:
    """Column references outside aggregates and outside sub-expressions that are grouped."""
    if node in groups or is_aggregate(node) or isinstance(node, PlanModel):
        return
    if isinstance(node, ColumnRef):
        yield node
        return
    for child in children(node):
        yield from _bare_columns(child, groups)


def set_operation(ctx: RuleContext) -> list[Finding]:
    """Operands select as many columns; ORDER BY of the result names selected columns."""
    findings = []
    for scope in ctx.scopes:
        operation = scope.plan.set_operation
        if operation is None:
            continue
        right = next(s for s in ctx.scopes if s.plan is operation.right)
        left_width, right_width = _width(scope), _width(right)
        if None not in (left_width, right_width) and left_width != right_width:
            message = f"The operands of {operation.op.upper()} select {left_width} and {right_width} columns; they must select as many."
            findings.append(_finding(message, scope, left=left_width, right=right_width))
        for item in scope.plan.order_by:
            if not _names_output(item.expr, scope.plan):
                message = f"ORDER BY of a {operation.op.upper()} can only use the selected columns."
                findings.append(_finding(message, scope))
    return findings


def _width(scope: PlanScope) -> int | None:
    width = 0
    for item in scope.plan.select:
        if not isinstance(item.expr, Star):
            width += 1
            continue
        found = scope.declared(item.expr.table) if item.expr.table else None
        tables = [found[1]] if found else list(scope.tables.values())
        known = [t for t in tables if t is not None]
        if len(known) != len(tables):
            return None
        width += sum(len(t.columns) for t in known)
    return width


def _names_output(node: Expr, plan: PlanModel) -> bool:
    if any(item.expr == node for item in plan.select):
        return True
    if not isinstance(node, ColumnRef):
        return False
    outputs = {i.alias.lower() for i in plan.select if i.alias}
    outputs |= {i.expr.name.lower() for i in plan.select if isinstance(i.expr, ColumnRef)}
    return node.name.lower() in outputs


def expression_shape(ctx: RuleContext) -> list[Finding]:
    """IN has values or a one-column subquery; functions get their arguments; * only where valid."""
    findings = []
    for scope in ctx.scopes:
        allowed_stars = {id(i.expr) for i in scope.plan.select}
        for clause, node in clause_expressions(scope.plan):
            if isinstance(node, Aggregate) and isinstance(node.arg, Star | None):
                allowed_stars.add(id(node.arg))
                if node.func != "count" or node.distinct:
                    findings.append(
                        _finding(
                            f"{node.func.upper()}{' DISTINCT' if node.distinct else ''} needs a column, not *.",
                            scope,
                            clause=clause,
                        )
                    )
            message = _shape_problem(node, allowed_stars)
            if message:
                findings.append(_finding(message, scope, clause=clause))
    return findings


def _shape_problem(node: Expr, allowed_stars: set[int]) -> str | None:
    if isinstance(node, Star) and id(node) not in allowed_stars:
        return "* can only be a whole select item or the argument of COUNT."
    if isinstance(node, InList) and bool(node.values) == (node.query is not None):
        return "IN needs either a list of values or a subquery, not both or neither."
    query = node.query if isinstance(node, InList | ScalarSubquery) else None
    if query is not None and (len(query.select) != 1 or isinstance(query.select[0].expr, Star)):
        return "A subquery used as a value or with IN must select exactly one column."
    if isinstance(node, Function):
        low, high = _ARITY.get(node.name, (1, None))
        if len(node.args) < low or (high is not None and len(node.args) > high):
            return f"{node.name.upper()} got {len(node.args)} arguments."
    if (
        isinstance(node, Literal_)
        and isinstance(node.value, float)
        and not math.isfinite(node.value)
    ):
        return f"The number {node.value} has no SQL literal."
    return None
