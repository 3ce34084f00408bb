"""Small demo builds shared by the demo tests, and adapters opened on them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from nl2sql.datasources.duckdb import DuckDBAdapter
from nl2sql.datasources.sqlite import SQLiteAdapter
from nl2sql.demo import DemoPaths, build_demo

SMALL = 0.05  # ~100 customers, ~2,100 orders: builds in a fraction of a second


@pytest.fixture(scope="package")
def small_demo(tmp_path_factory: pytest.TempPathFactory) -> DemoPaths:
    return build_demo(tmp_path_factory.mktemp("demo-a"), SMALL)


@pytest.fixture(scope="package")
def small_demo_twin(tmp_path_factory: pytest.TempPathFactory) -> DemoPaths:
    return build_demo(tmp_path_factory.mktemp("demo-b"), SMALL)


@pytest.fixture
def warehouse(small_demo: DemoPaths) -> Iterator[DuckDBAdapter]:
    adapter = DuckDBAdapter("warehouse", small_demo.warehouse)
    yield adapter
    adapter.close()


@pytest.fixture
def crm(small_demo: DemoPaths) -> Iterator[SQLiteAdapter]:
    adapter = SQLiteAdapter("crm", small_demo.crm)
    yield adapter
    adapter.close()


def rows(adapter: DuckDBAdapter | SQLiteAdapter, sql: str) -> list[dict]:
    """All rows of a test query (which must return fewer than 100,000 rows)."""
    frame = adapter.execute(sql, row_cap=100_000, timeout_s=30)
    assert not frame.truncated
    return frame.table.to_pylist()


def scalar(adapter: DuckDBAdapter | SQLiteAdapter, sql: str):
    (row,) = rows(adapter, sql)
    (value,) = row.values()
    return value


def files_of(paths: DemoPaths) -> list[Path]:
    return [paths.warehouse, paths.crm]
