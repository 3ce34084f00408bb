"""The logical validator's rules: a PlanModel checked against a SchemaSnapshot before any SQL.

`validate_plan` runs every rule in `RULES` over the plan and the plans nested in it. A rule that
finds nothing yields one passed check; otherwise one failed check per finding, whose details
carry `error_code` (an ErrorCode value), `retryable` and the names involved (table, column,
alias, suggestions, path: where in the plan, `$` being the outermost SELECT).
Names: table keys and column names compare case-insensitively, as the snapshot does.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from nl2sql.errors import ErrorCode, ErrorSeverity, PipelineError
from nl2sql.names import LOGICAL_VALIDATOR
from nl2sql.plan import MetricRef, PlanModel, PlanScope, Star, clause_expressions, plan_scopes, walk
from nl2sql.schema.models import SchemaSnapshot
from nl2sql.validation.access import access_policy
from nl2sql.validation.checks import ValidationCheck
from nl2sql.validation.hidden import hidden_columns, hides_columns
from nl2sql.validation.scope import ALIAS_CLAUSES, Finding, RuleContext
from nl2sql.validation.structure import (
    aggregation,
    expression_shape,
    join_structure,
    set_operation,
)

Rule = Callable[[RuleContext], list[Finding]]


def suggest(name: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Up to `n` candidates close to `name` (case-insensitive), best first."""
    by_lower = {c.lower(): c for c in candidates}
    return [by_lower[m] for m in difflib.get_close_matches(name.lower(), by_lower, n, 0.6)]


def _did_you_mean(suggestions: list[str]) -> str:
    return f"; did you mean {suggestions[0]!r}?" if suggestions else "."


def tables_exist(ctx: RuleContext) -> list[Finding]:
    """Every table the plan names is in the snapshot."""
    known = [t.key for t in ctx.snapshot.tables] + [t.name for t in ctx.snapshot.tables]
    findings = []
    for scope in ctx.scopes:
        for ref in scope.plan.tables:
            if ref.query is None and ctx.snapshot.table(ref.name) is None:  # derived: its own scope
                close = [t.key for s in suggest(ref.name, known) if (t := ctx.snapshot.table(s)) is not None]
                close = list(dict.fromkeys(close))
                findings.append(
                    Finding(
                        ErrorCode.TABLE_NOT_FOUND,
                        f"Table {ref.name!r} does not exist{_did_you_mean(close)}",
                        {
                            "table": ref.name,
                            "alias": ref.alias,
                            "suggestions": close,
                            "path": scope.path,
                        },
                    )
                )
    return findings


def aliases(ctx: RuleContext) -> list[Finding]:
    """Aliases are unique per SELECT; every column names a declared alias, or one table has it."""
    findings = []
    for scope in ctx.scopes:
        seen: set[str] = set()
        for table_ref in scope.plan.tables:
            if table_ref.alias.lower() in seen:
                message = (
                    f"Table alias {table_ref.alias!r} is declared twice: give each table its own alias."
                )
                findings.append(_structure(message, alias=table_ref.alias, path=scope.path))
            seen.add(table_ref.alias.lower())
    for scope, clause, ref, resolved in ctx.column_uses():
        if resolved.status == "unknown_alias" and ref.table is not None:  # set for that status
            close = suggest(ref.table, _aliases_in(scope))
            message = (
                f"Column {ref.table}.{ref.name} uses alias {ref.table!r}, which no table declares"
            )
            findings.append(
                _structure(
                    message + _did_you_mean(close),
                    alias=ref.table,
                    column=ref.name,
                    suggestions=close,
                    clause=clause,
                    path=scope.path,
                )
            )
        elif resolved.status == "ambiguous":
            names = ", ".join(resolved.candidates)
            message = (
                f"Column {ref.name!r} is in several tables ({names}): qualify it with an alias."
            )
            findings.append(
                _structure(
                    message,
                    column=ref.name,
                    candidates=list(resolved.candidates),
                    clause=clause,
                    path=scope.path,
                )
            )
    for scope in ctx.scopes:
        for item in scope.plan.select:
            star = item.expr
            if isinstance(star, Star) and star.table and scope.declared(star.table) is None:
                message = f"{star.table}.* uses alias {star.table!r}, which no table declares."
                findings.append(_structure(message, alias=star.table, path=scope.path))
    return findings


def _aliases_in(scope: PlanScope) -> list[str]:
    names: list[str] = []
    level: PlanScope | None = scope
    while level is not None:
        names += list(level.tables)
        level = level.outer
    return names


def _structure(message: str, **details: Any) -> Finding:
    return Finding(ErrorCode.INVALID_PLAN_STRUCTURE, message, details)


def columns_exist(ctx: RuleContext) -> list[Finding]:
    """Every column is in its table (an unqualified one in some table in scope)."""
    severity = ErrorSeverity.ERROR if ctx.strict_columns else ErrorSeverity.WARNING
    findings = []
    for scope, clause, ref, resolved in ctx.column_uses():
        if resolved.status != "missing":
            continue
        if resolved.table is not None:
            close = suggest(ref.name, [c.name for c in resolved.table.columns])
            where = f"table {resolved.table.key!r} (alias {resolved.alias})"
            table_key = resolved.table.key
        else:
            tables = [t for t in scope.tables.values() if t is not None]
            close = suggest(ref.name, [c.name for t in tables for c in t.columns])
            where = "any table of this SELECT" + (
                " or a select alias" if clause in ALIAS_CLAUSES else ""
            )
            table_key = None
        findings.append(
            Finding(
                ErrorCode.COLUMN_NOT_FOUND,
                f"Column {ref.name!r} does not exist in {where}{_did_you_mean(close)}",
                {
                    "table": table_key,
                    "alias": resolved.alias,
                    "column": ref.name,
                    "suggestions": close,
                    "clause": clause,
                    "path": scope.path,
                },
                severity=severity,
            )
        )
    return findings


def metrics_exist(ctx: RuleContext) -> list[Finding]:
    """Every metric is one the semantic layer declares for its alias's table (and this user sees:
    a metric over a column the user may not read is not in the user's snapshot)."""
    findings = []
    for scope in ctx.scopes:
        for clause, node in clause_expressions(scope.plan):
            if not isinstance(node, MetricRef):
                continue
            found = scope.declared(node.table)
            if found is None:
                close = suggest(node.table, _aliases_in(scope))
                message = f"Metric {node.table}.{node.name} uses alias {node.table!r}, which no table declares"
                findings.append(_structure(message + _did_you_mean(close), alias=node.table,
                                           metric=node.name, clause=clause, path=scope.path))
                continue
            alias, table = found
            if table is None or table.metric(node.name) is not None:
                continue  # an unknown table is reported by tables_exist
            findings.append(_unknown_metric(node.name, alias, table.key, scope, clause))
    return findings


def _unknown_metric(name: str, alias: str, table_key: str, scope: PlanScope, clause: str) -> Finding:
    """Metric `name` is not one of `alias`'s; the nearest of its metrics, else where it is."""
    table = scope.tables.get(alias)
    close = suggest(name, [m.name for m in table.metrics]) if table is not None else []
    elsewhere = [f"{a}.{m.name}" for a, t in scope.tables.items() if t is not None and a != alias
                 for m in t.metrics if m.name.lower() == name.lower()]
    hint = (f"; it is a metric of {elsewhere[0].rsplit('.', 1)[0]!r}" if elsewhere and not close
            else _did_you_mean(close))
    return Finding(
        ErrorCode.COLUMN_NOT_FOUND,
        f"Metric {name!r} is not defined for table {table_key!r} (alias {alias}){hint}",
        {"table": table_key, "alias": alias, "metric": name, "suggestions": close or elsewhere,
         "clause": clause, "path": scope.path},
    )


def limit_sanity(ctx: RuleContext) -> list[Finding]:
    """LIMIT 0 returns nothing; OFFSET without ORDER BY pages through an arbitrary order."""
    findings = []
    for scope in ctx.scopes:
        plan = scope.plan
        if plan.limit == 0:
            message = "LIMIT 0 returns no rows: drop the limit or use a positive one."
            findings.append(_warning(message, limit=0, path=scope.path))
        if plan.offset and not plan.order_by:
            message = "OFFSET without ORDER BY skips arbitrary rows: add an ORDER BY."
            findings.append(_warning(message, offset=plan.offset, path=scope.path))
    return findings


def _warning(message: str, **details: Any) -> Finding:
    return Finding(ErrorCode.INVALID_PLAN_STRUCTURE, message, details, ErrorSeverity.WARNING)


#: (check name, what a passed check says, rule), in the order the checks are reported.
RULES: tuple[tuple[str, str, Rule], ...] = (
    ("tables_exist", "Every table is in the schema.", tables_exist),
    ("aliases", "Aliases are unique and every column reference resolves.", aliases),
    ("columns_exist", "Every column is in its table.", columns_exist),
    (
        "join_structure",
        "Every table after the first is joined once, on earlier tables.",
        join_structure,
    ),
    ("aggregation", "Aggregates and GROUP BY are consistent.", aggregation),
    ("set_operation", "Set operation operands select the same number of columns.", set_operation),
    ("expression_shape", "Every expression has the shape its SQL needs.", expression_shape),
    ("access_policy", "Every table and column is allowed by the access policy.", access_policy),
    ("limit", "LIMIT and OFFSET are sensible.", limit_sanity),
)

#: Checks reported only where the snapshot's semantic layer hides columns (nl2sql/semantic).
LAYER_RULES: tuple[tuple[str, str, Rule], ...] = (
    ("hidden_columns", "No column the semantic layer hides is shown.", hidden_columns),
)
#: Checks reported only for a plan that names a metric of the semantic layer.
METRIC_RULES: tuple[tuple[str, str, Rule], ...] = (
    ("metrics_exist", "Every metric is declared for its table.", metrics_exist),
)


def validate_plan(
    plan: PlanModel,
    snapshot: SchemaSnapshot,
    *,
    strict_columns: bool = True,
    allowed_tables: Collection[str] | None = None,
    allowed_columns: Mapping[str, Collection[str]] | None = None,
) -> list[ValidationCheck]:
    """Check `plan` against `snapshot`: one passed check per clean rule, one failed per finding.

    `allowed_tables` holds Table.key values; `allowed_columns` maps a Table.key to the columns
    that may be read (a table absent from it is not restricted by column).
    """
    ctx = RuleContext(
        plan=plan,
        snapshot=snapshot,
        scopes=plan_scopes(plan, snapshot),
        strict_columns=strict_columns,
        allowed_tables=frozenset(t.lower() for t in allowed_tables)
        if allowed_tables is not None
        else None,
        allowed_columns=(
            {k.lower(): frozenset(c.lower() for c in v) for k, v in allowed_columns.items()}
            if allowed_columns is not None
            else None
        ),
    )
    checks: list[ValidationCheck] = []
    rules = RULES + (LAYER_RULES if hides_columns(snapshot) else ())
    rules += METRIC_RULES if any(isinstance(n, MetricRef) for n in walk(plan)) else ()
    for name, summary, rule in rules:
        findings = list({(f.message, f.details.get("path")): f for f in rule(ctx)}.values())
        if not findings:
            checks.append(ValidationCheck(name=name, passed=True, message=summary))
        checks += [_failed(name, f) for f in findings]
    return checks


def _failed(name: str, finding: Finding) -> ValidationCheck:
    details = {"error_code": finding.code.value, "retryable": finding.retryable, **finding.details}
    return ValidationCheck(
        name=name, passed=False, severity=finding.severity, message=finding.message, details=details
    )


def checks_to_errors(
    checks: Iterable[ValidationCheck],
    node: str = LOGICAL_VALIDATOR,
    sub_query_id: str | None = None,
) -> list[PipelineError]:
    """The failed checks as PipelineErrors (code, severity and retryable taken from each check)."""
    return [
        PipelineError(
            node=node,
            message=check.message,
            severity=check.severity,
            error_code=ErrorCode(check.details.get("error_code", ErrorCode.INVALID_PLAN_STRUCTURE)),
            retryable=bool(check.details.get("retryable", False)),
            details={"check": check.name, **check.details},
            sub_query_id=sub_query_id,
        )
        for check in checks
        if not check.passed
    ]
