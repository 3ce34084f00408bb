"""The warm path: run workers, combining DuckDB and result tables live as long as the Session,
and a run hands its tables over in memory (the artifacts are still written for the record)."""

from __future__ import annotations

import threading

import pytest

import nl2sql
from nl2sql.demo import demo_sources
from nl2sql.pipeline.state import GraphState
from nl2sql.pipeline.trace import reducers_of

COMPARE = "For each region, compare the number of orders with the number of support tickets"


@pytest.fixture()
def session(demo_paths, tmp_path):
    opened = nl2sql.connect(sources=demo_sources(demo_paths), settings={"project_dir": tmp_path / "p"})
    yield opened
    opened.close()


def _run_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("nl2sql-run")]


def test_runs_reuse_the_sessions_worker(session):
    before = {t.ident for t in _run_threads()}
    for _ in range(3):
        assert session.ask("How many orders were placed in 2024?").status == "success"
    # one worker, kept between runs (a thread per run would have ended with each run)
    assert len({t.ident for t in _run_threads()} - before) == 1
    session.close()
    for thread in set(_run_threads()) - {t for t in threading.enumerate() if t.ident in before}:
        thread.join(30)  # the closed session's worker ends
        assert not thread.is_alive()


def test_reducers_are_resolved_once_per_model():
    assert reducers_of(GraphState) is reducers_of(GraphState)


def test_the_combine_reuses_the_sessions_duckdb(session):
    for _ in range(2):
        assert session.ask(COMPARE).status == "success"
    assert session.context.combiner.opened == 1


def test_in_memory_tables_hold_the_same_rows_as_the_artifacts(session, monkeypatch):
    result = session.ask(COMPARE)
    assert result.status == "success"
    refs = result.state.aggregator_response.terminal_results
    on_disk = {k: session.context.artifacts.read(r) for k, r in refs.items()}

    def no_reread(ref, **kw):
        raise AssertionError(f"re-read {ref.uri}")

    monkeypatch.setattr(session.context.artifacts, "read", no_reread)
    assert set(result.tables) == set(on_disk)
    for key, table in result.tables.items():
        assert table.equals(on_disk[key])


def test_a_run_without_the_table_in_memory_reads_the_artifact(session):
    from nl2sql.pipeline.runtime import RunOutcome
    from nl2sql.result import QueryResult

    result = session.ask(COMPARE)
    outcome = RunOutcome(result.state, result.trace, result.trace_final_node, 0.0)  # nothing held
    again = QueryResult(outcome, session, question=COMPARE, datasource=None, execute=True)
    assert {k: t.num_rows for k, t in again.tables.items()} == {
        k: t.num_rows for k, t in result.tables.items()}
