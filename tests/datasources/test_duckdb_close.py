"""DuckDB: closing while a call of a timed-out run still runs must not raise.

A run that times out abandons its worker thread, whose DuckDB call may still be running; DuckDB
then refuses to close the connection ("connection is busy"), and `Session.close()` raised.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import duckdb
import pytest

import nl2sql
from nl2sql.datasources.base import ResultError
from nl2sql.datasources.duckdb import DuckDBAdapter

SLOW = "SELECT count(*) FROM range(100000000000) AS a(x) WHERE x % 7 = 3"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "slow.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE orders AS SELECT range AS order_id, range % 97 AS amount, "
                "'city ' || (range % 500) AS city FROM range(300000)")
    con.close()
    return path


def test_close_while_a_query_runs_interrupts_it_and_does_not_raise(db: Path) -> None:
    adapter = DuckDBAdapter("slow", db)
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            adapter.execute(SLOW, timeout_s=120)
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - recorded for the assertion
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    time.sleep(0.5)  # the query is running (it takes minutes uninterrupted)
    adapter.close()
    worker.join(timeout=30)
    assert not worker.is_alive(), "close() did not stop the running query"
    assert outcome and isinstance(outcome[0], ResultError)
    with pytest.raises(ResultError, match="closed"):
        adapter.execute("SELECT 1")


@pytest.mark.parametrize("timeout_s", [0.001, 0.05, 0.2, 0.5])
def test_session_close_after_a_timed_out_first_run(db: Path, tmp_path: Path, timeout_s: float) -> None:
    session = nl2sql.connect(sources={"slow": f"duckdb:///{db}"}, settings={"project_dir": tmp_path / "p"})
    result = session.ask("how many orders are there?", timeout_s=timeout_s)
    assert result.status in ("error", "success")
    session.close()  # raised ConnectionException when a call of the run was still running
