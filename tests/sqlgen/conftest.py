"""The shop database on every engine the tests can reach, as `run(sql) -> rows` callables.

DuckDB and SQLite are files in a temporary folder. PostgreSQL and MariaDB are used when
NL2SQL_TEST_POSTGRES_URL / NL2SQL_TEST_MYSQL_URL are set: the shop goes into a schema (a
database, for MariaDB) with a unique name that is dropped afterwards.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from collections.abc import Callable, Iterator

import pytest
from sqlglot import exp

from .shop import setup_statements

Runner = Callable[[str], list]


def _namespace(kind: str, name: str, dialect: str, *, drop: bool = False) -> str:
    """CREATE / DROP of a schema or database, written by sqlglot."""
    table = exp.Table(db=exp.to_identifier(name, quoted=True))
    if drop:
        node = exp.Drop(tables=[table], kind=kind, cascade=dialect == "postgres")
        return node.sql(dialect=dialect)
    return exp.Create(this=table, kind=kind).sql(dialect=dialect)


def _search_path(schema: str) -> str:
    item = exp.EQ(this=exp.column("search_path"), expression=exp.to_identifier(schema, quoted=True))
    return exp.Set(expressions=[exp.SetItem(this=item)]).sql(dialect="postgres")


def _url(variable: str):
    url = os.environ.get(variable)
    if not url:
        pytest.skip(f"{variable} is not set: no server to execute on")
    from sqlalchemy.engine import make_url

    return make_url(url)


@pytest.fixture(scope="session")
def duckdb_shop(tmp_path_factory) -> Iterator[Runner]:
    import duckdb

    conn = duckdb.connect(str(tmp_path_factory.mktemp("duck") / "shop.duckdb"))
    for statement in setup_statements("duckdb"):
        conn.execute(statement)
    yield lambda sql: conn.execute(sql).fetchall()
    conn.close()


@pytest.fixture(scope="session")
def sqlite_shop(tmp_path_factory) -> Iterator[Runner]:
    conn = sqlite3.connect(tmp_path_factory.mktemp("lite") / "shop.sqlite")
    for statement in setup_statements("sqlite"):
        conn.execute(statement)
    conn.commit()
    yield lambda sql: conn.execute(sql).fetchall()
    conn.close()


@pytest.fixture(scope="session")
def postgres_shop() -> Iterator[Runner]:
    import psycopg

    url = _url("NL2SQL_TEST_POSTGRES_URL")
    schema = f"nl2sql_sqlgen_{uuid.uuid4().hex[:10]}"
    conn = psycopg.connect(
        host=url.host,
        port=url.port or 5432,
        user=url.username,
        password=url.password,
        dbname=url.database,
        autocommit=True,
    )
    conn.execute(_namespace("SCHEMA", schema, "postgres"))
    try:
        conn.execute(_search_path(schema))
        for statement in setup_statements("postgres"):
            conn.execute(statement)
        yield lambda sql: conn.execute(sql).fetchall()
    finally:
        conn.execute(_namespace("SCHEMA", schema, "postgres", drop=True))
        conn.close()


@pytest.fixture(scope="session")
def mysql_shop() -> Iterator[Runner]:
    import pymysql

    url = _url("NL2SQL_TEST_MYSQL_URL")
    database = f"nl2sql_sqlgen_{uuid.uuid4().hex[:10]}"
    conn = pymysql.connect(
        host=url.host,
        port=url.port or 3306,
        user=url.username,
        password=url.password or "",
        autocommit=True,
    )
    cursor = conn.cursor()
    cursor.execute(_namespace("DATABASE", database, "mysql"))
    try:
        conn.select_db(database)
        for statement in setup_statements("mysql"):
            cursor.execute(statement)

        def run(sql: str) -> list:
            cursor.execute(sql)
            return list(cursor.fetchall())

        yield run
    finally:
        cursor.execute(_namespace("DATABASE", database, "mysql", drop=True))
        conn.close()


@pytest.fixture
def shop(request) -> Runner:
    """The runner for the dialect in `request.param` (parametrize with indirect=True)."""
    return request.getfixturevalue(f"{request.param}_shop")
