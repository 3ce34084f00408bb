"""The fault-injection suite: one test per row of docs/failure_recovery.md.

Each failure is provoked for real — a database that refuses or times out, a file removed
mid-run, a scripted model that returns garbage or raises, a cancelled token — through the public
API, with no patching of the code under test.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

import nl2sql
from nl2sql.decomposition import CombineGroup, CombineInput, DecomposerResponse, SubQuery
from nl2sql.errors import ConfigError, ErrorCode, ErrorSeverity
from nl2sql.plan import (
    Aggregate,
    ColumnRef,
    PlanModel,
    SelectItem,
    TableRef,
)
from nl2sql.reasoning.base import ASTPlannerResponse
from nl2sql.reasoning.offline.engine import OfflineEngine
from tests.pipeline.scripted import FixedPlanner, slow_cross_join_plan

FAST = {"sql_agent_retry_base_delay_sec": 0.0, "sql_agent_retry_jitter_sec": 0.0}


def _connect(paths, tmp_path, only=None, settings=None, **kw):
    sources = {k: v for k, v in nl2sql_sources(paths).items() if only is None or k in only}
    return nl2sql.connect(sources=sources, settings={"project_dir": tmp_path / "p", **FAST, **(settings or {})}, **kw)


def nl2sql_sources(paths):
    from nl2sql.demo import demo_sources

    return demo_sources(paths)


def _codes(result):
    return [e.error_code for e in result.errors]


class Scripted:
    """A skill object answering one node with a fixed value (or raising it)."""

    def __init__(self, value):
        self.value = value
        self.calls = 0

    def _answer(self, request):
        self.calls += 1
        if isinstance(self.value, BaseException):
            raise self.value
        return self.value

    decompose = plan = check_answerability = synthesize = refine = _answer


def _plan(select, table="orders", **kw) -> PlanModel:
    return PlanModel(tables=[TableRef(name=table, alias="t")], select=select, **kw)


# --- input and configuration -----------------------------------------------------------------

def test_config_error_at_construction(tmp_path):
    (tmp_path / "nl2sql.toml").write_text('[sources.db]\nurl = "${NL2SQL_SURELY_UNSET_VAR}"\n')
    with pytest.raises(ConfigError, match="NL2SQL_SURELY_UNSET_VAR"):
        nl2sql.connect(config=tmp_path / "nl2sql.toml")


def test_unknown_explicit_datasource(demo_paths, tmp_path):
    result = _connect(demo_paths, tmp_path).ask("How many orders are there?", datasource="ledger")
    assert _codes(result) == [ErrorCode.INVALID_STATE] and result.status == "error"


def test_missing_llm(demo_paths, tmp_path):
    result = _connect(demo_paths, tmp_path, models={"ast_planner": None}).ask("How many orders are there?")
    assert ErrorCode.MISSING_LLM in _codes(result)
    assert result.sub_queries[0].retry_count == 0  # fatal: never retried


# --- retrieval and resolution ----------------------------------------------------------------

def test_no_vector_store_with_several_datasources(demo_paths, tmp_path):
    session = _connect(demo_paths, tmp_path)
    session.context.vector_store_factory = None
    assert _codes(session.ask("How many orders are there?")) == [ErrorCode.SCHEMA_RETRIEVAL_FAILED]


def test_vector_breaker_opens_after_repeated_failures(demo_paths, tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "chroma").write_text("not a folder")  # the store cannot open, for real
    session = _connect(demo_paths, tmp_path, settings={"exact_search_max_tables": 0})
    for _ in range(3):
        result = session.ask("How many orders are there?")
        assert _codes(result) == [ErrorCode.SCHEMA_RETRIEVAL_FAILED]
    assert session.context.vector_breaker.state == "open"
    result = session.ask("How many orders are there?")
    assert "open" in result.errors[0].message.lower()  # failed fast, without touching the store


def test_question_not_answerable_ends_before_decomposer(demo_paths, tmp_path):
    result = _connect(demo_paths, tmp_path).ask("What is the weather today?")
    assert result.status == "not_answerable"
    assert "decomposer" not in {n.name for n in result.trace.nodes}


# --- planning --------------------------------------------------------------------------------

def test_decomposer_crash_is_orchestrator_crash(demo_paths, tmp_path):
    bad = Scripted(ValueError("model returned garbage"))
    result = _connect(demo_paths, tmp_path, only={"warehouse"}, models={"decomposer": bad}).ask("How many orders?")
    assert _codes(result) == [ErrorCode.ORCHESTRATOR_CRASH]
    assert result.errors[0].severity == ErrorSeverity.CRITICAL and "trace" in result.errors[0].details


def test_empty_decomposition_is_planner_failed(demo_paths, tmp_path):
    empty = Scripted(DecomposerResponse())
    result = _connect(demo_paths, tmp_path, only={"warehouse"}, models={"decomposer": empty}).ask("How many orders?")
    assert _codes(result) == [ErrorCode.PLANNER_FAILED] and not result.sub_queries


def test_compare_group_with_one_input_is_planner_failed(demo_paths, tmp_path):
    one = Scripted(DecomposerResponse(
        sub_queries=[SubQuery(id="sq_1", datasource_id="warehouse", intent="orders")],
        combine_groups=[CombineGroup(group_id="g", operation="compare", inputs=[CombineInput(subquery_id="sq_1")])],
    ))
    result = _connect(demo_paths, tmp_path, only={"warehouse"}, models={"decomposer": one}).ask("How many orders?")
    assert _codes(result) == [ErrorCode.PLANNER_FAILED] and not result.sub_queries


def test_planner_refusal_is_planning_failure(demo_paths, tmp_path):
    refusing = Scripted(ASTPlannerResponse(plan=None, confidence=0.0, reasoning="could not parse 'sideways'"))
    result = _connect(demo_paths, tmp_path, only={"warehouse"}, models={"ast_planner": refusing}).ask("orders sideways")
    assert ErrorCode.PLANNING_FAILURE in _codes(result)
    assert "sideways" in result.errors[0].message and refusing.calls == 1


# --- validation ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "plan, code",
    [
        (_plan([SelectItem(expr=Aggregate(func="count"))], table="invoices"), ErrorCode.TABLE_NOT_FOUND),
        (_plan([SelectItem(expr=ColumnRef(table="t", name="total_amount"))]), ErrorCode.COLUMN_NOT_FOUND),
        (_plan([SelectItem(expr=ColumnRef(table="t", name="status")), SelectItem(expr=Aggregate(func="count"))]),
         ErrorCode.INVALID_PLAN_STRUCTURE),
    ],
    ids=["table", "column", "structure"],
)
def test_validation_findings_are_retried_then_reported(demo_paths, tmp_path, plan, code):
    planner = FixedPlanner(plan)
    session = _connect(demo_paths, tmp_path, only={"warehouse"}, models={"ast_planner": planner},
                       settings={"sql_agent_max_retries": 1})
    result = session.ask("How many orders are there?")
    assert code in _codes(result) and result.status == "error"
    assert planner.calls == 2  # retried once through the refiner
    assert result.sub_queries[0].sql_draft is None  # never reached the generator


# --- generation and execution ----------------------------------------------------------------

class _Dialect:
    """A datasource that reports a dialect sqlglot does not know (e.g. an exotic SQLAlchemy one)."""

    def __init__(self, inner, dialect):
        self._inner, self.dialect = inner, dialect

    def __getattr__(self, name):
        return getattr(self._inner, name)


def test_sql_generation_failure(demo_paths, tmp_path):
    session = _connect(demo_paths, tmp_path, only={"warehouse"})
    session.context.datasources["warehouse"] = _Dialect(session.context.datasources["warehouse"], "informix")
    result = session.ask("How many orders are there?")
    assert _codes(result) == [ErrorCode.SQL_GEN_FAILED]
    assert "informix" in result.errors[0].message


def test_database_rejects_query_retryable_execution_failed(demo_paths, tmp_path):
    plan = _plan([SelectItem(expr=Aggregate(func="sum", arg=ColumnRef(table="t", name="status")))])
    planner = FixedPlanner(plan)
    session = _connect(demo_paths, tmp_path, only={"warehouse"}, models={"ast_planner": planner},
                       settings={"sql_agent_max_retries": 1})
    result = session.ask("How many orders are there?")
    failures = [e for e in result.errors if e.error_code == ErrorCode.EXECUTION_FAILED]
    assert len(failures) == 2 and planner.calls == 2
    assert all("\n" not in e.message and "SELECT" not in e.message for e in failures)


def test_statement_timeout_is_fatal_db_execution_error(demo_paths, tmp_path):
    planner = FixedPlanner(slow_cross_join_plan())
    session = _connect(demo_paths, tmp_path, only={"warehouse"}, models={"ast_planner": planner},
                       settings={"statement_timeout_s": 0.5})
    result = session.ask("How many orders are there?")
    assert _codes(result) == [ErrorCode.DB_EXECUTION_ERROR]
    assert planner.calls == 1  # a refusal is not retried
    assert "SELECT" not in result.errors[0].message


def test_missing_sql_is_added_when_no_error_was_blocking():
    from nl2sql.errors import error
    from nl2sql.pipeline.state import SubgraphExecutionState
    from nl2sql.pipeline.subgraphs.boundary import report

    warning = error("logical_validator", ErrorCode.COLUMN_NOT_FOUND, "maybe",
                    severity=ErrorSeverity.WARNING, attempt=0)
    final = SubgraphExecutionState(trace_id="t", subgraph_id="sql_agent:sq",
                                   sub_query=SubQuery(id="sq", datasource_id="w", intent="x"), errors=[warning])
    delta = report(final, execute=True)
    assert [e.error_code for e in delta["errors"]] == [ErrorCode.COLUMN_NOT_FOUND, ErrorCode.MISSING_SQL]
    assert delta["subgraph_outputs"]["sql_agent:sq"].status == "error"


# --- aggregation -----------------------------------------------------------------------------

def _two_standalone(demo_paths, tmp_path, **settings):
    response = DecomposerResponse(sub_queries=[
        SubQuery(id="sq_orders", datasource_id="warehouse", intent="How many orders are there?"),
        SubQuery(id="sq_tickets", datasource_id="crm", intent="How many support tickets are there?"),
    ])
    return _connect(demo_paths, tmp_path, models={"decomposer": Scripted(response)}, settings=settings)


def _ask_removing_the_crm_artifact(session, tmp_path):
    """Ask the two-source question, deleting the crm scan's artifact as the aggregator starts."""
    removed = []

    def remove_crm_artifact(event):
        if event == {"event": "start", "node": "aggregator"}:
            for path in Path(tmp_path / "p" / "artifacts").rglob("sq_tickets*.parquet"):
                os.remove(path)
                removed.append(path)

    return session.ask("orders and tickets", on_event=remove_crm_artifact), removed


class _Forgetful(dict):
    """A run's in-memory results that never hold the tickets' table: the aggregator must read
    that artifact from its file."""

    def __setitem__(self, uri, table):
        if "sq_tickets" not in uri:
            super().__setitem__(uri, table)


def test_artifact_removed_mid_run_is_not_needed_while_the_run_holds_it(demo_paths, tmp_path):
    session = _two_standalone(demo_paths, tmp_path)
    result, removed = _ask_removing_the_crm_artifact(session, tmp_path)
    assert removed
    assert result.status == "success"  # the run handed its tables over in memory
    assert sorted(result.tables) == ["combine:sq_orders", "combine:sq_tickets"]


def test_artifact_removed_mid_run_fails_only_its_group(demo_paths, tmp_path, monkeypatch):
    from nl2sql.context import NL2SQLContext

    for_run = NL2SQLContext.for_run
    monkeypatch.setattr(NL2SQLContext, "for_run", lambda self, *a, **k: dataclasses.replace(
        for_run(self, *a, **k), results=_Forgetful()))
    session = _two_standalone(demo_paths, tmp_path)
    result, removed = _ask_removing_the_crm_artifact(session, tmp_path)
    assert removed
    assert _codes(result) == [ErrorCode.AGGREGATOR_FAILED]
    assert list(result.tables) == ["combine:sq_orders"]  # the other group still aggregated
    assert result.answer is None  # no answer is written over a failed aggregation


def test_capped_compare_input_is_result_truncated_error(demo_paths, tmp_path):
    session = _connect(demo_paths, tmp_path, settings={"row_cap": 2})
    result = session.ask("For each region, compare the number of orders with the number of support tickets")
    assert ErrorCode.RESULT_TRUNCATED in _codes(result) and result.status == "error"


def test_capped_union_input_is_a_warning(demo_paths, tmp_path):
    response = DecomposerResponse(
        sub_queries=[SubQuery(id="sq_a", datasource_id="warehouse", intent="List the names of all regions"),
                     SubQuery(id="sq_b", datasource_id="crm", intent="List the regions of all accounts")],
        combine_groups=[CombineGroup(group_id="u", operation="union",
                                     inputs=[CombineInput(subquery_id="sq_a"), CombineInput(subquery_id="sq_b")])],
    )
    session = _connect(demo_paths, tmp_path, models={"decomposer": Scripted(response)}, settings={"row_cap": 3})
    result = session.ask("all region names")
    assert result.status == "success", [e.one_line() for e in result.errors]
    assert "RESULT_TRUNCATED" in [w.code for w in result.warnings]


# --- runtime ---------------------------------------------------------------------------------

def test_no_compatible_subgraph_is_unwrapped_unchanged(demo_paths, tmp_path):
    from nl2sql.datasources.base import Capabilities

    session = _connect(demo_paths, tmp_path, only={"warehouse"})
    session.context.datasources["warehouse"].capabilities = Capabilities(names=frozenset({"documents"}))
    result = session.ask("How many orders are there?")
    err = result.errors[-1]
    assert err.error_code == ErrorCode.INVALID_STATE and err.node == "layer_router"
    assert err.severity == ErrorSeverity.CRITICAL


class _BrokenCatalog:
    """A datasource whose catalog read fails with an unexpected exception."""

    def __init__(self, inner):
        self._inner = inner

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def fetch_schema(self):
        raise RuntimeError("catalog unavailable")


def test_unexpected_exception_is_unknown_error_with_trace_in_details(demo_paths, tmp_path):
    session = _connect(demo_paths, tmp_path, only={"warehouse"})
    session.context.datasources["warehouse"] = _BrokenCatalog(session.context.datasources["warehouse"])
    result = session.ask("How many orders are there?")
    err = result.errors[-1]
    assert err.error_code == ErrorCode.UNKNOWN_ERROR and "catalog unavailable" in err.message
    assert "Traceback" in err.details["trace"] and "Traceback" not in err.message


# --- recovery --------------------------------------------------------------------------------

def test_misspelled_value_is_repaired_after_one_refinement(demo_paths, tmp_path):
    session = _connect(demo_paths, tmp_path)
    result = session.ask("How many customers are in Californa?")
    adapter = session.context.datasources["warehouse"]
    expected = adapter.execute("SELECT COUNT(*) FROM customers WHERE state = 'California'",
                               row_cap=1, timeout_s=5).table.column(0)[0].as_py()
    assert result.status == "success" and result.table().column(0)[0].as_py() == expected > 0
    assert result.sub_queries[0].retry_count == 1
    warning = next(w for w in result.warnings if w.code == "VALUE_NOT_FOUND")
    assert warning.detail["recovered"] is True and warning.sub_query_id == result.sub_queries[0].sub_query.id


class _ForgetsDistinct:
    """A planner that counts joined rows on its first attempt (as a careless model might), then
    defers to the offline engine, which reads the refiner's hint."""

    def __init__(self):
        self.engine = OfflineEngine()
        self.calls = 0

    def plan(self, request):
        self.calls += 1
        response = self.engine.plan(request)
        if self.calls > 1 or response.plan is None:
            return response
        select = [SelectItem(expr=Aggregate(func="count"), alias=i.alias) for i in response.plan.select]
        return response.model_copy(update={"plan": response.plan.model_copy(update={"select": select})})


def test_join_fan_out_is_repaired_after_one_refinement(demo_paths, tmp_path):
    planner = _ForgetsDistinct()
    session = _connect(demo_paths, tmp_path, only={"warehouse"}, models={"ast_planner": planner})
    question = "How many orders contain products in the Electronics category?"
    result = session.ask(question)
    adapter = session.context.datasources["warehouse"]
    expected = adapter.execute(
        "SELECT COUNT(DISTINCT o.order_id) FROM orders o JOIN order_items i ON i.order_id = o.order_id "
        "JOIN products p ON p.product_id = i.product_id WHERE p.category = 'Electronics'",
        row_cap=1, timeout_s=5).table.column(0)[0].as_py()
    assert result.status == "success" and planner.calls == 2
    assert result.table().column(0)[0].as_py() == expected
    assert "JOIN_FAN_OUT" in [w.code for w in result.warnings]


def test_disallowed_explicit_datasource_is_security_violation(demo_paths, tmp_path):
    config = tmp_path / "nl2sql.toml"
    config.write_text(
        f'[sources.warehouse]\npath = "{demo_paths.warehouse}"\n'
        f'[sources.crm]\npath = "{demo_paths.crm}"\n'
        '[policies.roles.analyst.datasources.warehouse]\ntables = "*"\n'
    )
    session = nl2sql.connect(config=config, user=nl2sql.UserContext(roles=("analyst",)),
                             settings={"project_dir": tmp_path / "p"})
    result = session.ask("How many support tickets are there?", datasource="crm")
    assert _codes(result) == [ErrorCode.SECURITY_VIOLATION] and result.table() is None
    assert result.errors[0].severity == ErrorSeverity.CRITICAL


# --- artifacts -------------------------------------------------------------------------------

COMPARE = "For each region, compare the number of orders with the number of support tickets"


def test_artifact_write_failure_fails_only_its_sub_query(demo_paths, tmp_path):
    # Each source's artifacts go to a folder named by its schema version; a file where the crm
    # folder should be makes that write fail for real (as a full disk or read-only folder does).
    template = "{root}/{schema_version}/{request_id}-{sub_query_id}.parquet"
    session = _connect(demo_paths, tmp_path, settings={"artifact_path_template": template})
    blocker = session.context.artifacts.root / session.schema("crm").fingerprint
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_text("not a folder")
    result = session.ask(COMPARE)
    by_source = {o.sub_query.datasource_id: o for o in result.sub_queries}
    assert ErrorCode.UNKNOWN_ERROR not in _codes(result)
    assert result.status == "error"
    failed = [e for e in result.errors if e.error_code == ErrorCode.ARTIFACT_WRITE_FAILED]
    assert len(failed) == 1 and failed[0].sub_query_id == by_source["crm"].sub_query.id
    assert by_source["crm"].status == "error" and by_source["crm"].artifact is None
    # The other source's finished result is kept, readable, in the result.
    kept = by_source["warehouse"]
    assert kept.status == "success" and kept.artifact is not None
    assert session.context.artifacts.read(kept.artifact).num_rows > 0


# --- codes of refusals ---------------------------------------------------------------------------

def test_sub_query_without_a_datasource_is_missing_datasource_id(demo_paths, tmp_path):
    unnamed = Scripted(DecomposerResponse(
        sub_queries=[SubQuery(id="sq_1", datasource_id=" ", intent="How many orders are there?")]))
    session = _connect(demo_paths, tmp_path, only={"warehouse"}, models={"decomposer": unnamed})
    result = session.ask("How many orders?")
    assert _codes(result) == [ErrorCode.MISSING_DATASOURCE_ID] and result.status == "error"
    assert "sq_1" in result.errors[0].message and not result.sub_queries  # nothing ran


@pytest.mark.parametrize(("sql", "code"), [
    ("SELECT COUNT(*) FROM orders; DROP TABLE orders", ErrorCode.SQL_GUARD_REFUSED),
    ("SELECT * FROM read_csv('elsewhere.csv')", ErrorCode.SQL_GUARD_REFUSED),
    ("SELECT FROM WHERE", ErrorCode.SQL_GEN_FAILED),
])
def test_sql_the_guard_refuses_is_sql_guard_refused_and_never_runs(demo_paths, tmp_path, sql, code):
    from langgraph.runtime import Runtime

    from nl2sql.pipeline.state import SubgraphExecutionState
    from nl2sql.pipeline.subgraphs.nodes.executor.node import ExecutorNode
    from nl2sql.pipeline.subgraphs.nodes.generator.schemas import GeneratorResponse

    session = _connect(demo_paths, tmp_path, only={"warehouse"})
    state = SubgraphExecutionState(
        trace_id="t", sub_query=SubQuery(id="sq_g", datasource_id="warehouse", intent="orders"),
        generator_response=GeneratorResponse(sql_draft=sql, dialect="duckdb"))
    delta = ExecutorNode()(state, Runtime(context=session.context))
    (err,) = delta["errors"]
    assert err.error_code == code and "executor_response" not in delta
    assert not err.is_retryable  # a refusal is fatal: the SQL agent does not try again
