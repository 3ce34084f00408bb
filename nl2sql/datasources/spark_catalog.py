"""Read a Spark catalog (databases, tables, views, columns, types, partition columns) into Tables.

Everything comes from the session's catalog API (`spark.catalog.listTables`/`listColumns`), which
reads metadata only. Row counts are the catalog's statistics (`ANALYZE TABLE ... COMPUTE
STATISTICS` stores them), read with `DESCRIBE TABLE EXTENDED` on a name this module quotes
itself: no data is scanned, and a table without statistics has no row count. Spark declares no
enforced keys, so tables have none; a partition column says so in its description.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from sqlglot import exp

from nl2sql.datasources.fingerprint import rows_digest
from nl2sql.datasources.sql_builders import normalize_type
from nl2sql.schema.models import Column, Table

#: The note a partition column carries in its description (the planner reads descriptions).
PARTITION_NOTE = "partition column"
_ROWS_IN_STATISTICS = re.compile(r"(\d+)\s+rows")

#: (database, table) -> the rows of `describe_sql(database, table)`, run by the adapter.
Describe = Callable[[str, str], Sequence[Sequence[Any]]]


def databases(spark: Any, database: str | None) -> list[str]:
    """The databases to describe: `database` alone, or every database of the current catalog."""
    if database is not None:
        return [database]
    return sorted(db.name for db in spark.catalog.listDatabases())


def read_catalog(spark: Any, names: Sequence[str], describe: Describe) -> list[Table]:
    """Every persistent table and view of the databases `names` (temporary views are the
    notebook's own scratch and are left out), with row counts from the catalog statistics."""
    qualify = len(names) > 1  # a table carries its database only when there are several
    tables = []
    for database in names:
        for entry in sorted(_listed(spark, database), key=lambda t: t.name):
            kind = "view" if entry.tableType == "VIEW" else "table"
            tables.append(Table(
                name=entry.name,
                schema_name=database if qualify else None,
                kind=kind,
                columns=_columns(spark, database, entry.name),
                row_count=None if kind == "view" else _row_count(describe, database, entry.name),
                description=entry.description or None,
            ))
    return tables


def catalog_fingerprint(spark: Any, names: Sequence[str]) -> str:
    """Every table's database, name and kind and its columns' names and types (metadata only)."""
    rows = []
    for database in names:
        for entry in sorted(_listed(spark, database), key=lambda t: t.name):
            for col in spark.catalog.listColumns(_qualified(database, entry.name)):
                rows.append((database, entry.name, entry.tableType, col.name, col.dataType,
                             col.isPartition))
    return rows_digest(rows, "spark")


def describe_sql(database: str, table: str) -> str:
    """`DESCRIBE TABLE EXTENDED` of one catalog table, its names quoted for Spark."""
    return f"DESCRIBE TABLE EXTENDED {_qualified(database, table)}"


def _qualified(database: str, table: str) -> str:
    return exp.table_(table, db=database, quoted=True).sql("spark")


def _listed(spark: Any, database: str) -> list[Any]:
    return [t for t in spark.catalog.listTables(database) if not t.isTemporary]


def _columns(spark: Any, database: str, table: str) -> list[Column]:
    columns = []
    for col in spark.catalog.listColumns(_qualified(database, table)):
        notes = [n for n in (col.description, PARTITION_NOTE if col.isPartition else None) if n]
        columns.append(Column(
            name=col.name,
            type=normalize_type(col.dataType),
            nullable=bool(col.nullable),
            description="; ".join(notes) or None,
        ))
    return columns


def _row_count(describe: Describe, database: str, table: str) -> int | None:
    """The catalog's row count of a table (None without statistics or when DESCRIBE fails)."""
    try:
        rows = describe(database, table)
    except Exception:  # noqa: BLE001 - statistics are optional
        return None
    for name, value, *_ in rows:
        if str(name).strip() == "Statistics":
            found = _ROWS_IN_STATISTICS.search(str(value))
            return int(found.group(1)) if found else None
    return None
