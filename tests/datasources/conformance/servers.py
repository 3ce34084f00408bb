"""Throw-away schemas (PostgreSQL) and databases (MariaDB, Spark) for tests, safe under pytest-xdist.

Each fixture creates objects under a fresh random name with the server URL's own (writable)
account, hands out a URL that reaches only them, and drops them afterwards. The read-only
adapter under test connects with that URL: PostgreSQL through the search path, MariaDB through
the database name. A Spark database lives in the test run's own session (one per xdist worker).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import URL, make_url


def unique_name() -> str:
    """A fresh lower-case name: nl2sql_t_<10 hex digits>."""
    return f"nl2sql_t_{uuid.uuid4().hex[:10]}"


@contextmanager
def scratch(server_url: str) -> Iterator[tuple[sa.Engine, URL]]:
    """(a writable engine on a fresh schema/database, the URL that reaches only it)."""
    url = make_url(server_url)
    name = unique_name()
    admin = sa.create_engine(url, poolclass=sa.NullPool)
    quoted = admin.dialect.identifier_preparer.quote(name)
    postgres = url.get_backend_name() == "postgresql"
    with admin.begin() as conn:
        conn.exec_driver_sql(f"CREATE {'SCHEMA' if postgres else 'DATABASE'} {quoted}")
    if postgres:
        scoped = url.update_query_dict({"options": f"-csearch_path={name}"})
    else:
        scoped = url.set(database=name)
    engine = sa.create_engine(scoped, poolclass=sa.NullPool)
    try:
        yield engine, scoped
    finally:
        engine.dispose()
        with admin.begin() as conn:
            kind = "SCHEMA" if postgres else "DATABASE"
            conn.exec_driver_sql(f"DROP {kind} IF EXISTS {quoted}{' CASCADE' if postgres else ''}")
        admin.dispose()


@contextmanager
def spark_database(
    spark: Any, tables: dict[str, Sequence[Sequence[Any]]], schemas: dict[str, str]
) -> Iterator[str]:
    """A fresh Spark database with `tables` (name -> rows, typed by the DDL in `schemas`) saved
    as parquet tables with catalog statistics; dropped afterwards."""
    name = unique_name()
    spark.sql(f"CREATE DATABASE {name}")
    try:
        for table, rows in tables.items():
            frame = spark.createDataFrame(list(rows), schemas[table])
            frame.write.format("parquet").saveAsTable(f"{name}.{table}")
            spark.sql(f"ANALYZE TABLE {name}.{table} COMPUTE STATISTICS")
        yield name
    finally:
        spark.sql(f"DROP DATABASE IF EXISTS {name} CASCADE")


@contextmanager
def spark_load_table(spark: Any, rows: int) -> Iterator[str]:
    """`database.ticks`, a table of `rows` ids in a fresh database, for queries that must run long.

    A cancelled Spark job's tasks are interrupted, but a task only notices between two rows it
    reads: a cross join of small tables alone is generated code that never looks, and would run
    on after its job was cancelled. Streaming this table through a join with small analyzed
    tables (broadcast), a task looks at every row of it."""
    name = unique_name()
    spark.sql(f"CREATE DATABASE {name}")
    try:
        spark.range(rows, numPartitions=2).write.format("parquet").saveAsTable(f"{name}.ticks")
        # its statistics make it the side a join streams (the small tables are broadcast)
        spark.sql(f"ANALYZE TABLE {name}.ticks COMPUTE STATISTICS")
        yield f"{name}.ticks"
    finally:
        spark.sql(f"DROP DATABASE IF EXISTS {name} CASCADE")


def run_all(engine: sa.Engine, statements: Sequence[str]) -> None:
    """Run fixed DDL/DML statements in one transaction."""
    with engine.begin() as conn:
        for statement in statements:
            conn.exec_driver_sql(statement)


def insert_rows(
    engine: sa.Engine, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
) -> None:
    """Insert rows through bound parameters."""
    target = sa.table(table, *(sa.column(c) for c in columns))
    with engine.begin() as conn:
        conn.execute(sa.insert(target), [dict(zip(columns, row, strict=True)) for row in rows])


def analyze(engine: sa.Engine, tables: Sequence[str]) -> None:
    """Refresh the catalog statistics the adapters read row estimates from."""
    quote = engine.dialect.identifier_preparer.quote
    with engine.begin() as conn:
        for table in tables:
            keyword = "ANALYZE" if engine.dialect.name == "postgresql" else "ANALYZE TABLE"
            conn.exec_driver_sql(f"{keyword} {quote(table)}")
