"""execute on DuckDB and SQLite: results, row cap, timeouts, error classes, thread safety."""

from __future__ import annotations

import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa
import pytest
from sqlglot import exp

from nl2sql.datasources.base import DatasourceAdapter, ResultError

from .conftest import SALES, STORES

SLOW = {
    # an unbounded recursive CTE never finishes on its own on either engine
    "duckdb": "SELECT COUNT(*) FROM range(1000000000) AS a, range(1000000) AS b",
    "sqlite": "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT COUNT(*) FROM r",
}


def test_adapters_satisfy_the_protocol(adapter):
    assert isinstance(adapter, DatasourceAdapter)
    assert adapter.capabilities.sql


def test_execute_returns_arrow_rows(adapter):
    frame = adapter.execute(
        'SELECT "state", COUNT(*) AS n FROM "stores" WHERE "state" IS NOT NULL '
        'GROUP BY "state" ORDER BY n DESC, "state" LIMIT 2',
        row_cap=100,
        timeout_s=5,
    )
    assert isinstance(frame.table, pa.Table)
    assert frame.table.column_names == ["state", "n"]
    assert frame.table.to_pylist() == [{"state": "California", "n": 4}, {"state": "Texas", "n": 3}]
    assert frame.truncated is False
    assert frame.row_count == 2
    assert frame.elapsed_s >= 0


def test_row_cap_truncates_and_flags(adapter):
    frame = adapter.execute(
        'SELECT "sale_id" FROM "sales" ORDER BY "sale_id"', row_cap=7, timeout_s=5
    )
    assert frame.row_count == 7
    assert frame.truncated is True
    assert frame.table.column("sale_id").to_pylist() == list(range(1, 8))


def test_exactly_row_cap_rows_is_not_truncated(adapter):
    frame = adapter.execute('SELECT "sale_id" FROM "sales"', row_cap=len(SALES), timeout_s=5)
    assert frame.row_count == len(SALES)
    assert frame.truncated is False


def test_empty_result_keeps_its_columns(adapter):
    frame = adapter.execute(
        'SELECT "store_id", "state" FROM "stores" WHERE 1 = 0', row_cap=10, timeout_s=5
    )
    assert frame.row_count == 0
    assert frame.table.column_names == ["store_id", "state"]


def test_defaults_come_from_the_adapter(adapter):
    adapter.row_cap = 3
    frame = adapter.execute('SELECT "store_id" FROM "stores"')
    assert frame.row_count == 3 and frame.truncated


def test_timeout_stops_the_query_and_is_not_retryable(adapter):
    started = time.monotonic()
    with pytest.raises(ResultError) as info:
        adapter.execute(SLOW[adapter.dialect], row_cap=10, timeout_s=0.5)
    assert time.monotonic() - started < 0.5 + 1.0
    assert info.value.kind == "timeout"
    assert info.value.retryable is False
    assert "timeout" in info.value.safe_message
    # the adapter is still usable afterwards
    assert adapter.execute(
        'SELECT COUNT(*) AS n FROM "regions"', row_cap=5, timeout_s=5
    ).table.to_pylist() == [{"n": 3}]


@pytest.mark.parametrize(
    ("sql", "kind"),
    [
        ('SELEC "state" FROM "stores"', "syntax"),
        # unquoted: SQLite before Python 3.12 reads an unknown "name" as a string (test below)
        ("SELECT no_such_column FROM stores", "undefined"),
        ('SELECT "state" FROM "no_such_table"', "undefined"),
    ],
)
def test_wrong_queries_are_retryable_with_a_safe_message(adapter, sql, kind):
    with pytest.raises(ResultError) as info:
        adapter.execute(sql, row_cap=10, timeout_s=5)
    error = info.value
    assert error.retryable is True
    assert error.kind == kind
    assert "\n" not in error.safe_message
    assert sql not in error.safe_message
    assert "LINE 1" not in error.safe_message and "^" not in error.safe_message


@pytest.mark.skipif(
    not hasattr(sqlite3.Connection, "setconfig"),
    reason="Python < 3.12 cannot switch off SQLite's double-quoted string literals",
)
def test_sqlite_quoted_unknown_column_is_an_error_not_a_string(lite):
    with pytest.raises(ResultError) as info:
        lite.execute('SELECT "no_such_column" FROM "stores"', row_cap=10, timeout_s=5)
    assert info.value.retryable and info.value.kind == "undefined"


def test_duckdb_type_error_is_retryable(duck):
    with pytest.raises(ResultError) as info:
        duck.execute("SELECT CAST('abc' AS INTEGER) AS x", row_cap=10, timeout_s=5)
    assert info.value.retryable and info.value.kind == "type"


def test_concurrent_queries_from_threads(adapter):
    def count(store_id: int) -> int:
        sql = (
            exp.select(exp.Count(this=exp.Star()).as_("n"))
            .from_(exp.table_("sales", quoted=True))
            .where(exp.column("store_id", quoted=True).eq(store_id))
            .sql(adapter.dialect)
        )
        return adapter.execute(sql, row_cap=10, timeout_s=10).table.to_pylist()[0]["n"]

    expected = {s: sum(1 for sale in SALES if sale[1] == s) for s, *_ in STORES}
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(count, [s for s, *_ in STORES] * 5))
    assert results == [expected[s] for s, *_ in STORES] * 5


def test_closed_adapter_refuses_work(adapter):
    adapter.close()
    with pytest.raises(ResultError) as info:
        adapter.execute("SELECT 1", row_cap=1, timeout_s=1)
    assert info.value.retryable is False
    adapter.close()  # closing twice is harmless
