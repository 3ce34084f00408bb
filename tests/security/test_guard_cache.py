"""The guard keeps verdicts by their exact inputs: a repeat is not parsed again, and any change
of text, dialect, allowed tables or size limit gets its own verdict."""

from __future__ import annotations

import pytest

from nl2sql.security import sql_guard
from nl2sql.security.sql_guard import check_sql


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = sql_guard._parse

    def counting(engine, tokens, sql):  # type: ignore[no-untyped-def]
        seen.append(sql)
        return real(engine, tokens, sql)

    sql_guard._verdict.cache_clear()
    monkeypatch.setattr(sql_guard, "_parse", counting)
    yield seen
    sql_guard._verdict.cache_clear()


def test_a_repeated_text_is_parsed_once(parses: list[str]) -> None:
    sql = 'SELECT "custName" FROM "tblCustomer" WHERE "custId" = 7'
    first = check_sql(sql, "sqlite", allowed_tables=["tblCustomer"])
    again = check_sql(sql, "sqlite", allowed_tables=["TBLCUSTOMER"])  # the same set, case apart
    assert first.allowed and again == first
    assert parses == [sql]


def test_other_inputs_get_their_own_verdict(parses: list[str]) -> None:
    sql = "SELECT order_total FROM sales_orders"
    assert check_sql(sql, "duckdb", allowed_tables=["sales_orders"]).allowed
    refused = check_sql(sql, "duckdb", allowed_tables=["crm_accounts"])
    assert (refused.allowed, refused.code) == (False, "UNKNOWN_TABLE")
    assert check_sql(sql, "duckdb").allowed  # no table list: any table of the source
    assert check_sql(sql + " ", "duckdb", allowed_tables=["sales_orders"]).allowed
    assert check_sql(sql, "postgres", allowed_tables=["sales_orders"]).allowed
    assert check_sql(sql, "duckdb", max_bytes=10).code == "TOO_LARGE"
    assert len(parses) == 5  # the size refusal parses nothing


def test_a_write_stays_refused_when_asked_again(parses: list[str]) -> None:
    for _ in range(3):
        verdict = check_sql("DELETE FROM ordr_line", "mysql")
        assert (verdict.allowed, verdict.code) == (False, "WRITE_OPERATION")
    assert len(parses) <= 1
