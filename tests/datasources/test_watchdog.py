"""The statement-timeout watchdog: one thread for every alarm, cancelled alarms never fire."""

from __future__ import annotations

import threading

from nl2sql.datasources.duckdb import DuckDBAdapter
from nl2sql.datasources.watchdog import Watchdog


def test_alarms_fire_in_order_and_cancelled_ones_never():
    dog = Watchdog()
    fired: list[str] = []
    done = threading.Event()
    dog.after(0.2, lambda: fired.append("late"))
    dog.after(0.0, lambda: fired.append("first"))
    dog.after(0.05, lambda: fired.append("cancelled")).cancel()
    dog.after(0.3, done.set)
    assert done.wait(30)
    assert fired == ["first", "late"]


def test_many_queries_start_no_thread_each(tmp_path):
    import duckdb

    path = tmp_path / "t.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE t AS SELECT range AS x FROM range(10)")
    con.close()
    adapter = DuckDBAdapter("t", path)
    try:
        adapter.execute("SELECT 1", timeout_s=30)
        before = threading.active_count()
        started = []
        original = threading.Thread.start

        def counting_start(self):
            started.append(self.name)
            original(self)

        threading.Thread.start = counting_start
        try:
            for _ in range(20):
                assert adapter.execute("SELECT count(*) FROM t", timeout_s=30).row_count == 1
        finally:
            threading.Thread.start = original
        assert started == []  # the watchdog thread already runs; no timer thread per query
        assert threading.active_count() <= before
    finally:
        adapter.close()
