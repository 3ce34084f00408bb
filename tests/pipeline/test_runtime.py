"""run_with_graph: a real timeout, per-run cancellation, execute=False, no user context."""

from __future__ import annotations

import threading
import time

import pytest

import nl2sql
from nl2sql.context import CancelToken
from nl2sql.errors import ErrorCode
from nl2sql.pipeline.state import GraphState
from tests.pipeline.scripted import FixedPlanner, slow_cross_join_plan

QUESTION = "How many order items are there?"


def _session(sources, tmp_path, **models):
    return nl2sql.connect(sources={"warehouse": sources["warehouse"]}, models=models or None,
                          settings={"project_dir": tmp_path / "p"})


def test_timeout_returns_pipeline_timeout_while_a_slow_query_is_in_flight(sources, tmp_path):
    session = _session(sources, tmp_path, ast_planner=FixedPlanner(slow_cross_join_plan()))
    session.ask(QUESTION, execute=False)  # warm: graph built, schema read, modules imported
    started = time.monotonic()
    result = session.ask(QUESTION, timeout_s=1.0)
    elapsed = time.monotonic() - started
    assert result.status == "error"
    assert result.errors[-1].error_code == ErrorCode.PIPELINE_TIMEOUT
    assert elapsed < 1.0 + 0.75  # it fired at the timeout, not when the query finished (minutes)


def test_cancelled_run_stops_before_the_next_node(sources, tmp_path):
    planner = FixedPlanner(slow_cross_join_plan(), delay_s=0.3)
    session = _session(sources, tmp_path, ast_planner=planner)
    token = CancelToken()
    threading.Timer(0.1, token.cancel).start()
    result = session.ask(QUESTION, cancel_token=token, timeout_s=20)
    codes = [e.error_code for e in result.errors]
    assert ErrorCode.CANCELLED in codes
    assert all(o.sql_draft is None for o in result.sub_queries)  # the generator never ran
    assert "executor" not in {n.name for n in result.trace.nodes}


def test_cancelling_one_run_does_not_touch_another(sources, tmp_path):
    session = _session(sources, tmp_path)
    token = CancelToken()
    token.cancel()
    cancelled = session.ask(QUESTION, cancel_token=token)
    fine = session.ask(QUESTION)
    assert cancelled.errors[-1].error_code == ErrorCode.CANCELLED
    assert fine.status == "success", [e.one_line() for e in fine.errors]


def test_concurrent_runs_in_one_process_keep_their_own_results(sources, tmp_path):
    session = _session(sources, tmp_path)
    questions = ["How many orders are there?", "How many customers are there?",
                 "How many products are there?", "How many stores are there?"]
    results: dict[str, object] = {}

    def ask(q):
        results[q] = session.ask(q)

    threads = [threading.Thread(target=ask, args=(q,)) for q in questions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    adapter = session.context.datasources["warehouse"]
    for q, table in zip(questions, ["orders", "customers", "products", "stores"], strict=True):
        expected = adapter.execute(f'SELECT COUNT(*) FROM "{table}"', row_cap=1, timeout_s=5).table.column(0)[0].as_py()
        assert results[q].table().column(0)[0].as_py() == expected, q


def test_execute_false_plans_and_generates_but_runs_nothing(sources, tmp_path):
    session = _session(sources, tmp_path)
    result = session.ask(QUESTION, execute=False)
    assert result.status == "success"
    assert result.sql and "order_items" in result.sql
    names = {n.name for n in result.trace.nodes}
    assert "executor" not in names and "aggregator" not in names and "answer_synthesizer" not in names
    assert result.table() is None and result.answer is None
    assert not any(o.artifact for o in result.sub_queries)


def test_no_user_context_works(sources, tmp_path):
    session = _session(sources, tmp_path)
    result = session.ask(QUESTION, user=None)
    assert result.status == "success"


def test_trace_rebuilds_the_final_state_exactly(sources, tmp_path):
    session = _session(sources, tmp_path)
    result = session.ask(QUESTION)
    rebuilt = result.trace.state_at(result.trace_final_node)
    final = result.state.model_dump()
    assert GraphState.model_validate(rebuilt).model_dump() == final


@pytest.mark.parametrize("bad", ["", "   "])
def test_empty_question_is_a_clear_error(sources, tmp_path, bad):
    session = _session(sources, tmp_path)
    with pytest.raises(ValueError, match="empty"):
        session.ask(bad)


def _long_question(chars: int) -> str:
    words = "show the total amount by region for each customer with orders over ten in spring".split()
    text = " ".join(words[i % len(words)] for i in range(chars // 4))
    return text[:chars]


def _run_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("nl2sql-run-")]


def test_timed_out_offline_engine_stops_computing_soon_after_the_deadline(sources, tmp_path):
    session = nl2sql.connect(sources={"warehouse": sources["warehouse"]},
                             settings={"project_dir": tmp_path / "p", "max_question_chars": 200_000})
    session.ask(QUESTION)  # warm: graph built, schema read, modules imported
    before = set(_run_threads())
    result = session.ask(_long_question(100_000), timeout_s=1.0)
    assert result.errors[-1].error_code == ErrorCode.PIPELINE_TIMEOUT
    # The engine's loops see the cancelled token: the worker ends, it does not compute for minutes.
    deadline = time.monotonic() + 5.0
    while set(_run_threads()) - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not set(_run_threads()) - before, "the timed-out run kept computing"


def test_a_question_over_the_length_limit_is_refused_in_one_line(sources, tmp_path):
    session = nl2sql.connect(sources={"warehouse": sources["warehouse"]},
                             settings={"project_dir": tmp_path / "p", "max_question_chars": 50})
    with pytest.raises(ValueError, match="limit is 50 .setting max_question_chars") as info:
        session.ask(_long_question(51))
    assert "\n" not in str(info.value)
    assert session.ask(_long_question(50), execute=False) is not None  # at the limit: runs


@pytest.mark.parametrize("placeholder", ["root", "tenant_id", "request_id", "sub_query_id",
                                         "dag_node_id", "subgraph_name", "schema_version"])
def test_every_documented_artifact_placeholder_works_in_a_run(sources, tmp_path, placeholder):
    from nl2sql.execution.artifacts import PLACEHOLDERS

    assert placeholder in PLACEHOLDERS
    template = "{root}" + ("" if placeholder == "root" else "/{" + placeholder + "}") + "/result.parquet"
    session = nl2sql.connect(sources=sources, settings={"project_dir": tmp_path / "p",
                                                        "artifact_path_template": template})
    # Two sources combined: the scans' and the aggregator's writes both fill the template.
    result = session.ask("For each region, compare the number of orders with the number of support tickets")
    assert result.status == "success", [e.one_line() for e in result.errors]
    assert result.table() is not None and result.table().num_rows > 0
    for out in result.sub_queries:
        assert out.artifact is not None
        assert session.context.artifacts.read(out.artifact).num_rows > 0


def test_langchain_callbacks_see_the_graph_run(sources, tmp_path):
    from langchain_core.callbacks import BaseCallbackHandler

    class Recorder(BaseCallbackHandler):
        def __init__(self):
            self.started: list[str] = []

        def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kwargs):
            self.started.append(kwargs.get("name") or (serialized or {}).get("name", ""))

    recorder = Recorder()
    session = _session(sources, tmp_path)
    result = session.ask(QUESTION, callbacks=[recorder])
    assert result.status == "success"
    for node in ("datasource_resolver", "decomposer", "ast_planner", "executor", "aggregator"):
        assert node in recorder.started, recorder.started
    assert session.ask(QUESTION).status == "success"  # a run without callbacks is unchanged


class _UnreachableCurated:
    """Curated answers whose index cannot be searched (the vector store is down)."""

    configured = True

    def answers(self):
        return []

    def match(self, question, datasources, values=None):
        from nl2sql.retrieval.breaker import VectorStoreError

        raise VectorStoreError("the vector store does not answer")


def test_curated_matching_without_a_vector_store_is_a_warning(sources, tmp_path):
    session = _session(sources, tmp_path)
    session.governance.curated = _UnreachableCurated()
    result = session.ask(QUESTION)
    assert result.status == "success", [e.one_line() for e in result.errors]
    assert [w.code for w in result.warnings if w.node == "curated_matcher"] == [
        ErrorCode.VECTOR_STORE_UNAVAILABLE.value]


class _CountingEngine:
    """The offline engine, counting each skill's calls."""

    def __init__(self):
        from collections import Counter

        from nl2sql.reasoning.offline.engine import OfflineEngine

        self.engine = OfflineEngine()
        self.calls: Counter = Counter()

    def __getattr__(self, name):
        method = getattr(self.engine, name)

        def call(request):
            self.calls[name] += 1
            return method(request)

        return call


COMPARE = "For each region, compare the number of orders with the number of support tickets"


def test_rerun_from_a_trace_node_continues_the_graph_from_its_state(sources, tmp_path):
    from nl2sql.reasoning.registry import MODEL_NODES

    engine = _CountingEngine()
    session = nl2sql.connect(sources=sources, settings={"project_dir": tmp_path / "p"},
                             models=dict.fromkeys(MODEL_NODES, engine))
    first = session.ask(COMPARE)
    assert first.status == "success"
    decomposer = next(n.id for n in first.trace.main_nodes() if n.name == "decomposer")
    before = dict(engine.calls)
    again = first.rerun_from(decomposer)
    assert again.status == "success", [e.one_line() for e in again.errors]
    # The nodes after the decomposer ran again; the resolver and the decomposer did not.
    assert engine.calls["decompose"] == before["decompose"]
    assert engine.calls["check_answerability"] == before["check_answerability"]
    assert engine.calls["plan"] == before["plan"] + 2
    names = [n.name for n in again.trace.main_nodes()]
    assert names[:2] == ["__root__", "layer_router"] and "decomposer" not in names
    assert again.to_pandas().equals(first.to_pandas()) and again.answer == first.answer
    assert again.state.trace_id != first.state.trace_id
    assert first.table() is not None  # the first result's artifacts were not overwritten
    # From the merge after the scans: only aggregation and the answer run again.
    merge = next(n.id for n in first.trace.main_nodes() if n.name == "__merge__")
    plans = engine.calls["plan"]
    tail = session.rerun_from(first, merge)
    assert [n.name for n in tail.trace.main_nodes()][1:] == ["layer_router", "aggregator", "answer_synthesizer"]
    assert engine.calls["plan"] == plans and tail.answer == first.answer


def test_rerun_from_inside_a_sub_query_is_a_clear_error(sources, tmp_path):
    session = _session(sources, tmp_path)
    result = session.ask(QUESTION)
    inner = next(n.id for n in result.trace.nodes if n.namespace)
    with pytest.raises(ValueError, match="inside a sub-query's run"):
        result.rerun_from(inner)
    with pytest.raises(ValueError, match="no trace node"):
        result.rerun_from(len(result.trace.nodes))
