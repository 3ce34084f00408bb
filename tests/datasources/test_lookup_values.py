"""lookup_values: bounded, case-insensitive lookup of existing values."""

from __future__ import annotations

import pytest

from nl2sql.datasources.base import ResultError


@pytest.mark.parametrize("needle", ["california", "Californ", "CALIFORNIA", "aliforni"])
def test_finds_a_value_by_any_case_or_part(adapter, needle):
    assert adapter.lookup_values("stores", "state", needle) == ["California"]


def test_exact_match_first_then_shorter_values(adapter):
    assert adapter.lookup_values("stores", "state", "new york") == ["New York"]
    assert adapter.lookup_values("stores", "state", "new") == ["New York", "New Jersey"]


def test_limit_bounds_the_answer(adapter):
    assert len(adapter.lookup_values("stores", "store_name", "store", limit=4)) == 4
    assert adapter.lookup_values("stores", "state", "new", limit=1) == ["New York"]


def test_quotes_and_wildcards_are_plain_text(adapter):
    assert adapter.lookup_values("stores", "state", "o'brien") == ["O'Brien County"]
    assert adapter.lookup_values("stores", "state", "%") == []
    assert adapter.lookup_values("stores", "state", "_") == []


def test_no_match_and_empty_needle(adapter):
    assert adapter.lookup_values("stores", "state", "Atlantis") == []
    assert adapter.lookup_values("stores", "state", "") == []


def test_non_text_columns_match_as_text(adapter):
    assert adapter.lookup_values("regions", "region_id", "2") == ["2"]


@pytest.mark.parametrize(
    ("table", "column"), [("stores", "no_such_column"), ("no_such_table", "state")]
)
def test_unknown_table_or_column_raises(adapter, table, column):
    # the needle matches the column's own name: SQLite must not read "name" as a string here
    with pytest.raises(ResultError) as info:
        adapter.lookup_values(table, column, "such")
    assert info.value.kind == "undefined" and info.value.retryable
