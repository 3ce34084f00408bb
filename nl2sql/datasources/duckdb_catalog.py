"""Read a DuckDB database's catalog (tables, views, columns, keys, comments) into Table models.

Uses DuckDB's catalog functions (`duckdb_tables()`, `duckdb_views()`, `duckdb_columns()`,
`duckdb_constraints()`) restricted to the current database. Row counts are DuckDB's
`estimated_size`, exact for tables that were only appended to, and free to read.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from nl2sql.datasources.fingerprint import file_states, rows_digest
from nl2sql.datasources.sql_builders import normalize_type
from nl2sql.schema.models import Column, ForeignKey, Table

Run = Callable[[str], Sequence[Sequence[Any]]]

# Fixed catalog queries: no identifier or value is interpolated into them.
_TABLES = """
SELECT schema_name, table_name, 'table' AS kind, estimated_size, comment
FROM duckdb_tables()
WHERE database_name = current_database() AND NOT internal AND NOT temporary
UNION ALL
SELECT schema_name, view_name, 'view', NULL, comment
FROM duckdb_views()
WHERE database_name = current_database() AND NOT internal AND NOT temporary
ORDER BY 1, 2
"""
_COLUMNS = """
SELECT schema_name, table_name, column_name, data_type, is_nullable, comment
FROM duckdb_columns()
WHERE database_name = current_database() AND NOT internal
ORDER BY schema_name, table_name, column_index
"""
_CONSTRAINTS = """
SELECT schema_name, table_name, constraint_type, constraint_column_names,
       referenced_table, referenced_column_names
FROM duckdb_constraints()
WHERE database_name = current_database()
  AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY')
ORDER BY schema_name, table_name, constraint_index
"""
_SHAPE = """
SELECT schema_name, table_name, column_name, data_type
FROM duckdb_columns()
WHERE database_name = current_database() AND NOT internal
ORDER BY schema_name, table_name, column_index
"""


def catalog_fingerprint(run: Run, path: Path) -> str:
    """The file's size and modification time and every column's name and type (one query)."""
    return rows_digest(run(_SHAPE), file_states([path, path.with_name(path.name + ".wal")]))


def read_catalog(run: Run) -> list[Table]:
    """Every user table and view of the current database, without statistics."""
    entries = run(_TABLES)
    # A table is prefixed by its schema only when the database uses several (Table.key rule).
    qualify = len({schema for schema, *_ in entries}) > 1
    columns = _columns(run)
    primary, foreign = _constraints(run, qualify)
    tables = []
    for schema, name, kind, size, comment in entries:
        ident = (schema, name)
        pk = primary.get(ident, [])
        cols = [c.model_copy(update={"primary_key": c.name in pk}) for c in columns.get(ident, [])]
        tables.append(
            Table(
                name=name,
                schema_name=schema if qualify else None,
                kind=kind,
                columns=cols,
                primary_key=pk,
                foreign_keys=foreign.get(ident, []),
                row_count=None if size is None else int(size),
                description=comment or None,
            )
        )
    return tables


def _columns(run: Run) -> dict[tuple[str, str], list[Column]]:
    found: dict[tuple[str, str], list[Column]] = defaultdict(list)
    for schema, table, name, data_type, nullable, comment in run(_COLUMNS):
        found[(schema, table)].append(
            Column(
                name=name,
                type=normalize_type(data_type),
                nullable=bool(nullable),
                description=comment or None,
            )
        )
    return found


def _constraints(
    run: Run, qualify: bool
) -> tuple[dict[tuple[str, str], list[str]], dict[tuple[str, str], list[ForeignKey]]]:
    primary: dict[tuple[str, str], list[str]] = {}
    foreign: dict[tuple[str, str], list[ForeignKey]] = defaultdict(list)
    for schema, table, kind, cols, ref_table, ref_cols in run(_CONSTRAINTS):
        if kind == "PRIMARY KEY":
            primary[(schema, table)] = list(cols)
        else:
            # DuckDB foreign keys reference a table in the same schema.
            ref_key = f"{schema}.{ref_table}" if qualify else ref_table
            foreign[(schema, table)].append(
                ForeignKey(columns=list(cols), ref_table=ref_key, ref_columns=list(ref_cols))
            )
    return primary, foreign
