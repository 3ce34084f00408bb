"""Every adapter runs the same query to the same rows, caps rows and stops slow queries."""

from __future__ import annotations

import time
from collections import Counter
from decimal import Decimal

import pytest
import sqlglot

from nl2sql.datasources.base import DatasourceAdapter, ResultError

from ..conftest import REGIONS, SALES, STORES
from .conftest import Case, open_case

# Written once (DuckDB SQL) and transpiled by sqlglot to each adapter's dialect.
PER_REGION = (
    "SELECT r.region_name, COUNT(*) AS stores FROM stores AS s "
    "JOIN regions AS r ON r.region_id = s.region_id GROUP BY r.region_name ORDER BY r.region_name"
)
SALE_IDS = "SELECT sale_id FROM sales ORDER BY sale_id"


def _sql(case: Case, duckdb_sql: str) -> str:
    return sqlglot.transpile(duckdb_sql, read="duckdb", write=case.adapter.dialect)[0]


def test_adapter_satisfies_the_protocol(case: Case):
    assert isinstance(case.adapter, DatasourceAdapter)
    assert case.adapter.capabilities.sql


def test_a_join_and_group_by_gives_the_same_rows_everywhere(case: Case):
    frame = case.adapter.execute(_sql(case, PER_REGION), row_cap=100, timeout_s=10)
    names = dict(REGIONS)
    expected = Counter(names[region] for *_, region in STORES)
    assert frame.table.column_names == ["region_name", "stores"]
    assert [(r["region_name"], r["stores"]) for r in frame.table.to_pylist()] == sorted(
        expected.items()
    )
    assert frame.truncated is False and frame.elapsed_s > 0


def test_decimal_sums_are_exact(case: Case):
    sql = _sql(case, "SELECT SUM(amount) AS total FROM sales WHERE store_id = 1")
    [row] = case.adapter.execute(sql, row_cap=10, timeout_s=10).table.to_pylist()
    expected = sum(Decimal(str(amount)) for _, store, amount, *_ in SALES if store == 1)
    assert Decimal(str(row["total"])).quantize(Decimal("0.01")) == expected


@pytest.mark.parametrize("cap", [1, 10, len(SALES) - 1])
def test_row_cap_truncates_and_says_so(case: Case, cap: int):
    frame = case.adapter.execute(_sql(case, SALE_IDS), row_cap=cap, timeout_s=10)
    assert frame.row_count == cap and frame.truncated is True
    assert frame.table.column("sale_id").to_pylist() == list(range(1, cap + 1))


def test_a_result_that_fits_is_not_truncated(case: Case):
    frame = case.adapter.execute(_sql(case, SALE_IDS), row_cap=len(SALES), timeout_s=10)
    assert frame.row_count == len(SALES) and frame.truncated is False


def test_the_adapter_row_cap_applies_by_default(request: pytest.FixtureRequest, case: Case):
    capped = open_case(request, case.engine, row_cap=5)
    try:
        frame = capped.adapter.execute(_sql(case, SALE_IDS))
    finally:
        capped.adapter.close()
    assert frame.row_count == 5 and frame.truncated is True


def test_an_empty_result_keeps_its_columns(case: Case):
    sql = _sql(case, "SELECT store_id, state FROM stores WHERE store_id < 0")
    frame = case.adapter.execute(sql, row_cap=10, timeout_s=10)
    assert frame.row_count == 0 and frame.table.column_names == ["store_id", "state"]


def test_a_slow_query_is_stopped_by_its_timeout(case: Case):
    started = time.monotonic()
    with pytest.raises(ResultError) as info:
        case.adapter.execute(case.slow_sql, row_cap=10, timeout_s=0.5)
    assert time.monotonic() - started < 5
    assert info.value.kind == "timeout" and info.value.retryable is False
    assert "timeout" in info.value.safe_message
    # The adapter is still usable afterwards (the pooled connection was cleaned up).
    assert case.adapter.execute(_sql(case, SALE_IDS), row_cap=1, timeout_s=10).row_count == 1


def test_a_closed_adapter_refuses_to_run(request: pytest.FixtureRequest, case: Case):
    other = open_case(request, case.engine)
    other.adapter.close()
    with pytest.raises(ResultError) as info:
        other.adapter.execute(_sql(case, SALE_IDS), row_cap=1, timeout_s=5)
    assert info.value.kind == "connection" and info.value.retryable is False
