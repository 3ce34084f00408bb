"""The access-policy rule: tables and columns the caller's role may not read (RBAC).

Deny by default once a policy is given: a table outside `allowed_tables` (Table.key values) is
refused, and so is a column outside `allowed_columns[table]` when that table has a column list,
including the columns a `*` or a metric of the semantic layer would read. COUNT(*) reads no
column values and is allowed.
Findings are SECURITY_VIOLATION, CRITICAL and never retryable.
"""

from __future__ import annotations

from typing import Any

from nl2sql.errors import ErrorCode, ErrorSeverity
from nl2sql.plan import MetricRef, PlanScope, Star, clause_expressions
from nl2sql.validation.scope import Finding, RuleContext


def access_policy(ctx: RuleContext) -> list[Finding]:
    """Tables outside `allowed_tables` and columns outside `allowed_columns[table]` are refused."""
    findings: dict[tuple[str, ...], Finding] = {}
    for scope in ctx.scopes:
        for table_ref in scope.plan.tables:
            if table_ref.query is not None:
                continue  # a derived table: the tables it reads are checked in its own scope
            table = ctx.snapshot.table(table_ref.name)
            key = table.key if table is not None else table_ref.name
            if ctx.allowed_tables is not None and key.lower() not in ctx.allowed_tables:
                message = f"Table {key!r} is not allowed by the access policy."
                findings[(key.lower(),)] = _denied(message, table=key, path=scope.path)
        for item in scope.plan.select:
            if isinstance(item.expr, Star):
                _star_columns(ctx, scope, item.expr, findings)
        for clause, node in clause_expressions(scope.plan):
            if isinstance(node, MetricRef):
                _metric_columns(ctx, scope, node, clause, findings)
    for scope, clause, ref, resolved in ctx.column_uses():
        found, column = resolved.table, resolved.column
        if resolved.status != "found" or found is None or column is None:
            continue  # a "found" reference always carries its table and column
        if found.kind == "derived":
            continue  # a derived table's output: the columns it reads were checked where read
        if not _column_allowed(ctx, found.key, ref.name):
            key = found.key
            message = f"Column {column.name!r} of table {key!r} is not allowed by the access policy."
            findings[(key.lower(), ref.name.lower())] = _denied(
                message, table=key, column=column.name, clause=clause, path=scope.path
            )
    return list(findings.values())


def _star_columns(ctx: RuleContext, scope: PlanScope, star: Star, findings: dict[tuple[str, ...], Finding]
) -> None:
    if star.table is not None:
        found = scope.declared(star.table)
        tables = [found[1]] if found and found[1] is not None else []
    else:
        tables = [t for t in scope.tables.values() if t is not None]
    for table in (t for t in tables if t.kind != "derived"):
        denied = [c.name for c in table.columns if not _column_allowed(ctx, table.key, c.name)]
        if denied:
            # Only how many: the names of denied columns are what the policy hides from this user.
            message = f"SELECT * on {table.key!r} would read columns the access policy denies."
            findings[(table.key.lower(), "*")] = _denied(
                message, table=table.key, denied_columns=len(denied), path=scope.path
            )


def _metric_columns(ctx: RuleContext, scope: PlanScope, node: MetricRef, clause: str,
                    findings: dict[tuple[str, ...], Finding]) -> None:
    """A metric reads the columns of its expression: each must be allowed."""
    found = scope.declared(node.table)
    table = found[1] if found is not None else None
    metric = table.metric(node.name) if table is not None else None
    if table is None or metric is None:
        return  # an unknown metric is reported by metrics_exist
    if any(not _column_allowed(ctx, table.key, c) for c in metric.columns):
        message = f"Metric {metric.name!r} of table {table.key!r} reads columns the access policy denies."
        findings[(table.key.lower(), f"metric:{metric.name.lower()}")] = _denied(
            message, table=table.key, metric=metric.name, clause=clause, path=scope.path
        )


def _column_allowed(ctx: RuleContext, table_key: str, column: str) -> bool:
    allowed = (ctx.allowed_columns or {}).get(table_key.lower())
    return allowed is None or column.lower() in allowed


def _denied(message: str, **details: Any) -> Finding:
    return Finding(
        ErrorCode.SECURITY_VIOLATION, message, details, ErrorSeverity.CRITICAL, retryable=False
    )
