"""What a column reference resolves to, and what the validation rules share.

The scopes themselves (`PlanScope`, `plan_scopes`) and the walkers over a plan's expressions live
in `nl2sql.plan`, shared with the SQL generator; every rule walks the same list of scopes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from nl2sql.errors import ErrorCode, ErrorSeverity
from nl2sql.plan import ColumnRef, PlanModel, PlanScope, clause_expressions
from nl2sql.schema.models import Column, SchemaSnapshot, Table

#: Clauses whose unqualified names may be select aliases (the generator inlines them).
ALIAS_CLAUSES = frozenset({"group_by", "having", "order_by"})


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
        owners = level.owners(ref.name)
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
