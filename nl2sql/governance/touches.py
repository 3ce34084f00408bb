"""What a SQL text reads: its tables and (table, column) pairs, resolved with sqlglot.

The hooks (sensitive data, large scans) and the RBAC check of curated answers need to know what
a query touches whether it came from a plan or from a file. Columns are resolved by qualifying
the query against the snapshot; when that fails the result is conservative (`exact=False`:
every column of every table read counts as touched), never optimistic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlglot.expressions as exp

from nl2sql.dialects import dialect_name
from nl2sql.schema.models import SchemaSnapshot


@dataclass(frozen=True)
class Touches:
    tables: frozenset[str]  # Table.key values (snapshot spelling); unknown names as written
    columns: frozenset[tuple[str, str]]  # (Table.key, column name)
    has_limit: bool  # the outermost query has a LIMIT
    exact: bool = True  # False: columns could not be resolved, all of each table's are listed

    def touches(self, table: str, column: str | None = None) -> bool:
        """True when `table` (or its `column`) is read; names compare case-insensitively."""
        if column is None:
            return table.lower() in {t.lower() for t in self.tables}
        return (table.lower(), column.lower()) in {(t.lower(), c.lower()) for t, c in self.columns}


def sql_touches(sql: str, dialect: str, snapshot: SchemaSnapshot) -> Touches:
    """The tables and columns `sql` reads. Raises ValueError when the SQL does not parse."""
    from sqlglot import parse_one
    from sqlglot.errors import SqlglotError

    try:
        tree = parse_one(sql, dialect=dialect_name(dialect))
    except SqlglotError as exc:
        raise ValueError(f"the SQL does not parse: {exc}") from None
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    tables = {_key(t, snapshot) for t in tree.find_all(exp.Table) if t.name.lower() not in ctes}
    has_limit = tree.args.get("limit") is not None
    try:
        columns = _resolved_columns(tree, dialect, snapshot)
    except Exception:  # noqa: BLE001 - any qualification failure: be conservative
        columns = {(key, c.name) for key in tables if (t := snapshot.table(key)) for c in t.columns}
        return Touches(frozenset(tables), frozenset(columns), has_limit, exact=False)
    return Touches(frozenset(tables), frozenset(columns), has_limit)


def _resolved_columns(tree: exp.Expr, dialect: str, snapshot: SchemaSnapshot) -> set[tuple[str, str]]:
    from sqlglot.optimizer.qualify import qualify
    from sqlglot.optimizer.scope import traverse_scope

    schema = _schema(snapshot)
    qualified = qualify(tree.copy(), schema=schema, dialect=dialect_name(dialect), quote_identifiers=False)
    found: set[tuple[str, str]] = set()
    for scope in traverse_scope(qualified):
        for column in scope.columns:
            source = scope.sources.get(column.table)
            if isinstance(source, exp.Table):
                found.add((_key(source, snapshot), _column_name(snapshot, source, column.name)))
    return found


def _schema(snapshot: SchemaSnapshot) -> dict[str, Any]:
    """sqlglot's nested schema: {db: {table: {column: type}}} or {table: {column: type}}."""
    if any(t.schema_name for t in snapshot.tables):
        nested: dict[str, dict[str, dict[str, str]]] = {}
        for t in snapshot.tables:
            nested.setdefault(t.schema_name or "", {})[t.name] = {c.name: "TEXT" for c in t.columns}
        return nested
    return {t.name: {c.name: "TEXT" for c in t.columns} for t in snapshot.tables}


def _key(table: exp.Table, snapshot: SchemaSnapshot) -> str:
    written = f"{table.db}.{table.name}" if table.db else table.name
    found = snapshot.table(written)
    return found.key if found is not None else written


def _column_name(snapshot: SchemaSnapshot, table: exp.Table, name: str) -> str:
    found = snapshot.table(_key(table, snapshot))
    col = found.column(name) if found is not None else None
    return col.name if col is not None else name
