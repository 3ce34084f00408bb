"""One shop database (regions, stores, sales, a view) on every adapter, and a `case` per engine.

DuckDB and SQLite files come from `tests/datasources/conftest.py`; PostgreSQL and MariaDB get
the same tables and rows in a throw-away schema / database (see `servers.py`), Spark in a
throw-away database of the test run's `local[2]` session; the frames adapter gets them as
pandas and polars DataFrames. Engine-specific SQL (a query that runs far
longer than any timeout, a type error) sits on the case; everything else is shared.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

import pandas as pd
import polars as pl
import pytest
from sqlalchemy.engine import URL

from nl2sql.datasources.duckdb import DuckDBAdapter
from nl2sql.datasources.frames import FramesAdapter
from nl2sql.datasources.spark import SparkAdapter
from nl2sql.datasources.sqlalchemy import SQLAlchemyAdapter
from nl2sql.datasources.sqlite import SQLiteAdapter

from ..conftest import REGIONS, SALES, STORES
from .servers import analyze, insert_rows, run_all, scratch, spark_database, spark_load_table

ENGINES = ("duckdb", "sqlite", "postgres", "mariadb", "frames", "spark")

# Both servers accept this DDL; MariaDB ignores column-level REFERENCES, so keys are table-level.
SERVER_DDL = (
    "CREATE TABLE regions (region_id INTEGER PRIMARY KEY, region_name VARCHAR(50) NOT NULL)",
    "CREATE TABLE stores (store_id INTEGER PRIMARY KEY, store_name VARCHAR(50) NOT NULL, "
    "state VARCHAR(50), region_id INTEGER NOT NULL, "
    "FOREIGN KEY (region_id) REFERENCES regions (region_id))",
    "CREATE TABLE sales (sale_id INTEGER PRIMARY KEY, store_id INTEGER NOT NULL, "
    "amount DECIMAL(10, 2) NOT NULL, sold_on DATE NOT NULL, note VARCHAR(200), "
    "FOREIGN KEY (store_id) REFERENCES stores (store_id))",
    "CREATE VIEW store_sales AS SELECT s.store_name, SUM(x.amount) AS total "
    "FROM stores AS s JOIN sales AS x ON x.store_id = s.store_id GROUP BY s.store_name",
)
COMMENT = {
    "postgres": "COMMENT ON TABLE stores IS 'Physical stores'",
    "mariadb": "ALTER TABLE stores COMMENT = 'Physical stores'",
}
COLUMNS = {
    "regions": ("region_id", "region_name"),
    "stores": ("store_id", "store_name", "state", "region_id"),
    "sales": ("sale_id", "store_id", "amount", "sold_on", "note"),
}
ROWS = {"regions": REGIONS, "stores": STORES, "sales": SALES}

# Spark declares no keys; its columns carry Spark's own type names.
SPARK_SCHEMAS = {
    "regions": "region_id INT, region_name STRING",
    "stores": "store_id INT, store_name STRING, state STRING, region_id INT",
    "sales": "sale_id INT, store_id INT, amount DECIMAL(10, 2), sold_on DATE, note STRING",
}
SPARK_VIEW = SERVER_DDL[-1]

SLOW = {
    # the guard allows no range(): a million-row table of its own (in another database, so the
    # shop's catalog stays the same), scanned under a cross join with the sales (see
    # `servers.spark_load_table`: Spark interrupts a cancelled task only between input rows)
    "spark": "SELECT COUNT(*) AS n FROM {load} AS t, sales AS a, sales AS b, sales AS c",
    "duckdb": "SELECT COUNT(*) FROM range(1000000000) AS a, range(1000000) AS b",
    "frames": "SELECT COUNT(*) FROM range(1000000000) AS a, range(1000000) AS b",
    "sqlite": "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT COUNT(*) FROM r",
    "postgres": "SELECT pg_sleep(30)",
    "mariadb": "SELECT SLEEP(30)",
}
# A query each engine rejects for its types (SQLite has almost no type errors: arity is one).
TYPE_ERROR = {
    "duckdb": "SELECT 1 + 'abc' AS x",
    "frames": "SELECT 1 + 'abc' AS x",
    "sqlite": "SELECT abs(1, 2) AS x",
    "postgres": "SELECT 1 + 'abc' AS x",
    "mariadb": "SELECT CAST(0 AS UNSIGNED) - 1 AS x",
    "spark": "SELECT 1 + 'abc' AS x",
}


@dataclass
class Case:
    """An adapter on the shop data, and what its engine can hold."""

    engine: str
    adapter: Any
    views: bool = True  # store_sales exists
    load_table: str = ""  # Spark: the large table its slow query scans
    keys: bool = True  # primary and foreign keys are declared
    comments: bool = True  # stores carries the comment "Physical stores"

    @property
    def slow_sql(self) -> str:
        return SLOW[self.engine].format(load=self.load_table)

    @property
    def type_error_sql(self) -> str:
        return TYPE_ERROR[self.engine]


def _seed_server(engine_name: str, server_url: str) -> Iterator[URL]:
    with scratch(server_url) as (engine, url):
        run_all(engine, [*SERVER_DDL, COMMENT[engine_name]])
        for table, columns in COLUMNS.items():
            insert_rows(engine, table, columns, ROWS[table])
        analyze(engine, list(COLUMNS))
        yield url


@pytest.fixture(scope="session")
def pg_shop(postgres_url: str) -> Iterator[URL]:
    """A URL reaching only a fresh PostgreSQL schema holding the shop tables."""
    yield from _seed_server("postgres", postgres_url)


@pytest.fixture(scope="session")
def maria_shop(mysql_url: str) -> Iterator[URL]:
    """A URL reaching only a fresh MariaDB database holding the shop tables."""
    yield from _seed_server("mariadb", mysql_url)


@pytest.fixture(scope="session")
def spark_shop(spark_session: Any) -> Iterator[tuple[str, str, str]]:
    """(the master, the name of a fresh Spark database holding the shop tables, analyzed, and
    the view, and a large table elsewhere for the slow query)."""
    tables = {name: [_spark_row(name, row) for row in ROWS[name]] for name in COLUMNS}
    with spark_database(spark_session, tables, SPARK_SCHEMAS) as database:
        spark_session.sql(f"COMMENT ON TABLE {database}.stores IS 'Physical stores'")
        spark_session.sql(SPARK_VIEW.replace("VIEW store_sales", f"VIEW {database}.store_sales")
                          .replace("FROM stores", f"FROM {database}.stores")
                          .replace("JOIN sales", f"JOIN {database}.sales"))
        with spark_load_table(spark_session, 1_000_000) as load_table:
            yield spark_session.sparkContext.master, database, load_table


def _spark_row(table: str, row: tuple[Any, ...]) -> tuple[Any, ...]:
    if table != "sales":
        return row
    sale_id, store_id, amount, sold_on, note = row
    return sale_id, store_id, Decimal(str(amount)), date.fromisoformat(sold_on), note


def shop_frames() -> dict[str, Any]:
    """The shop tables as DataFrames: regions and stores in pandas, sales in polars."""
    return {
        "regions": pd.DataFrame(REGIONS, columns=list(COLUMNS["regions"])),
        "stores": pd.DataFrame(STORES, columns=list(COLUMNS["stores"])),
        "sales": pl.DataFrame(SALES, schema=list(COLUMNS["sales"]), orient="row"),
    }


def open_case(request: pytest.FixtureRequest, engine: str, **opts: Any) -> Case:
    """A fresh adapter of `engine` on the shop data."""
    if engine == "duckdb":
        return Case(engine, DuckDBAdapter("shop", request.getfixturevalue("duckdb_file"), **opts))
    if engine == "sqlite":
        adapter = SQLiteAdapter("shop", request.getfixturevalue("sqlite_file"), **opts)
        return Case(engine, adapter, comments=False)
    if engine == "postgres":
        return Case(engine, SQLAlchemyAdapter("shop", request.getfixturevalue("pg_shop"), **opts))
    if engine == "mariadb":
        return Case(
            engine, SQLAlchemyAdapter("shop", request.getfixturevalue("maria_shop"), **opts)
        )
    if engine == "spark":
        master, database, load_table = request.getfixturevalue("spark_shop")
        return Case(engine, SparkAdapter("shop", master, database=database, **opts),
                    keys=False, load_table=load_table)
    adapter = FramesAdapter("shop", shop_frames(), **opts)
    return Case(engine, adapter, views=False, keys=False, comments=False)


@pytest.fixture(scope="module", params=ENGINES)
def case(request: pytest.FixtureRequest) -> Iterator[Case]:
    """The shared adapter of one engine for a test module."""
    opened = open_case(request, request.param, description="Shop")
    yield opened
    opened.adapter.close()
