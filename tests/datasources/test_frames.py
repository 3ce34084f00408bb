"""DataFrames, Arrow tables, CSV and Parquet files as one read-only DuckDB source."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from nl2sql.datasources.base import ResultError
from nl2sql.datasources.factory import open_datasource
from nl2sql.datasources.frames import FramesAdapter
from nl2sql.errors import ConfigError


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "events").mkdir()
    pd.DataFrame({"id": [1, 2], "kind": ["click", "view"]}).to_csv(
        tmp_path / "events" / "jan.csv", index=False
    )
    # A second file of the glob with its columns in another order.
    pd.DataFrame({"kind": ["view"], "id": [3]}).to_csv(tmp_path / "events" / "feb.csv", index=False)
    pl.DataFrame({"sku": ["a", "b", "c"], "price": [1.5, 2.0, 9.25]}).write_parquet(
        tmp_path / "prices.parquet"
    )
    return tmp_path


def _rows(adapter, sql: str) -> list[dict]:
    return adapter.execute(sql, row_cap=100, timeout_s=10).table.to_pylist()


def test_dataframes_of_every_kind_become_tables():
    by_region = pd.DataFrame({"region": ["W", "E", "W"], "amount": [1.0, 2.0, 3.0]})
    adapter = FramesAdapter(
        "frames",
        {
            "totals": by_region.groupby("region").sum(),  # the index holds the region
            "pl": pl.DataFrame({"x": [1, 2]}),
            "arrow": pa.table({"y": ["q"]}),
        },
    )
    try:
        assert _rows(adapter, 'SELECT * FROM "totals" ORDER BY "region"') == [
            {"region": "E", "amount": 2.0},
            {"region": "W", "amount": 4.0},
        ]
        assert _rows(adapter, 'SELECT SUM("x") AS s FROM "pl"') == [{"s": 3}]
        snapshot = adapter.fetch_schema()
        assert sorted(t.key for t in snapshot.tables) == ["arrow", "pl", "totals"]
        assert snapshot.table("totals").row_count == 2
    finally:
        adapter.close()


def test_csv_globs_and_parquet_files(files: Path):
    adapter = FramesAdapter(
        "files",
        {"events": str(files / "events" / "*.csv"), "prices": f"parquet:///{files}/prices.parquet"},
    )
    try:
        assert _rows(adapter, 'SELECT "id", "kind" FROM "events" ORDER BY "id"') == [
            {"id": 1, "kind": "click"},
            {"id": 2, "kind": "view"},
            {"id": 3, "kind": "view"},
        ]
        assert _rows(adapter, 'SELECT MAX("price") AS p FROM "prices"') == [{"p": 9.25}]
    finally:
        adapter.close()


def test_a_file_source_is_one_table_named_after_the_source(files: Path):
    adapter = open_datasource("events", str(files / "events" / "*.csv"), row_cap=2)
    try:
        assert repr(adapter) == "FramesAdapter(id='events', tables=['events'])"
        frame = adapter.execute('SELECT * FROM "events"')
        assert frame.row_count == 2 and frame.truncated
    finally:
        adapter.close()


def test_the_copy_is_read_only_and_cannot_reach_files(files: Path):
    adapter = FramesAdapter("f", {"t": pd.DataFrame({"a": [1]})})
    try:
        for sql in ('INSERT INTO "t" VALUES (2)', 'DROP TABLE "t"'):
            with pytest.raises(ResultError) as info:
                adapter.execute(sql, row_cap=1, timeout_s=5)
            assert info.value.kind == "read_only"
        with pytest.raises(ResultError) as info:
            adapter.execute(
                f"SELECT * FROM read_csv('{files}/events/jan.csv')", row_cap=1, timeout_s=5
            )
        assert info.value.kind == "permission"
        assert _rows(adapter, 'SELECT COUNT(*) AS n FROM "t"') == [{"n": 1}]
    finally:
        adapter.close()


def test_close_deletes_the_copied_data():
    adapter = FramesAdapter("f", {"t": pd.DataFrame({"a": [1]})})
    folder = adapter.path.parent
    assert folder.is_dir()
    adapter.close()
    assert not folder.exists()


@pytest.mark.parametrize(
    ("tables", "words"),
    [
        ({}, "no DataFrame"),
        ({"t": pd.DataFrame({"a": [1]}), "T": pd.DataFrame({"a": [1]})}, "given twice"),
        ({"t": "nowhere/*.csv"}, "no file matches"),
        ({"t": "notes.txt"}, "expected a .csv"),
        ({"t": object()}, "cannot read a object"),
    ],
)
def test_bad_input_is_a_one_line_config_error(tables: dict, words: str):
    with pytest.raises(ConfigError) as info:
        FramesAdapter("f", tables)
    assert words in str(info.value) and "\n" not in str(info.value)
