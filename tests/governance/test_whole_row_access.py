"""Curated answers and whole-row references: a denied column never leaves the database.

Whole-row forms (`SELECT c FROM t AS c`, `to_json(c)`, `CAST(c AS TEXT)`, `json_agg(c)`, a star,
DuckDB `COLUMNS(...)`, `#n`) read every column of a table. The RBAC check of a curated answer
(`rbac_denied`) must see the denied column in each, so each form is either refused or, when it
runs, returns no denied value. Checked on real DuckDB and PostgreSQL databases.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import duckdb
import pytest

from nl2sql.datasources.duckdb import DuckDBAdapter
from nl2sql.datasources.factory import open_datasource
from nl2sql.governance.services import Governance
from nl2sql.governance.touches import sql_touches
from nl2sql.governance.verified import rbac_denied
from nl2sql.schema.models import Column, SchemaSnapshot, Table
from nl2sql.security.rbac import PolicySet, UserContext
from tests.datasources.conformance.servers import run_all, scratch

SECRET = "hidden-mail@example.org"
DDL = (
    "CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR(40), email VARCHAR(60))",
    f"INSERT INTO customers VALUES (1, 'Ann', '{SECRET}'), (2, 'Bob', 'other-{SECRET}')",
)
POLICY = {"roles": {"support": {"datasources": {"shop": {
    "tables": ["customers"], "columns": {"customers": ["id", "name"]}}}}}}
USER = UserContext(user_id="u", roles=("support",))

COMMON_FORMS = [
    "SELECT c FROM customers AS c",
    "SELECT CAST(c AS TEXT) FROM customers AS c",
    "SELECT * FROM customers",
    "SELECT c.* FROM customers AS c",
    "SELECT id FROM (SELECT * FROM customers) AS sub",
    "SELECT x FROM (SELECT * FROM customers) AS x",
    "SELECT (SELECT c.email) FROM customers AS c",
    "SELECT id FROM customers WHERE email LIKE '%hidden%'",
    "SELECT id FROM customers ORDER BY email",
    "SELECT name FROM customers AS c WHERE EXISTS (SELECT 1 WHERE c.email IS NOT NULL)",
]
FORMS = {
    "duckdb": COMMON_FORMS + [
        "SELECT to_json(c) FROM customers AS c",
        "SELECT json_agg(c) FROM customers AS c",
        "SELECT COLUMNS('.*mail') FROM customers",
        "SELECT COLUMNS(*) FROM customers",
        "SELECT COLUMNS(x -> x LIKE '%mail') FROM customers",
        "SELECT struct_pack(*) FROM customers",
        "SELECT * EXCLUDE (id) FROM customers",
        "SELECT #3 FROM customers",
        "SELECT list(c) FROM customers AS c",
        "SELECT customers FROM customers",
    ],
    "postgres": COMMON_FORMS + [
        "SELECT to_json(c) FROM customers AS c",
        "SELECT row_to_json(c) FROM customers AS c",
        "SELECT json_agg(c) FROM customers AS c",
        "SELECT to_jsonb(customers) FROM customers",
        "SELECT (c).email FROM customers AS c",
        "SELECT c::text FROM customers AS c",
        "SELECT array_agg(c) FROM customers AS c",
        "SELECT z.j FROM customers AS c, LATERAL (SELECT row_to_json(c) AS j) AS z",
    ],
}


def _ctx(adapter) -> SimpleNamespace:
    snapshot = adapter.fetch_schema()
    store = SimpleNamespace(get=lambda _id: snapshot)
    return SimpleNamespace(governance=Governance(policies=PolicySet.parse(POLICY)),
                           datasources={"shop": adapter}, schemas=store)


def _never_leaks(adapter, sql: str) -> None:
    if rbac_denied(_ctx(adapter), USER, "shop", sql):
        return  # refused: the curated answer is never run
    frame = adapter.execute(sql, row_cap=100, timeout_s=10)
    assert SECRET not in str(frame.table.to_pylist()), f"leaked through {sql!r}"


@pytest.fixture(scope="module")
def duck(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DuckDBAdapter]:
    path: Path = tmp_path_factory.mktemp("whole_row") / "shop.duckdb"
    con = duckdb.connect(str(path))
    for statement in DDL:
        con.execute(statement)
    con.close()
    adapter = DuckDBAdapter("shop", path)
    yield adapter
    adapter.close()


@pytest.fixture(scope="module")
def pg(postgres_url: str) -> Iterator[object]:
    with scratch(postgres_url) as (engine, url):
        run_all(engine, DDL)
        adapter = open_datasource("shop", url.render_as_string(hide_password=False))
        try:
            yield adapter
        finally:
            adapter.close()


@pytest.mark.parametrize("sql", FORMS["duckdb"])
def test_duckdb_whole_row_forms_never_return_a_denied_column(duck, sql: str) -> None:
    _never_leaks(duck, sql)


@pytest.mark.parametrize("sql", FORMS["postgres"])
def test_postgres_whole_row_forms_never_return_a_denied_column(pg, sql: str) -> None:
    _never_leaks(pg, sql)


def test_allowed_columns_alone_still_pass_the_check(duck) -> None:
    ctx = _ctx(duck)
    for sql in ("SELECT id, name FROM customers ORDER BY name",
                "SELECT c.name, COUNT(*) AS n FROM customers AS c GROUP BY c.name ORDER BY n",
                "SELECT COUNT(*) FROM customers"):
        assert rbac_denied(ctx, USER, "shop", sql) == [], sql


SHOP = SchemaSnapshot(datasource_id="shop", dialect="duckdb", tables=[Table(
    name="customers", columns=[Column(name=n, type="VARCHAR") for n in ("id", "name", "email")])])


@pytest.mark.parametrize(("dialect", "sql"), [
    ("duckdb", "SELECT c FROM customers AS c"),
    ("postgres", "SELECT row_to_json(c) FROM customers AS c"),
    ("duckdb", "SELECT COLUMNS('.*mail') FROM customers"),
    ("duckdb", "SELECT #3 FROM customers"),
    ("postgres", "SELECT (SELECT c.email) FROM customers AS c"),
])
def test_whole_row_and_pattern_references_resolve_to_every_column(dialect: str, sql: str) -> None:
    touched = sql_touches(sql, dialect, SHOP)
    assert touched.touches("customers", "email")
