"""Read a SQLite database's catalog (tables, views, columns, keys, row counts) into Table models.

The PRAGMAs here are the adapter's own introspection; user SQL never reaches them (the SQL
guard refuses PRAGMA, and the connection's authorizer allows only these read-only ones).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from sqlglot import exp

from nl2sql.datasources.sql_builders import normalize_type, table_expr
from nl2sql.schema.models import Column, ForeignKey, Table

log = logging.getLogger(__name__)

Run = Callable[[str], Sequence[Sequence[Any]]]

#: Rows counted exactly per table; beyond this the count comes from sqlite_stat1 or is unknown.
COUNT_CAP = 1_000_000

_ENTRIES = (
    "SELECT name, type FROM sqlite_master "
    "WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
)


def pragma_sql(name: str, table: str) -> str:
    """PRAGMA name("table"), the table name quoted."""
    target = exp.to_identifier(table, quoted=True)
    return exp.Pragma(this=exp.Anonymous(this=name, expressions=[target])).sql("sqlite")


def read_catalog(run: Run) -> list[Table]:
    """Every user table and view of the main database, without column statistics."""
    tables = [_table(run, name, kind) for name, kind in run(_ENTRIES)]
    primary = {t.name.lower(): t.primary_key for t in tables}
    # A foreign key written as REFERENCES parent (no columns) targets the parent's primary key.
    for table in tables:
        for fk in table.foreign_keys:
            if not all(fk.ref_columns):
                fk.ref_columns = list(primary.get(fk.ref_table.lower(), []))
    return tables


def _table(run: Run, name: str, kind: str) -> Table:
    info = run(pragma_sql("table_info", name))  # cid, name, type, notnull, default, pk
    pk = [row[1] for row in sorted((r for r in info if r[5]), key=lambda r: r[5])]
    columns = [
        Column(
            name=row[1],
            type=normalize_type(row[2]),
            nullable=not row[3] and row[1] not in pk,
            primary_key=row[1] in pk,
        )
        for row in info
    ]
    return Table(
        name=name,
        kind=kind,
        columns=columns,
        primary_key=pk,
        foreign_keys=_foreign_keys(run, name) if kind == "table" else [],
        row_count=_row_count(run, name) if kind == "table" else None,
    )


def _foreign_keys(run: Run, name: str) -> list[ForeignKey]:
    groups: dict[int, list[Sequence[Any]]] = defaultdict(list)
    for row in run(pragma_sql("foreign_key_list", name)):  # id, seq, table, from, to, ...
        groups[row[0]].append(row)
    keys = []
    for rows in groups.values():
        rows = sorted(rows, key=lambda r: r[1])
        keys.append(
            ForeignKey(
                columns=[r[3] for r in rows],
                ref_table=rows[0][2],
                ref_columns=[r[4] or "" for r in rows],
            )
        )
    return keys


def _row_count(run: Run, name: str) -> int | None:
    bounded = exp.select(exp.Literal.number(1)).from_(table_expr(name)).limit(COUNT_CAP + 1)
    query = exp.select(exp.Count(this=exp.Star())).from_(bounded.subquery("bounded"))
    try:
        count = int(run(query.sql("sqlite"))[0][0])
    except Exception as exc:  # noqa: BLE001 - a count that fails or times out is just unknown
        log.debug("row count skipped for %s: %s", name, exc)
        return None
    if count <= COUNT_CAP:
        return count
    estimate = _stat1_estimate(run, name)
    log.info(
        "table %s has more than %d rows; row count %s",
        name,
        COUNT_CAP,
        "estimated from sqlite_stat1" if estimate else "left unknown",
    )
    return estimate


def _stat1_estimate(run: Run, name: str) -> int | None:
    """ANALYZE's row estimate (first number of sqlite_stat1.stat), when the database has one."""
    stat = exp.column("stat", quoted=True)
    query = (
        exp.select(stat)
        .from_(table_expr("sqlite_stat1"))
        .where(exp.EQ(this=exp.column("tbl", quoted=True), expression=exp.Literal.string(name)))
        .limit(1)
    )
    try:
        rows = run(query.sql("sqlite"))
        return int(str(rows[0][0]).split()[0]) if rows else None
    except Exception:  # noqa: BLE001 - no sqlite_stat1 table: no estimate
        return None
