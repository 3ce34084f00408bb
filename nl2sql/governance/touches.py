"""What a SQL text reads: its tables and (table, column) pairs, resolved with sqlglot.

The hooks (sensitive data, large scans) and the RBAC check of curated answers need to know what
a query touches whether it came from a plan or from a file. Columns are resolved by qualifying
the query against the snapshot; when that fails the result is conservative (`exact=False`:
every column of every table read counts as touched), never optimistic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sqlglot.expressions as exp

from nl2sql.dialects import dialect_name
from nl2sql.schema.models import SchemaSnapshot

if TYPE_CHECKING:
    from sqlglot.optimizer.scope import Scope

# DuckDB `SELECT #2`: a column by position (absent from older sqlglot versions)
_POSITIONAL = tuple(c for c in (getattr(exp, "PositionalColumn", None),) if c is not None)


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
    """Every (table, column) the qualified query reads, whole-row and pattern references included.

    `SELECT c FROM customers AS c`, `to_json(c)` or `CAST(c AS TEXT)` read every column of `c`
    (sqlglot marks them `TableColumn`); a star left unexpanded (`struct_pack(*)`, `* LIKE ...`)
    DuckDB `COLUMNS(...)` and `#n` read every column of every source in their scope. A reference
    that names no visible source raises, so the caller falls back to the conservative answer.
    """
    from sqlglot.optimizer.qualify import qualify
    from sqlglot.optimizer.scope import traverse_scope

    schema = _schema(snapshot)
    qualified = qualify(tree.copy(), schema=schema, dialect=dialect_name(dialect), quote_identifiers=False)
    found: set[tuple[str, str]] = set()
    for scope in traverse_scope(qualified):
        outputs = {s.alias_or_name.lower() for s in scope.expression.selects} if isinstance(
            scope.expression, exp.Select) else set()
        for column in scope.columns:
            if not column.table and column.name.lower() in outputs:
                continue  # ORDER BY / GROUP BY a projection alias
            source = _source_of(scope, column.table)
            if isinstance(source, exp.Table):
                found.add((_key(source, snapshot), _column_name(snapshot, source, column.name)))
        for node in scope.find_all(exp.TableColumn, exp.Star, exp.Columns, *_POSITIONAL):
            if isinstance(node, exp.Star) and isinstance(node.parent, exp.Count):
                continue  # COUNT(*) reads no value
            sources = ([_source_of(scope, node.name)] if isinstance(node, exp.TableColumn)
                       else _visible_sources(scope))
            for source in sources:
                found |= _every_column(source, snapshot)
    return found


def _source_of(scope: Scope | None, name: str) -> exp.Expr | Scope:
    """The table or derived scope `name` refers to in `scope` or an enclosing one (correlated)."""
    here = scope
    while here is not None:
        selected = here.selected_sources.get(name) or here.sources.get(name)
        if selected is not None:
            return selected[1] if isinstance(selected, tuple) else selected
        here = here.parent
    raise LookupError(f"no source named {name!r}")


def _visible_sources(scope: Scope | None) -> list[Any]:
    """The sources a star sees: its own scope's, or the nearest enclosing scope's when it has none."""
    here = scope
    while here is not None and not here.selected_sources:
        here = here.parent
    return list(here.selected_sources.values()) if here is not None else []


def _every_column(source: object, snapshot: SchemaSnapshot) -> set[tuple[str, str]]:
    """All columns of a table source; a derived source's columns are counted in its own scope."""
    if isinstance(source, tuple):
        source = source[1]
    if not isinstance(source, exp.Table):
        return set()
    table = snapshot.table(_key(source, snapshot))
    return {(table.key, c.name) for c in table.columns} if table is not None else set()


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
