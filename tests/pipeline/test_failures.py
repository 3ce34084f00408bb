"""Failure paths of the graph, provoked for real through the public API."""

from __future__ import annotations

import nl2sql
from nl2sql.decomposition import CombineGroup, CombineInput, DecomposerResponse, JoinKey, SubQuery
from nl2sql.errors import ErrorCode
from nl2sql.plan import Aggregate, ColumnRef, PlanModel, SelectItem, TableRef
from tests.pipeline.scripted import FixedPlanner

FAST_RETRIES = {"sql_agent_retry_base_delay_sec": 0.0, "sql_agent_retry_jitter_sec": 0.0}


def _connect(sources, tmp_path, settings=None, **kw):
    return nl2sql.connect(sources=sources, settings={"project_dir": tmp_path / "p", **(settings or {})}, **kw)


def test_unknown_explicit_datasource_is_invalid_state(sources, tmp_path):
    result = _connect(sources, tmp_path).ask("How many orders are there?", datasource="nope")
    assert result.status == "error"
    assert result.errors[0].error_code == ErrorCode.INVALID_STATE
    assert "warehouse" in result.errors[0].message  # says what exists
    assert {n.name for n in result.trace.main_nodes()} == {"__root__", "datasource_resolver"}


def test_unanswerable_question_ends_before_the_decomposer(sources, tmp_path):
    result = _connect(sources, tmp_path).ask("What is the capital of France?")
    assert result.status == "not_answerable"
    assert result.errors[0].error_code == ErrorCode.QUESTION_NOT_ANSWERABLE
    assert "decomposer" not in {n.name for n in result.trace.nodes}


def test_several_datasources_without_a_vector_store_fail_retrieval(sources, tmp_path):
    session = _connect(sources, tmp_path)
    session.context.vector_store_factory = None
    result = session.ask("How many orders are there?")
    assert result.errors[0].error_code == ErrorCode.SCHEMA_RETRIEVAL_FAILED


def test_unknown_column_in_a_plan_is_refused_and_retried_then_reported(sources, tmp_path):
    bad = PlanModel(tables=[TableRef(name="orders", alias="o")],
                    select=[SelectItem(expr=ColumnRef(table="o", name="order_total"))])
    planner = FixedPlanner(bad)
    session = _connect({"warehouse": sources["warehouse"]}, tmp_path, models={"ast_planner": planner},
                       settings={"sql_agent_max_retries": 2, **FAST_RETRIES})
    result = session.ask("Show order totals")
    assert result.status == "error"
    codes = [e.error_code for e in result.errors]
    assert ErrorCode.COLUMN_NOT_FOUND in codes
    assert planner.calls == 3  # the first attempt and two retries
    out = result.sub_queries[0]
    assert out.status == "error" and out.retry_count == 2 and out.sql_draft is None
    assert "executor" not in {n.name for n in result.trace.nodes}


class _Decomposer:
    def __init__(self, response):
        self.response = response

    def decompose(self, request):
        return self.response


def test_join_group_with_one_input_is_planner_failed_before_any_scan(sources, tmp_path):
    sq = SubQuery(id="sq_a", datasource_id="warehouse", intent="orders")
    response = DecomposerResponse(
        sub_queries=[sq],
        combine_groups=[CombineGroup(group_id="g", operation="join",
                                     inputs=[CombineInput(subquery_id="sq_a")],
                                     join_keys=[JoinKey(left="x", right="x")])],
    )
    session = _connect({"warehouse": sources["warehouse"]}, tmp_path, models={"decomposer": _Decomposer(response)})
    result = session.ask("How many orders are there?")
    assert result.errors[0].error_code == ErrorCode.PLANNER_FAILED
    assert not result.sub_queries  # no scan ran


class _Crashing:
    def decompose(self, request):
        raise RuntimeError("model exploded")


def test_decomposer_crash_is_orchestrator_crash(sources, tmp_path):
    session = _connect({"warehouse": sources["warehouse"]}, tmp_path, models={"decomposer": _Crashing()})
    result = session.ask("How many orders are there?")
    err = result.errors[0]
    assert err.error_code == ErrorCode.ORCHESTRATOR_CRASH and err.severity.value == "critical"
    assert "Traceback" not in err.message and "trace" in err.details


def test_missing_model_for_a_node_is_missing_llm(sources, tmp_path):
    session = _connect({"warehouse": sources["warehouse"]}, tmp_path, models={"decomposer": None})
    result = session.ask("How many orders are there?")
    assert result.errors[0].error_code == ErrorCode.MISSING_LLM


def test_database_rejection_is_retryable_execution_failed(sources, tmp_path):
    # A plan the validator accepts but the database rejects: SUM over a text column in DuckDB.
    plan = PlanModel(tables=[TableRef(name="orders", alias="o")],
                     select=[SelectItem(expr=Aggregate(func="sum", arg=ColumnRef(table="o", name="status")))])
    session = _connect({"warehouse": sources["warehouse"]}, tmp_path, models={"ast_planner": FixedPlanner(plan)},
                       settings={"sql_agent_max_retries": 1, **FAST_RETRIES})
    result = session.ask("Sum of statuses")
    failures = [e for e in result.errors if e.error_code == ErrorCode.EXECUTION_FAILED]
    assert len(failures) == 2 and all(e.retryable for e in failures)  # retried once
    assert all("SELECT" not in e.message for e in failures)  # a safe one-line message
