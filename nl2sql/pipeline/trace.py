"""The state tree of deltas (ARCHITECTURE §9), built from LangGraph's update stream.

The root holds the run's input state. Each node of the tree holds its parent and one graph node's
delta. Every delta is deep-copied once when it is recorded (a node mutating what it returned
cannot rewrite the recorded history); the recorded values are never changed afterwards, so the
tree's own merges share them, and `state_at` deep-copies the state it hands out once, at the end
(a viewer cannot rewrite them either). Two things reset
the root: a state filter (the payload a Send carries into a subgraph) and a multi-input merge (the
main graph continuing after parallel branches, which merges the branch deltas in routing order).
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from nl2sql.names import TRACE_FILTER, TRACE_MERGE, TRACE_ROOT
from nl2sql.pipeline.deep_copy import deep_copy


@functools.cache
def reducers_of(model: type[BaseModel]) -> dict[str, Any]:
    """Field name -> reducer callable, for fields declared `Annotated[T, reducer]`.

    Cached per model class: resolving the type hints costs milliseconds, on every run."""
    hints = typing.get_type_hints(model, include_extras=True)
    found = {}
    for name, hint in hints.items():
        for meta in getattr(hint, "__metadata__", ()):
            if callable(meta):
                found[name] = meta
    return found


def merge_delta(state: dict[str, Any], delta: Mapping[str, Any] | None, reducers: Mapping[str, Any]) -> dict[str, Any]:
    """Apply one node's delta to a state with the declared reducers (last write wins otherwise)."""
    merged = dict(state)
    for key, value in (delta or {}).items():
        if key in reducers and key in merged and merged[key] is not None:
            merged[key] = reducers[key](merged[key], value)
        else:
            merged[key] = value
    return merged


@dataclass
class TraceNode:
    id: int
    name: str  # graph node name, "__root__", "__filter__" or "__merge__"
    namespace: str  # "" for the main graph, else the subgraph's task namespace
    parent: int | None
    delta: dict[str, Any]
    reset_state: dict[str, Any] | None = None  # set where the root is reset
    children: list[int] = field(default_factory=list)


class StateTree:
    """The recorded run. Build it with `add_*` while streaming; read it with `state_at`."""

    def __init__(self, initial_state: Mapping[str, Any], main_reducers: Mapping[str, Any], sub_reducers: Mapping[str, Any]):
        self.nodes: list[TraceNode] = []
        self._reducers = {"": dict(main_reducers)}
        self._sub_reducers = dict(sub_reducers)
        self.root = self._new(TRACE_ROOT, "", None, {}, reset=deep_copy(dict(initial_state)))

    def _new(self, name: str, namespace: str, parent: int | None, delta: Mapping[str, Any] | None,
             reset: dict[str, Any] | None = None) -> int:
        # By value: a node that later mutates what it returned must not rewrite recorded history.
        node = TraceNode(len(self.nodes), name, namespace, parent, deep_copy(dict(delta or {})), reset)
        self.nodes.append(node)
        if parent is not None:
            self.nodes[parent].children.append(node.id)
        return node.id

    def add(self, name: str, delta: Mapping[str, Any] | None, parent: int, namespace: str = "") -> int:
        return self._new(name, namespace, parent, delta)

    def add_filter(self, namespace: str, filtered_state: Mapping[str, Any], parent: int) -> int:
        """A state filter: the subgraph's input becomes the new root of its branch."""
        self._reducers.setdefault(namespace, self._sub_reducers)
        return self._new(TRACE_FILTER, namespace, parent, {}, reset=deep_copy(dict(filtered_state)))

    def add_merge(self, base: int, branches: list[int]) -> int:
        """A multi-input merge: the base state plus each branch's delta, in routing order."""
        state = self.merged_at(base)  # the recorded values, shared: nothing here changes them
        reducers = self._reducers[""]
        for branch in branches:
            state = merge_delta(state, self.nodes[branch].delta, reducers)
        return self._new(TRACE_MERGE, "", base, {}, reset=state)

    def state_at(self, node_id: int) -> dict[str, Any]:
        """The full state after `node_id` ran: deltas merged from the nearest root, deep-copied."""
        return deep_copy(self.merged_at(node_id))

    def merged_at(self, node_id: int) -> dict[str, Any]:
        """The state after `node_id` ran, sharing the recorded values: read it, never change it
        (`state_at` is the copy to hand out)."""
        path = []
        cursor: int | None = node_id
        while cursor is not None:
            node = self.nodes[cursor]
            path.append(node)
            if node.reset_state is not None:
                break
            cursor = node.parent
        path.reverse()
        reducers = self._reducers.get(path[0].namespace, self._sub_reducers)
        state = path[0].reset_state
        assert state is not None  # the walk stops at a reset node; the root always is one
        for node in path:
            state = merge_delta(state, node.delta, reducers)
        return state

    def path_names(self, node_id: int) -> list[str]:
        names = []
        cursor: int | None = node_id
        while cursor is not None:
            names.append(self.nodes[cursor].name)
            cursor = self.nodes[cursor].parent
        return list(reversed(names))

    def main_nodes(self) -> list[TraceNode]:
        return [n for n in self.nodes if n.namespace == ""]


class TraceRecorder:
    """Turns LangGraph's stream (subgraphs=True, modes updates+values) into a StateTree.

    Main-graph updates form a chain. The Send branches a router dispatches are siblings under
    that router; the next main-graph node starts from their merge. A subgraph's first `values`
    event (its input, the filtered payload) resets the root for that branch.
    """

    def __init__(self, tree: StateTree, branch_nodes: frozenset[str],
                 routing_order: Callable[[dict[str, Any], dict[str, Any]], Any] | None = None):
        self.tree = tree
        self._branch_nodes = branch_nodes
        # Branches finish in any order; the merge applies them in the order they were routed.
        self._routing_order = routing_order
        self._cursor = tree.root
        self._pending: list[int] = []
        self._sub_cursor: dict[str, int] = {}

    def on_event(self, namespace: tuple[str, ...], mode: str, data: Any) -> None:
        ns = "/".join(namespace)
        if ns:
            self._on_sub_event(ns, mode, data)
        elif mode == "updates":
            for name, delta in (data or {}).items():
                self._on_main_update(name, delta if isinstance(delta, Mapping) else {})

    def _on_sub_event(self, ns: str, mode: str, data: Any) -> None:
        if ns not in self._sub_cursor:
            if mode != "values":
                return
            self._sub_cursor[ns] = self.tree.add_filter(ns, data, parent=self._cursor)
            return
        if mode == "updates":
            for name, delta in (data or {}).items():
                self._sub_cursor[ns] = self.tree.add(name, delta if isinstance(delta, Mapping) else {},
                                                     parent=self._sub_cursor[ns], namespace=ns)

    def _on_main_update(self, name: str, delta: Mapping[str, Any]) -> None:
        if name in self._branch_nodes:
            self._pending.append(self.tree.add(name, delta, parent=self._cursor))
            return
        self._settle()
        self._cursor = self.tree.add(name, delta, parent=self._cursor)

    def _settle(self) -> None:
        if self._pending:
            order = self._routing_order
            if order is not None:
                before = self.tree.merged_at(self._cursor)  # read only, to sort the branches
                self._pending.sort(key=lambda i: order(before, self.tree.nodes[i].delta))
            self._cursor = self.tree.add_merge(self._cursor, self._pending)
            self._pending = []

    @property
    def current(self) -> int:
        return self._cursor

    def finish(self) -> int:
        """Merge any open branches (the end merges them in routing order); the final node id."""
        self._settle()
        return self._cursor
