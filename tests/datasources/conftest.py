"""Small DuckDB and SQLite databases with the same tables, and adapters opened on them."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from nl2sql.datasources.duckdb import DuckDBAdapter
from nl2sql.datasources.sqlite import SQLiteAdapter

# DDL both engines accept. stores.state has a clear frequency order for the samples test.
DDL = (
    "CREATE TABLE regions (region_id INTEGER PRIMARY KEY, region_name VARCHAR NOT NULL)",
    "CREATE TABLE stores (store_id INTEGER PRIMARY KEY, store_name VARCHAR NOT NULL, "
    "state VARCHAR, region_id INTEGER NOT NULL REFERENCES regions (region_id))",
    "CREATE TABLE sales (sale_id INTEGER PRIMARY KEY, store_id INTEGER NOT NULL "
    "REFERENCES stores (store_id), amount DECIMAL(10, 2) NOT NULL, sold_on DATE NOT NULL, "
    "note VARCHAR)",
    "CREATE VIEW store_sales AS SELECT s.store_name, SUM(x.amount) AS total "
    "FROM stores AS s JOIN sales AS x ON x.store_id = s.store_id GROUP BY s.store_name",
)
REGIONS = [(1, "West"), (2, "South"), (3, "East")]
STATES = (
    ["California"] * 4 + ["Texas"] * 3 + ["New York"] * 2 + ["New Jersey", "O'Brien County", None]
)
STORES = [(i + 1, f"Store {i + 1}", state, 1 + i % 3) for i, state in enumerate(STATES)]
LONG_NOTE = (
    "a long free-text remark about this sale that goes on well past eighty characters, number "
)
SALES = [
    (
        i + 1,
        1 + i % len(STORES),
        round(10 + i * 1.25, 2),
        f"2024-01-{1 + i % 28:02d}",
        f"{LONG_NOTE}{i}",
    )
    for i in range(60)
]


def _fill(con: duckdb.DuckDBPyConnection | sqlite3.Connection) -> None:
    for statement in DDL:
        con.execute(statement)
    con.executemany("INSERT INTO regions VALUES (?, ?)", REGIONS)
    con.executemany("INSERT INTO stores VALUES (?, ?, ?, ?)", STORES)
    con.executemany("INSERT INTO sales VALUES (?, ?, ?, ?, ?)", SALES)


@pytest.fixture(scope="module")
def duckdb_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("duck") / "shop.duckdb"
    con = duckdb.connect(str(path))
    _fill(con)
    con.execute("COMMENT ON TABLE stores IS 'Physical stores'")
    con.close()
    return path


@pytest.fixture(scope="module")
def sqlite_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("lite") / "shop.sqlite"
    con = sqlite3.connect(path)
    _fill(con)
    con.commit()
    con.close()
    return path


@pytest.fixture(params=["duckdb", "sqlite"])
def adapter(request: pytest.FixtureRequest) -> Iterator[DuckDBAdapter | SQLiteAdapter]:
    if request.param == "duckdb":
        opened = DuckDBAdapter("shop", request.getfixturevalue("duckdb_file"), description="Shop")
    else:
        opened = SQLiteAdapter("shop", request.getfixturevalue("sqlite_file"), description="Shop")
    yield opened
    opened.close()


@pytest.fixture
def duck(duckdb_file: Path) -> Iterator[DuckDBAdapter]:
    opened = DuckDBAdapter("shop", duckdb_file)
    yield opened
    opened.close()


@pytest.fixture
def lite(sqlite_file: Path) -> Iterator[SQLiteAdapter]:
    opened = SQLiteAdapter("shop", sqlite_file)
    yield opened
    opened.close()
