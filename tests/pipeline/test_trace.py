"""The state tree of deltas, including the design's worked example (ARCHITECTURE §9)."""

from __future__ import annotations

from nl2sql.pipeline.state import GraphState
from nl2sql.pipeline.trace import StateTree, merge_delta, reducers_of


def _deep_merge(current, new):
    # The worked example's "user" field merges key by key.
    return {**current, **new}


INITIAL = {"user": {"name": "Alice", "age": 20}, "score": 90}
REDUCERS = {"user": _deep_merge}


def _path_a_b():
    tree = StateTree(INITIAL, REDUCERS, {})
    a = tree.add("A", {"user": {"age": 21}}, parent=tree.root)
    b = tree.add("B", {"score": 95}, parent=a)
    return tree, b


def test_worked_example_without_filter():
    tree, b = _path_a_b()
    c = tree.add("C", {}, parent=b)
    assert tree.state_at(c) == {"user": {"name": "Alice", "age": 21}, "score": 95}


def test_worked_example_with_filter_resets_the_root():
    tree, b = _path_a_b()
    filtered = {"score": tree.state_at(b)["score"]}
    root = tree.add_filter("branch", filtered, parent=b)
    c = tree.add("C", {}, parent=root, namespace="branch")
    assert tree.state_at(c) == {"score": 95}  # "user" cannot come back downstream


def test_rebuilt_state_is_a_deep_copy():
    tree, b = _path_a_b()
    state = tree.state_at(b)
    state["user"]["name"] = "Mallory"
    assert tree.state_at(b)["user"]["name"] == "Alice"
    assert tree.nodes[tree.root].reset_state["user"]["age"] == 20


def test_merge_applies_branches_in_routing_order_with_reducers():
    reducers = reducers_of(GraphState)
    tree = StateTree({"errors": [], "artifact_refs": {}, "score": 1}, reducers, {})
    left = tree.add("x", {"artifact_refs": {"a": 1}, "errors": ["e1"]}, parent=tree.root)
    right = tree.add("x", {"artifact_refs": {"b": 2}, "errors": ["e2"]}, parent=tree.root)
    merged = tree.add_merge(tree.root, [left, right])
    assert tree.state_at(merged) == {"errors": ["e1", "e2"], "artifact_refs": {"a": 1, "b": 2}, "score": 1}


def test_declared_reducers_are_found_on_graph_state():
    reducers = reducers_of(GraphState)
    assert set(reducers) == {"artifact_refs", "subgraph_outputs", "errors", "reasoning", "warnings",
                             "approvals_needed"}
    assert merge_delta({"errors": [1]}, {"errors": [2]}, reducers) == {"errors": [1, 2]}


def test_a_delta_mutated_after_it_was_recorded_leaves_the_history_unchanged():
    tree = StateTree(INITIAL, REDUCERS, {})
    returned = {"user": {"age": 21}, "tags": ["a"]}
    a = tree.add("A", returned, parent=tree.root)
    returned["user"]["age"] = 99  # the node keeps a reference and mutates it later
    returned["tags"].append("b")
    assert tree.state_at(a) == {"user": {"name": "Alice", "age": 21}, "score": 90, "tags": ["a"]}
    assert tree.nodes[a].delta == {"user": {"age": 21}, "tags": ["a"]}


class _MutatingPlanner:
    """A planner that keeps the response it returned, to mutate it after the node finished."""

    def __init__(self):
        from nl2sql.reasoning.offline.engine import OfflineEngine

        self._engine = OfflineEngine()
        self.returned = []

    def plan(self, request):
        response = self._engine.plan(request)
        self.returned.append(response)
        return response


def test_a_node_mutating_its_returned_object_later_does_not_rewrite_the_trace(sources, tmp_path):
    import nl2sql

    planner = _MutatingPlanner()
    session = nl2sql.connect(sources={"warehouse": sources["warehouse"]}, models={"ast_planner": planner},
                             settings={"project_dir": tmp_path / "p"})
    result = session.ask("How many order items are there?")
    assert result.status == "success"
    [node] = [n for n in result.trace.nodes if n.name == "ast_planner"]
    recorded = result.trace.state_at(node.id)["ast_planner_response"]
    planner.returned[0].reasoning = "rewritten after the fact"
    planner.returned[0].plan.limit = 7
    again = result.trace.state_at(node.id)["ast_planner_response"]
    assert again.reasoning == recorded.reasoning != "rewritten after the fact"
    assert again.plan.limit == recorded.plan.limit != 7
