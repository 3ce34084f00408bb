"""Every demo question through the whole graph, checked against hand-written SQL."""

from __future__ import annotations

import pytest

from nl2sql.demo.check import check
from nl2sql.demo.questions import DEMO_QUESTIONS


@pytest.mark.parametrize("item", DEMO_QUESTIONS, ids=[q.shape for q in DEMO_QUESTIONS])
def test_demo_question_is_answered_correctly(demo_session, item):
    result = demo_session.ask(item.question)
    ok, why = check(demo_session, item, result)
    assert ok, f"{item.question!r}: {why}; errors={[e.one_line() for e in result.errors]}; sql={result.sql}"
    if item.expect_status == "success":
        assert result.answer and result.sql


def test_count_of_orders_in_2024_equals_the_direct_sql(demo_session):
    result = demo_session.ask("How many orders were placed in 2024?")
    adapter = demo_session.context.datasources["warehouse"]
    expected = adapter.execute(
        "SELECT COUNT(*) FROM orders WHERE order_date >= DATE '2024-01-01' AND order_date < DATE '2025-01-01'",
        row_cap=10, timeout_s=10,
    ).table.column(0)[0].as_py()
    assert result.status == "success"
    assert result.table().column(0)[0].as_py() == expected
    assert f"{expected:,}" in result.answer


def test_two_source_question_runs_two_sub_queries_and_combines_them(demo_session):
    result = demo_session.ask(
        "For each region, compare the number of orders with the number of support tickets"
    )
    assert result.status == "success", [e.one_line() for e in result.errors]
    assert {o.sub_query.datasource_id for o in result.sub_queries} == {"warehouse", "crm"}
    assert all(o.status == "success" for o in result.sub_queries)
    combined = result.to_pandas()
    assert len(combined) == 5  # one row per region
    assert any(c.endswith("_diff") for c in combined.columns)


def test_trace_of_a_two_source_run_reconstructs_the_final_state(demo_session):
    from nl2sql.pipeline.state import GraphState

    result = demo_session.ask(
        "For each region, compare the number of orders with the number of support tickets"
    )
    tree = result.trace
    rebuilt = GraphState.model_validate(tree.state_at(result.trace_final_node))
    assert rebuilt.model_dump() == result.state.model_dump()
    filters = [n for n in tree.nodes if n.name == "__filter__"]
    assert len(filters) == 2  # each scan's payload reset the root of its branch
    for node in filters:
        state = tree.state_at(node.id)
        assert "decomposer_response" not in state  # the filter dropped it for good
        assert state["sub_query"]["datasource_id"] in {"warehouse", "crm"}
    assert [n.name for n in tree.main_nodes()].count("__merge__") == 1
