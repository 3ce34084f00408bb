"""The connection itself refuses writes: the SQL guard is bypassed by calling execute directly."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from nl2sql.datasources.base import ResultError

from ..conftest import STORES
from .conftest import Case, open_case

WRITES = (
    "INSERT INTO stores VALUES (99, 'Intruder', 'Ohio', 1)",
    "UPDATE stores SET state = 'Ohio'",
    "DELETE FROM stores",
    "CREATE TABLE intruder (x INTEGER)",
    "DROP TABLE sales",
)


def _store_count(case: Case) -> int:
    frame = case.adapter.execute("SELECT COUNT(*) AS n FROM stores", row_cap=1, timeout_s=10)
    return frame.table.to_pylist()[0]["n"]


def _refused(case: Case, sql: str) -> ResultError:
    with pytest.raises(ResultError) as info:
        case.adapter.execute(sql, row_cap=10, timeout_s=10)
    assert info.value.retryable is False
    assert "\n" not in info.value.safe_message
    return info.value


@pytest.mark.parametrize("sql", WRITES)
def test_writes_are_refused_by_the_session(case: Case, sql: str):
    assert _refused(case, sql).kind in ("read_only", "permission")
    assert _store_count(case) == len(STORES)


@pytest.fixture(scope="module")
def postgres(request: pytest.FixtureRequest) -> Iterator[Case]:
    opened = open_case(request, "postgres")
    yield opened
    opened.adapter.close()


@pytest.fixture(scope="module")
def mariadb(request: pytest.FixtureRequest) -> Iterator[Case]:
    opened = open_case(request, "mariadb")
    yield opened
    opened.adapter.close()


def test_postgres_refuses_a_second_statement_that_would_end_the_transaction(postgres: Case):
    case = postgres
    with pytest.raises(ResultError):
        case.adapter.execute("COMMIT; CREATE TABLE intruder (x INTEGER)", row_cap=1, timeout_s=10)
    _refused(case, "WITH gone AS (DELETE FROM stores RETURNING *) SELECT * FROM gone")
    assert _store_count(case) == len(STORES)


def test_mariadb_session_mode_cannot_be_switched_for_later_calls(mariadb: Case):
    case = mariadb
    # Accepted (it only changes the session default) but reset before every later call.
    case.adapter.execute("SET SESSION TRANSACTION READ WRITE", row_cap=1, timeout_s=10)
    error = _refused(case, "INSERT INTO stores VALUES (99, 'Intruder', 'Ohio', 1)")
    assert error.kind == "read_only" and "1792" in error.safe_message
    assert _store_count(case) == len(STORES)
