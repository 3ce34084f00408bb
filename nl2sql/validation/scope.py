"""Where the names in a plan resolve (nested plans, table scopes, columns), and what rules share.

A plan nests other plans in IN / EXISTS / scalar subqueries (which see the aliases of the plans
around them: correlation) and in set operations (whose right operand sees only what the left
operand's surroundings see). Every rule walks the same list of `PlanScope`s.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from nl2sql.errors import ErrorCode, ErrorSeverity
from nl2sql.plan import ColumnRef, Expr, PlanModel
from nl2sql.schema.models import Column, SchemaSnapshot, Table

#: Clauses whose unqualified names may be select aliases (the generator inlines them).
ALIAS_CLAUSES = frozenset({"group_by", "having", "order_by"})
_CLAUSES = ("select", "joins", "where", "group_by", "having", "order_by")


@dataclass(frozen=True)
class PlanScope:
    """One plan, where it sits (`path`), its tables and the scope that encloses it."""

    plan: PlanModel
    path: str
    tables: dict[str, Table | None]  # declared alias -> snapshot table (None: not in the snapshot)
    outer: PlanScope | None = field(default=None, repr=False)

    def declared(self, alias: str) -> tuple[str, Table | None] | None:
        """The declared spelling and table of `alias`, in this plan or an enclosing one."""
        level: PlanScope | None = self
        while level is not None:
            for name, table in level.tables.items():
                if name.lower() == alias.lower():
                    return name, table
            level = level.outer
        return None

    def select_alias(self, name: str) -> bool:
        return any(i.alias and i.alias.lower() == name.lower() for i in self.plan.select)


@dataclass(frozen=True)
class Resolved:
    """What a column reference names."""

    status: Literal[
        "found", "missing", "unknown_alias", "unknown_table", "ambiguous", "select_alias"
    ]
    alias: str | None = None
    table: Table | None = None
    column: Column | None = None
    candidates: tuple[str, ...] = ()  # aliases of the tables an ambiguous name is in


def plan_scopes(plan: PlanModel, snapshot: SchemaSnapshot) -> list[PlanScope]:
    """Every plan inside `plan` (itself first) with the scope it is resolved in."""
    scopes: list[PlanScope] = []
    _collect(plan, "$", None, snapshot, scopes)
    return scopes


def _collect(plan, path, outer, snapshot, out: list[PlanScope]) -> None:
    tables = {ref.alias: snapshot.table(ref.name) for ref in plan.tables}
    scope = PlanScope(plan=plan, path=path, tables=tables, outer=outer)
    out.append(scope)
    for n, (clause, node) in enumerate(_subquery_nodes(plan)):
        _collect(node.query, f"{path}.{clause}[{n}]", scope, snapshot, out)
    if plan.set_operation is not None:
        _collect(plan.set_operation.right, f"{path}.set_operation", outer, snapshot, out)


def _subquery_nodes(plan: PlanModel) -> Iterator[tuple[str, BaseModel]]:
    for clause, node in clause_expressions(plan):
        if isinstance(getattr(node, "query", None), PlanModel):
            yield clause, node


def clause_expressions(plan: PlanModel) -> Iterator[tuple[str, Expr]]:
    """(clause, node) for every expression node of `plan`, not entering nested plans."""
    for clause in _CLAUSES:
        for root in _roots(plan, clause):
            for node in walk_expression(root):
                yield clause, node


def _roots(plan: PlanModel, clause: str) -> list:
    value = getattr(plan, clause)
    if clause == "select":
        return [i.expr for i in value]
    if clause == "joins":
        return [j.on for j in value]
    if clause == "order_by":
        return [o.expr for o in value]
    return value if isinstance(value, list) else [value] if value is not None else []


def walk_expression(node: object) -> Iterator:
    """Every expression node under `node` (itself first), not entering nested plans."""
    if isinstance(node, PlanModel):
        return
    if isinstance(node, BaseModel):
        if hasattr(node, "kind"):
            yield node
        for name in type(node).model_fields:
            yield from walk_expression(getattr(node, name))
    elif isinstance(node, list):
        for item in node:
            yield from walk_expression(item)


def resolve(ref: ColumnRef, scope: PlanScope, clause: str) -> Resolved:
    """Resolve `ref` as written in `clause` of `scope.plan`."""
    if ref.table is not None:
        found = scope.declared(ref.table)
        if found is None:
            return Resolved("unknown_alias")
        alias, table = found
        if table is None:
            return Resolved("unknown_table", alias=alias)
        column = table.column(ref.name)
        return Resolved("found" if column else "missing", alias, table, column)
    level: PlanScope | None = scope
    while level is not None:
        owners = [(a, t) for a, t in level.tables.items() if t is not None and t.column(ref.name)]
        if len(owners) > 1:
            return Resolved("ambiguous", candidates=tuple(a for a, _ in owners))
        if owners:
            alias, table = owners[0]
            return Resolved("found", alias, table, table.column(ref.name))
        if level is scope and clause in ALIAS_CLAUSES and scope.select_alias(ref.name):
            return Resolved("select_alias")
        if any(t is None for t in level.tables.values()):
            return Resolved("unknown_table")  # the name may be in a table the snapshot lacks
        level = level.outer
    return Resolved("missing")


@dataclass(frozen=True)
class Finding:
    """One problem a rule found; it becomes one failed ValidationCheck."""

    code: ErrorCode
    message: str
    details: dict[str, Any] = field(default_factory=dict)
    severity: ErrorSeverity = ErrorSeverity.ERROR
    retryable: bool = True


@dataclass(frozen=True)
class RuleContext:
    """What every rule reads: the plan, the snapshot, the scopes and the caller's options."""

    plan: PlanModel
    snapshot: SchemaSnapshot
    scopes: list[PlanScope]
    strict_columns: bool = True
    allowed_tables: frozenset[str] | None = None  # lower-case Table.key values
    allowed_columns: dict[str, frozenset[str]] | None = None  # lower-case key -> columns

    def column_uses(self) -> Iterator[tuple[PlanScope, str, ColumnRef, Resolved]]:
        """Every column reference of every plan, with its clause and what it resolves to."""
        for scope in self.scopes:
            for clause, node in clause_expressions(scope.plan):
                if isinstance(node, ColumnRef):
                    yield scope, clause, node, resolve(node, scope, clause)
