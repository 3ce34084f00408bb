"""The hidden-columns rule: a column the semantic layer hides is never shown in an answer.

Only what the answer shows is checked — the outermost plan's select list (and its set
operations' operands); a hidden column may still filter, join, group or be aggregated. A `*`
over a table with hidden columns would show them, so it is refused too. Findings are
retryable: the planner can name the other columns.
"""

from __future__ import annotations

from nl2sql.errors import ErrorCode
from nl2sql.plan import Aggregate, ColumnRef, PlanScope, Star, walk_expression
from nl2sql.schema.models import SchemaSnapshot, Table
from nl2sql.validation.scope import Finding, RuleContext, resolve


def hidden_columns(ctx: RuleContext) -> list[Finding]:
    """Hidden columns (and `*` over their tables) in what the answer shows are refused."""
    findings: list[Finding] = []
    for scope in ctx.scopes:
        if scope.path.replace(".set_operation", "") != "$":
            continue  # a nested plan's output is not shown
        for item in scope.plan.select:
            if isinstance(item.expr, Star):
                findings += _star(scope, item.expr)
                continue
            aggregated = {id(n) for a in walk_expression(item.expr) if isinstance(a, Aggregate)
                          for n in walk_expression(a)}
            for node in walk_expression(item.expr):
                if isinstance(node, ColumnRef) and id(node) not in aggregated:
                    found = resolve(node, scope, "select")
                    if found.table is not None and found.column is not None and _hidden(found.table, found.column.name):
                        findings.append(_finding(found.table, found.column.name, scope))
    return findings


def hides_columns(snapshot: SchemaSnapshot) -> bool:
    """Whether the snapshot's semantic layer hides any column (else the rule is not reported)."""
    return any(t.semantic is not None and t.semantic.hidden for t in snapshot.tables)


def _star(scope: PlanScope, star: Star) -> list[Finding]:
    if star.table is not None:
        declared = scope.declared(star.table)
        tables = [declared[1]] if declared and declared[1] is not None else []
    else:
        tables = [t for t in scope.tables.values() if t is not None]
    return [_finding(t, c, scope, star=True) for t in tables
            for c in (t.semantic.hidden if t.semantic is not None else [])]


def _hidden(table: Table, column: str) -> bool:
    return table.semantic is not None and column.lower() in {c.lower() for c in table.semantic.hidden}


def _finding(table: Table, column: str, scope: PlanScope, *, star: bool = False) -> Finding:
    how = f"SELECT * on {table.key!r} would show" if star else "The answer would show"
    return Finding(
        ErrorCode.INVALID_PLAN_STRUCTURE,
        f"{how} column {column!r} of {table.key!r}, which the semantic layer hides; "
        "select the other columns by name.",
        {"table": table.key, "column": column, "path": scope.path},
    )
