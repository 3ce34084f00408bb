"""Running a curated answer's verified query: the same guard and failure codes as generated SQL."""

from __future__ import annotations

import duckdb
import pytest

import nl2sql
from nl2sql.errors import ErrorCode
from nl2sql.governance.verified import run_verified


@pytest.fixture
def session(tmp_path):
    path = tmp_path / "shop.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE orders (order_id INTEGER, status VARCHAR)")
        con.execute("INSERT INTO orders VALUES (1, 'cancelled'), (2, 'shipped')")
    session = nl2sql.connect(sources={"shop": str(path)}, settings={"project_dir": tmp_path / "p"})
    yield session
    session.close()


def _run(session, sql: str):
    return run_verified(session.context, sql=sql, datasource_id="shop", sub_query_id="q0", user=None,
                        trace_id="t", subgraph_name="sql_agent", node="curated_matcher")


def test_a_verified_query_runs_and_writes_its_artifact(session):
    ran = _run(session, "SELECT COUNT(*) AS n FROM orders WHERE status = 'cancelled'")
    assert ran.error is None and ran.row_count == 1 and ran.artifact is not None


def test_an_unparseable_verified_query_is_unreadable_not_a_security_violation(session):
    ran = _run(session, "SELECT COUNT(* FROM orders WHERE")
    assert ran.artifact is None and ran.error.error_code != ErrorCode.SECURITY_VIOLATION
    assert ran.error.error_code == ErrorCode.VERIFIED_SQL_UNREADABLE
    assert "PARSE_ERROR" in ran.error.message


def test_a_verified_query_that_writes_is_refused_by_the_guard(session):
    ran = _run(session, "DELETE FROM orders")
    assert ran.artifact is None and ran.error.error_code == ErrorCode.SQL_GUARD_REFUSED
