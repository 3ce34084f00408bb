"""Errors are classified the same way on every engine, with one safe line and no SQL text."""

from __future__ import annotations

import pytest

from nl2sql.datasources.base import ResultError

from .conftest import Case

SECRET = "zebra_marker_42"


def _error(case: Case, sql: str) -> ResultError:
    with pytest.raises(ResultError) as info:
        case.adapter.execute(sql, row_cap=10, timeout_s=10)
    error = info.value
    assert "\n" not in error.safe_message and error.safe_message
    assert sql not in error.safe_message and SECRET not in error.safe_message
    return error


def test_a_syntax_error_is_retryable(case: Case):
    error = _error(case, f"SELECT store_id FRM stores WHERE state = '{SECRET}' AND 1 = 1")
    assert (error.kind, error.retryable) == ("syntax", True)


def test_an_unknown_column_is_retryable(case: Case):
    error = _error(case, "SELECT no_such_column FROM stores")
    assert (error.kind, error.retryable) == ("undefined", True)
    assert "no_such_column" in error.safe_message  # the name helps the planner re-plan


def test_an_unknown_table_is_retryable(case: Case):
    error = _error(case, "SELECT * FROM no_such_table")
    assert (error.kind, error.retryable) == ("undefined", True)


def test_a_type_error_is_retryable(case: Case):
    error = _error(case, case.type_error_sql)
    assert (error.kind, error.retryable) == ("type", True)
