"""ExecutionDAG: a pure function of the DecomposerResponse.

Nodes are scans (one per sub-query), combines (one per combine group) and post-ops (the chain
after a group). Layers come from Kahn's algorithm; the content hash identifies the DAG.
"""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from nl2sql.decomposition import CombineGroup, CombineInput, DecomposerResponse


class DAGError(ValueError):
    """The decomposition cannot be turned into an execution DAG (PLANNER_FAILED)."""


class DAGNode(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    kind: Literal["scan", "combine", "post"]
    sub_query_id: str | None = None
    group_id: str | None = None
    op_id: str | None = None
    inputs: list[str] = Field(default_factory=list)


class ExecutionDAG(BaseModel):
    model_config = ConfigDict(extra="forbid")

    nodes: list[DAGNode]
    edges: list[tuple[str, str]]
    layers: list[list[str]]
    content_hash: str

    def node(self, node_id: str) -> DAGNode:
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise KeyError(node_id)

    @property
    def scan_nodes(self) -> list[DAGNode]:
        return [n for n in self.nodes if n.kind == "scan"]

    @property
    def terminal_nodes(self) -> list[DAGNode]:
        """Nodes whose result nobody consumes: the run's answers."""
        consumed = {src for src, _ in self.edges}
        return [n for n in self.nodes if n.id not in consumed]


def scan_node_id(sub_query_id: str) -> str:
    return f"scan:{sub_query_id}"


def build_dag(response: DecomposerResponse) -> ExecutionDAG:
    """Build the DAG, or raise DAGError saying why it cannot be built."""
    sq_ids = [sq.id for sq in response.sub_queries]
    if not sq_ids:
        raise DAGError("the decomposition has no sub-queries")
    if len(set(sq_ids)) != len(sq_ids):
        raise DAGError("the decomposition repeats a sub-query id")

    nodes: dict[str, DAGNode] = {
        scan_node_id(i): DAGNode(id=scan_node_id(i), kind="scan", sub_query_id=i) for i in sq_ids
    }
    groups = response.combine_groups or [
        # No groups given: every sub-query stands alone.
        _standalone(i) for i in sq_ids
    ]
    grouped: set[str] = set()
    group_tail: dict[str, str] = {}
    for group in groups:
        if group.group_id in group_tail:
            raise DAGError(f"combine group {group.group_id!r} is declared twice")
        inputs = [inp.subquery_id for inp in group.inputs]
        unknown = [i for i in inputs if i not in nodes and scan_node_id(i) not in nodes]
        if unknown:
            raise DAGError(f"combine group {group.group_id!r} names unknown sub-queries {unknown}")
        if group.operation in ("join", "compare") and len(set(inputs)) < 2:
            raise DAGError(
                f"{group.operation} group {group.group_id!r} has fewer than two inputs"
            )
        if group.operation == "join" and not group.join_keys:
            raise DAGError(f"join group {group.group_id!r} has no join keys")
        if group.operation == "standalone" and len(inputs) != 1:
            raise DAGError(f"standalone group {group.group_id!r} must have exactly one input")
        grouped.update(inputs)
        gid = f"combine:{group.group_id}"
        nodes[gid] = DAGNode(
            id=gid, kind="combine", group_id=group.group_id, inputs=[scan_node_id(i) for i in inputs]
        )
        group_tail[group.group_id] = gid

    for i in sq_ids:
        if i not in grouped:
            gid = f"combine:{i}"
            nodes[gid] = DAGNode(id=gid, kind="combine", group_id=i, inputs=[scan_node_id(i)])

    for op in response.post_combine_ops:
        if op.group_id not in group_tail:
            raise DAGError(f"post-combine op {op.op_id!r} targets unknown group {op.group_id!r}")
        pid = f"post:{op.op_id}"
        if pid in nodes:
            raise DAGError(f"post-combine op {op.op_id!r} is declared twice")
        # A chain: each op consumes the previous step of the same group.
        nodes[pid] = DAGNode(
            id=pid, kind="post", group_id=op.group_id, op_id=op.op_id,
            inputs=[group_tail[op.group_id]],
        )
        group_tail[op.group_id] = pid

    edges = [(src, n.id) for n in nodes.values() for src in n.inputs]
    layers = _kahn_layers(list(nodes), edges)
    blob = json.dumps(
        {"nodes": [n.model_dump() for n in nodes.values()], "edges": edges}, sort_keys=True
    )
    return ExecutionDAG(
        nodes=list(nodes.values()),
        edges=edges,
        layers=layers,
        content_hash=hashlib.sha256(blob.encode()).hexdigest()[:16],
    )


def _standalone(sub_query_id: str) -> CombineGroup:
    return CombineGroup(
        group_id=sub_query_id, operation="standalone", inputs=[CombineInput(subquery_id=sub_query_id)]
    )


def _kahn_layers(node_ids: list[str], edges: list[tuple[str, str]]) -> list[list[str]]:
    indegree = {n: 0 for n in node_ids}
    children: dict[str, list[str]] = {n: [] for n in node_ids}
    for src, dst in edges:
        indegree[dst] += 1
        children[src].append(dst)
    layer = [n for n in node_ids if indegree[n] == 0]
    layers: list[list[str]] = []
    seen = 0
    while layer:
        layers.append(layer)
        seen += len(layer)
        nxt = []
        for n in layer:
            for c in children[n]:
                indegree[c] -= 1
                if indegree[c] == 0:
                    nxt.append(c)
        layer = nxt
    if seen != len(node_ids):
        raise DAGError("the decomposition has a cycle")
    return layers
