"""The trace laid out for reading: stable order and labels, whatever order branches finished in."""

from __future__ import annotations

from nl2sql.notebook.trace_view import jsonable, to_json, trace_rows


def test_branches_follow_the_decomposition_whatever_order_they_finished(two_sources):
    tree = two_sources.trace
    order = [sq.id for sq in two_sources.decomposition.sub_queries]
    router = next(n for n in tree.nodes if len(n.children) > 2)
    router.children.reverse()  # as if the other branch had finished first
    labels = [r.label for r in trace_rows(tree) if r.label.startswith(("sub-query input", "sql_agent"))]
    assert labels == [f"sub-query input · {order[0]}", f"sub-query input · {order[1]}",
                      f"sql_agent · {order[0]}", f"sql_agent · {order[1]}"]
    router.children.reverse()


def test_rows_indent_branches_and_subgraph_nodes(two_sources):
    rows = trace_rows(two_sources.trace)
    depth = {r.label: r.depth for r in rows}
    assert rows[0].label == "input" and rows[-1].label == "answer_synthesizer"
    assert depth["decomposer"] == depth["aggregator"] == 0
    assert next(r for r in rows if r.label.startswith("sub-query input")).depth == 1
    assert next(r for r in rows if r.label == "executor").depth == 2
    assert next(r for r in rows if r.label == "decomposer").fields == (
        "decomposer_response", "execution_dag", "reasoning")


def test_json_of_a_state_is_plain_data(two_sources):
    state = two_sources.trace.state_at(two_sources.trace_final_node)
    data = jsonable(state)
    assert data["user_query"] == two_sources.question
    assert '"execution_dag"' in to_json(state)
