"""The fidelity benchmark's loader and metric on one Spider database, on both servers."""

from __future__ import annotations

import sqlite3
import sys

import pytest

from nl2sql.datasources.sqlalchemy import SQLAlchemyAdapter

from .conftest import load_benchmark


@pytest.fixture(scope="module")
def fidelity():
    return load_benchmark("dialect_fidelity")


@pytest.fixture(scope="module")
def concert_db(shared_path):
    """One Spider dev database (SQLite)."""
    return shared_path("benchmarks/spider_dev/database/concert_singer/concert_singer.sqlite")


@pytest.mark.parametrize(
    ("server", "dialect"), [("postgres_url", "postgres"), ("mysql_url", "mysql")]
)
def test_a_spider_database_is_copied_with_its_rows_and_comparable_types(
    request: pytest.FixtureRequest, fidelity, concert_db, server: str, dialect: str
):
    servers = sys.modules["spider_servers"]
    with servers.loaded(request.getfixturevalue(server), {"concert_singer": concert_db}) as urls:
        adapter = SQLAlchemyAdapter("cs", urls["concert_singer"])
        try:
            snapshot = adapter.fetch_schema()
            assert sorted(t.name for t in snapshot.tables) == [
                "concert", "singer", "singer_in_concert", "stadium",
            ]  # fmt: skip
            # concert.year is TEXT in SQLite holding '2014': loaded as a number.
            assert "INT" in snapshot.table("concert").column("year").type
            lite = sqlite3.connect(concert_db)
            for table in ("singer", "concert"):
                [(expected,)] = lite.execute(f"SELECT COUNT(*) FROM {table}").fetchall()
                got = adapter.execute(f"SELECT COUNT(*) FROM {table}").table.column(0)[0].as_py()
                assert got == expected
            gold = "SELECT count(*) FROM concert WHERE YEAR = 2014 OR YEAR = 2015"
            names = fidelity._names(concert_db)
            sql = fidelity.transpile(gold, dialect, names)
            rows = fidelity._server_rows(adapter, sql)
            assert fidelity.same_rows(lite.execute(gold).fetchall(), rows, keep_order=False)
            lite.close()
        finally:
            adapter.close()


def test_the_metric_follows_the_benchmark_rules(fidelity):
    same = fidelity.same_rows
    assert same([(1, "a"), (2, "b")], [(2, "b"), (1, "a")], keep_order=False)
    assert not same([(1, "a"), (2, "b")], [(2, "b"), (1, "a")], keep_order=True)
    assert same([(2.5,)], [(2.5000001,)], keep_order=True)  # numbers within 1e-6
    assert not same([(1,), (1,)], [(1,)], keep_order=False)  # a multiset, not a set
    assert same([("29",)], [(29,)], keep_order=True)  # text that is a number is a number


def test_prepare_reads_double_quotes_and_names_as_sqlite_does(fidelity):
    sql = fidelity.transpile(
        'SELECT Name FROM Singer WHERE Country = "France"',
        "postgres",
        {"singer", "name", "country"},
    )
    assert sql == "SELECT name FROM singer WHERE country = 'France'"
