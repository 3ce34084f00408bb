"""The run widget's tabs: Answer, Plan, SQL, Sub-queries, Reasoning, Trace.

Each tab arranges standard ipywidgets around what `nl2sql.notebook.sections` and the HTML
helpers already compute, so the widget and the static HTML cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from nl2sql.labels import result_columns
from nl2sql.notebook import html as static
from nl2sql.notebook import sections
from nl2sql.notebook.plan_tree import plan_tree, tree_text
from nl2sql.notebook.trace_view import to_json
from nl2sql.notebook.widgets.chart import ChartView
from nl2sql.notebook.widgets.table import PagedTable
from nl2sql.notebook.widgets.trace import TraceBrowser

if TYPE_CHECKING:
    from nl2sql.result import QueryResult


def build_tabs(result: QueryResult, page_size: int = 10, act: Callable[..., None] | None = None) -> widgets.Tab:
    """A Tab with one child per section, titled as `sections.TAB_TITLES`. With `act` (the view's
    action runner), the Trace tab's "Re-run from here" calls `result.rerun_from(node_id)`."""
    on_rerun = (lambda node_id: act("rerun_from", result.rerun_from, node_id)) if act else None
    children = [
        answer_tab(result, page_size),
        plan_tab(result),
        _html_or_note(static.sql_html(result), "No SQL was generated."),
        _html_or_note(static.sub_queries_html(result), "No sub-query ran."),
        reasoning_tab(result),
        TraceBrowser(result.trace, on_rerun=on_rerun),
    ]
    return widgets.Tab(children=children, titles=sections.TAB_TITLES)


def answer_tab(result: QueryResult, page_size: int) -> widgets.VBox:
    """The answer sentence first and largest, held requests and problems, then the paged table
    (headed by human labels) and the chart chosen from the plan's shape."""
    parts: list[widgets.Widget] = []
    text = "".join(p for p in (
        static.answer_text_html(result),
        static.held_html(result),
        static.problems_html(result),
    ) if p)
    parts.append(widgets.HTML(text or "<p>No answer.</p>"))
    table = result.table()
    if table is not None:
        columns = result_columns(result, table)
        parts.append(PagedTable(table, page_size=page_size, columns=columns))
        parts.append(ChartView(table, columns))
    return widgets.VBox(parts)


def plan_tab(result: QueryResult) -> widgets.Widget:
    """Per sub-query: the plan as a tree, the semantic layer entries it used, and its JSON in a
    closed accordion."""
    boxes: list[widgets.Widget] = []
    for view in sections.sub_query_views(result):
        plan = view.output.plan
        if plan is None:
            continue
        head = widgets.HTML(f"<p><code>{escape(view.datasource)}</code> {escape(view.intent)} "
                            f"(plan: {escape(view.plan_source)})</p>"
                            f"<pre>{escape(tree_text(plan_tree(plan)))}</pre>"
                            + static.layer_used_html(result, view))
        raw = widgets.Accordion(children=[widgets.HTML(f"<pre>{escape(to_json(plan))}</pre>")],
                                titles=("JSON",))
        raw.selected_index = None
        boxes.append(widgets.VBox([head, raw]))
    return widgets.VBox(boxes) if boxes else widgets.HTML("<p>No plan was made.</p>")


def reasoning_tab(result: QueryResult) -> widgets.Accordion:
    """One accordion pane per node (main graph first, then each sub-query's nodes)."""
    panes: list[tuple[str, str]] = []
    for entry in sections.main_reasoning(result):
        panes.append((str(entry.get("node", "")), _entry(entry)))
    for view in sections.sub_query_views(result):
        for entry in view.output.reasoning:
            panes.append((f"{view.id} · {entry.get('node', '')}", _entry(entry)))
    accordion = widgets.Accordion(children=[widgets.HTML(body) for _, body in panes],
                                  titles=tuple(title for title, _ in panes))
    accordion.selected_index = None
    return accordion


def _entry(entry: dict[str, Any]) -> str:
    out = []
    for label, text in sections.reasoning_detail(entry):
        if label == "content":
            out.append(f"<p>{escape(text)}</p>")
        else:
            out.append(f"<p><b>{escape(label)}</b></p><pre style=\"white-space:pre-wrap\">{escape(text)}</pre>")
    return "".join(out)


def _html_or_note(body: str, note: str) -> widgets.HTML:
    return widgets.HTML(body or f"<p>{escape(note)}</p>")
