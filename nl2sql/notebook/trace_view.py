"""The state tree of deltas (ARCHITECTURE §9) laid out for reading: rows in a stable order.

Parallel branches (one SQL agent per sub-query) finish in any order, so the recorded node ids
differ from run to run. Rows are therefore ordered by what they mean — a branch by its
sub-query's position in the execution DAG — and labelled with the sub-query id (a stable hash),
never with LangGraph's random task namespace.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nl2sql.names import SQL_AGENT, TRACE_FILTER, TRACE_MERGE, TRACE_ROOT

if TYPE_CHECKING:
    from nl2sql.pipeline.trace import StateTree, TraceNode

_LABELS = {TRACE_ROOT: "input", TRACE_FILTER: "sub-query input", TRACE_MERGE: "merge of branches"}


@dataclass(frozen=True)
class TraceRow:
    """One node of the tree as a reader sees it."""

    node_id: int  # the recorded id, for `StateTree.state_at` (never shown in static output)
    depth: int
    label: str
    fields: tuple[str, ...]  # the state fields the node's delta writes


def trace_rows(tree: StateTree) -> list[TraceRow]:
    """Every node, depth-first, children in routing order."""
    rows: list[TraceRow] = []
    _walk(tree, tree.root, 0, rows)
    return rows


def _walk(tree: StateTree, node_id: int, depth: int, rows: list[TraceRow]) -> None:
    node = tree.nodes[node_id]
    rows.append(TraceRow(node_id, depth, _label(tree, node), tuple(sorted(node.delta))))
    order = _scan_order(tree, node)
    children = sorted(node.children, key=lambda c: _child_key(tree, tree.nodes[c], order))
    for child in children:
        # A chain reads as a list (same depth); branches and a subgraph's nodes indent; a merge
        # continues the chain after the branches it merges.
        same_level = (len(children) == 1 and node.name != TRACE_FILTER) or tree.nodes[child].name == TRACE_MERGE
        _walk(tree, child, depth if same_level else depth + 1, rows)


def _scan_order(tree: StateTree, node: TraceNode) -> list[str]:
    """Sub-query ids in the DAG's scan order, from the state where branches are routed."""
    if len(node.children) < 2:
        return []
    dag = tree.state_at(node.id).get("execution_dag")
    if dag is None:
        return []
    nodes = dag.scan_nodes if hasattr(dag, "scan_nodes") else [n for n in dag["nodes"] if n["kind"] == "scan"]
    return [getattr(n, "sub_query_id", None) or n["sub_query_id"] for n in nodes]


def _child_key(tree: StateTree, node: TraceNode, order: list[str]) -> tuple[int, int, str]:
    if node.name == TRACE_MERGE:
        return (2, 0, "")
    sq = sub_query_of(tree, node)
    position = order.index(sq) if sq in order else len(order)
    # A branch's subgraph nodes before its main-graph result; ties by stable sub-query id.
    return (0 if node.name == TRACE_FILTER else 1, position, sq or node.name)


def sub_query_of(tree: StateTree, node: TraceNode) -> str | None:
    """The sub-query a branch node belongs to (None on the main chain)."""
    if node.name == TRACE_FILTER and node.reset_state:
        sq = node.reset_state.get("sub_query")
        return getattr(sq, "id", None) or (sq or {}).get("id")
    outputs = node.delta.get("subgraph_outputs") or {}
    for output in outputs.values():
        sq = getattr(output, "sub_query", None) or (output or {}).get("sub_query")
        if sq is not None:
            found: str | None = getattr(sq, "id", None) or sq.get("id")
            return found
    if node.namespace:
        for candidate in tree.nodes:
            if candidate.name == TRACE_FILTER and candidate.namespace == node.namespace:
                return sub_query_of(tree, candidate)
    return None


def _label(tree: StateTree, node: TraceNode) -> str:
    label = _LABELS.get(node.name, node.name)
    if node.name in (TRACE_FILTER, SQL_AGENT):
        sq = sub_query_of(tree, node)
        if sq:
            label += f" · {sq}"
    return label


def to_json(value: Any, *, indent: int | None = 2) -> str:
    """A delta or a state as JSON text (pydantic models dumped, anything else as a string)."""
    return json.dumps(jsonable(value), indent=indent, sort_keys=True, default=str)


def jsonable(value: Any) -> Any:
    """Plain JSON data from nested pydantic models, dicts and lists."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value
