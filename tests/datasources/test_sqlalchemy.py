"""SQLAlchemyAdapter beyond the conformance suite: URLs, secrets, streaming, any dialect."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from nl2sql.datasources.base import ResultError
from nl2sql.datasources.factory import open_datasource
from nl2sql.datasources.sqlalchemy import SQLAlchemyAdapter
from nl2sql.datasources.sqlalchemy_engines import normalize_url
from nl2sql.errors import ConfigError


@pytest.mark.parametrize(
    ("raw", "driver"),
    [
        ("postgresql://u@h/db", "postgresql+psycopg"),
        ("postgres://u@h/db", "postgresql+psycopg"),
        ("postgresql+psycopg://u@h/db", "postgresql+psycopg"),
        ("mysql://u@h/db", "mysql+pymysql"),
        ("mariadb://u@h/db", "mariadb+pymysql"),
        ("mssql+pyodbc://u@h/db", "mssql+pyodbc"),
    ],
)
def test_urls_get_the_default_driver(raw: str, driver: str):
    assert normalize_url("x", raw).drivername == driver


def test_a_password_never_shows(postgres_url: str):
    url = make_url(postgres_url).set(password="hunter2-secret")
    adapter = open_datasource("pg", url.render_as_string(hide_password=False))
    try:
        assert "hunter2" not in repr(adapter) and "***" in repr(adapter)
    finally:
        adapter.close()
    wrong = make_url(postgres_url).set(username="nobody_here", password="hunter2-secret")
    with pytest.raises(ConfigError) as info:
        open_datasource("pg", wrong.render_as_string(hide_password=False))
    assert "hunter2" not in str(info.value) and "cannot connect" in str(info.value)


def test_an_unreachable_server_is_a_one_line_config_error():
    with pytest.raises(ConfigError) as info:
        SQLAlchemyAdapter("down", "postgresql://u:pw@127.0.0.1:9/db", connect_timeout_s=1)
    assert "cannot connect" in str(info.value) and "\n" not in str(info.value)
    assert ":pw@" not in str(info.value)


def test_mysql_url_must_name_a_database(mysql_url: str):
    with pytest.raises(ConfigError, match="must name a database"):
        # URL is a named tuple; set(database=None) would keep the database.
        open_datasource("m", make_url(mysql_url)._replace(database=None).render_as_string(False))


def test_postgres_streams_a_huge_result_instead_of_loading_it(postgres_url: str):
    adapter = open_datasource("pg", postgres_url)
    try:
        started = time.monotonic()
        frame = adapter.execute(
            # In the select list the series streams (in FROM it would be materialized first).
            "SELECT generate_series(1, 50000000) AS g",
            row_cap=5,
            timeout_s=20,
        )
        assert time.monotonic() - started < 3  # fetchall would take minutes and gigabytes
    finally:
        adapter.close()
    assert frame.row_count == 5 and frame.truncated


def test_mysql_drops_an_unread_result_without_reading_it(mysql_url: str):
    adapter = open_datasource("m", mysql_url)
    try:
        started = time.monotonic()
        # An explicit LIMIT beats sql_select_limit, so 50 million rows would follow the cap.
        sql = "SELECT seq FROM seq_1_to_50000000 LIMIT 50000000"
        frame = adapter.execute(sql, row_cap=5, timeout_s=20)
        assert time.monotonic() - started < 3
        assert frame.row_count == 5 and frame.truncated
        # The connection that carried it was dropped; the next call gets a fresh one.
        assert adapter.execute("SELECT 1 AS x", row_cap=1, timeout_s=5).table.to_pylist() == [
            {"x": 1}
        ]
    finally:
        adapter.close()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    path = tmp_path / "any.sqlite"
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT);"
        "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'b');"
    )
    con.commit()
    con.close()
    return f"sqlite+pysqlite:///{path}"


def test_any_dialect_through_sqlalchemy(sqlite_url: str):
    # SQLite stands in for a dialect without a profile of its own (the generic path).
    adapter = SQLAlchemyAdapter("any", sqlite_url, row_cap=2)
    try:
        assert adapter.dialect == "sqlite"
        frame = adapter.execute("SELECT id FROM t ORDER BY id")
        assert frame.table.column("id").to_pylist() == [1, 2] and frame.truncated
        [table] = adapter.fetch_schema().tables
        assert (table.key, table.primary_key, table.row_count) == ("t", ["id"], 3)
        assert table.column("name").samples == ["b", "a"]
        with pytest.raises(ResultError) as info:
            adapter.execute("SELECT nope FROM t")
        assert info.value.retryable and "nope" in info.value.safe_message
    finally:
        adapter.close()


def test_a_url_of_an_engine_sqlglot_cannot_write_is_refused():
    with pytest.raises(ConfigError, match="unsupported URL scheme"):
        open_datasource("x", "gopher://host/db")
