"""A slow view must not delay a session: its statistics run the view's query, so they get a
short budget (and none past the run's deadline); the view is still described, without samples."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

import nl2sql
from nl2sql.datasources.introspection import TABLE_STATS_BUDGET_S, VIEW_STATS_BUDGET_S

SLEEP_S = 30  # far beyond any bound below: a session that waits for it fails the test


@pytest.fixture
def slow_view_url(postgres_url: str) -> Iterator[str]:
    """A schema with a small table and a view that sleeps SLEEP_S seconds per row it reads."""
    schema = f"nl2sql_slowview_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(postgres_url, isolation_level="AUTOCOMMIT", poolclass=sa.NullPool)
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        conn.exec_driver_sql(
            f'CREATE TABLE "{schema}".tickets (ticket_id int PRIMARY KEY, priority text)'
        )
        conn.exec_driver_sql(
            f"INSERT INTO \"{schema}\".tickets VALUES (1, 'high'), (2, 'low'), (3, 'low')"
        )
        conn.exec_driver_sql(
            f'CREATE VIEW "{schema}".slow_summary AS SELECT priority, '
            f"pg_sleep({SLEEP_S})::text AS waited FROM \"{schema}\".tickets"
        )
    scoped = sa.make_url(postgres_url).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield scoped.render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


def test_a_slow_view_costs_a_new_session_at_most_its_short_budget(slow_view_url, tmp_path):
    assert VIEW_STATS_BUDGET_S * 3 < TABLE_STATS_BUDGET_S
    started = time.monotonic()
    with nl2sql.connect(
        sources={"ops": slow_view_url}, models="offline", settings={"project_dir": tmp_path}
    ) as session:
        result = session.ask("How many tickets are there per priority?", timeout_s=60)
        elapsed = time.monotonic() - started
        snapshot = session.schema("ops")
    assert result.status == "success", [e.one_line() for e in result.errors]
    assert sorted(map(tuple, result.to_pandas().itertuples(index=False))) == [("high", 1), ("low", 2)]
    # Old code: the view's statistics query alone waited the 10 s introspection timeout.
    assert elapsed < TABLE_STATS_BUDGET_S - 1, f"the session waited {elapsed:.1f}s for the view"
    view = snapshot.table("slow_summary")
    assert view is not None and view.kind == "view"
    assert all(not c.samples and c.distinct_count is None for c in view.columns)
    table = snapshot.table("tickets")
    priority = next(c for c in table.columns if c.name == "priority")
    assert sorted(priority.samples) == ["high", "low"]  # tables keep their statistics


def test_view_statistics_end_by_the_run_deadline(slow_view_url, tmp_path, monkeypatch):
    import nl2sql.datasources.introspection as introspect

    # A generous view budget: the run's own 3 s deadline must be what stops the statistics.
    monkeypatch.setattr(introspect, "VIEW_STATS_BUDGET_S", 25.0)
    started = time.monotonic()
    with nl2sql.connect(
        sources={"ops": slow_view_url}, models="offline", settings={"project_dir": tmp_path}
    ) as session:
        result = session.ask("How many tickets are there per priority?", timeout_s=3)
        elapsed = time.monotonic() - started
    assert result.status in ("error", "success")
    assert elapsed < 8, f"the run took {elapsed:.1f}s, past its 3 s deadline"
