"""TraceBrowser: the state tree of deltas; selecting a node shows its delta and the rebuilt state,
and "Re-run from here" continues the graph from the selected main-graph node (`on_rerun`).

The state is rebuilt by `StateTree.state_at` (deltas merged from the nearest root with the
declared reducers, deep-copied), so what the reader sees is what that node's successor received.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from nl2sql.notebook.trace_view import to_json, trace_rows

if TYPE_CHECKING:
    from nl2sql.pipeline.trace import StateTree

_PRE = "margin:0;max-height:360px;overflow:auto;font-size:11px;white-space:pre-wrap"


class TraceBrowser(widgets.HBox):  # type: ignore[misc]  # ipywidgets ships no type information
    """`nodes.value` is the selected trace node id; `delta.value` and `state.value` show it."""

    def __init__(self, tree: StateTree, on_rerun: Callable[[int], None] | None = None, **kwargs: Any):
        self.tree = tree
        self._on_rerun = on_rerun
        self.rerun = widgets.Button(description="Re-run from here", icon="play",
                                    layout=widgets.Layout(width="auto"),
                                    tooltip="continue the graph from the state at the selected node")
        self.rerun.on_click(lambda _: self._rerun())
        rows = trace_rows(tree)
        options = [("\u2003" * r.depth + r.label, r.node_id) for r in rows]
        self.nodes = widgets.Select(options=options, rows=min(len(options), 18),
                                    layout=widgets.Layout(width="300px"))
        self.delta = widgets.HTML()
        self.state = widgets.HTML()
        views = widgets.Accordion(children=[self.delta, self.state], titles=("Delta", "State at this node"))
        views.selected_index = 0
        self.nodes.observe(lambda _: self._show(), names="value")
        super().__init__([widgets.VBox([self.nodes, self.rerun]), views], **kwargs)
        if options:
            self.nodes.value = options[-1][1]  # the final state is what a reader asks for first
        self._show()

    def _show(self) -> None:
        from nl2sql.pipeline.runtime import resumable

        node_id = self.nodes.value
        self.rerun.disabled = node_id is None or self._on_rerun is None or not resumable(self.tree, node_id)
        if node_id is None:
            return
        node = self.tree.nodes[node_id]
        delta = node.delta if node.reset_state is None else {"(root reset)": node.reset_state}
        self.delta.value = f'<pre style="{_PRE}">{escape(to_json(delta))}</pre>'
        self.state.value = f'<pre style="{_PRE}">{escape(to_json(self.tree.state_at(node_id)))}</pre>'

    def _rerun(self) -> None:
        if self._on_rerun is not None and self.nodes.value is not None and not self.rerun.disabled:
            self._on_rerun(self.nodes.value)
