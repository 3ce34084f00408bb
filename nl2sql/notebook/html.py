"""Static HTML for a QueryResult: the same sections as the widget, for any front end (GitHub,
nbviewer, nbconvert, a notebook without widgets).

Deterministic by construction: no object ids, timestamps, timings, artifact paths or trace ids,
and every list in a stable order (`sections`), so saved notebook outputs compare equal from run
to run. Sections other than the answer are `<details>` blocks, closed, so the output stays short.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from nl2sql.labels import ColumnInfo, arrow_kind, result_columns
from nl2sql.notebook import sections
from nl2sql.notebook.chart import choose_chart
from nl2sql.notebook.chart_draw import chart_svg
from nl2sql.notebook.formatting import formatted_rows
from nl2sql.notebook.highlight import highlight_sql
from nl2sql.notebook.plan_tree import plan_tree, tree_text
from nl2sql.notebook.trace_view import to_json, trace_rows

if TYPE_CHECKING:
    import pyarrow as pa

    from nl2sql.result import QueryResult

PREVIEW_ROWS = 20
_STATUS_COLORS = {"success": "#2e7d32", "needs_approval": "#b26a00", "needs_clarification": "#b26a00",
                  "not_answerable": "#b26a00",
                  "error": "#c62828"}
_TABLE = 'style="border-collapse:collapse;font-size:12px"'
_CELL = 'style="border:1px solid #ddd;padding:2px 6px;text-align:left"'
_NUMBER_CELL = 'style="border:1px solid #ddd;padding:2px 6px;text-align:right;white-space:nowrap"'
_DATE_CELL = 'style="border:1px solid #ddd;padding:2px 6px;text-align:left;white-space:nowrap"'
_ANSWER = "font-size:1.3em;font-weight:600;line-height:1.35;margin:4px 0 8px 0"


def render_html(result: QueryResult) -> str:
    """The whole result as one HTML fragment: answer, table, chart, then the detail sections."""
    parts = ['<div class="nl2sql-result">', header_html(result), answer_html(result)]
    for title, body in section_bodies(result):
        if body:
            parts.append(f"<details><summary><b>{escape(title)}</b></summary>{body}</details>")
    parts.append("</div>")
    return "\n".join(parts)


def section_bodies(result: QueryResult) -> list[tuple[str, str]]:
    """The detail sections after the answer, in tab order (Answer is drawn above them)."""
    return [
        ("Plan", plan_html(result)),
        ("SQL", sql_html(result)),
        ("Sub-queries", sub_queries_html(result)),
        ("Reasoning", reasoning_html(result)),
        ("Trace", trace_html(result)),
    ]


def header_html(result: QueryResult) -> str:
    """The question, small, with the run's status: the answer below it is what stands out."""
    color = _STATUS_COLORS.get(result.status, "#555")
    return (thread_html(result) + f'<p style="margin:2px 0;color:#555">{escape(result.question)} <span style="color:{color}">'
            f"[{escape(sections.status_line(result))}]</span></p>")


def answer_text_html(result: QueryResult) -> str:
    """The answer sentence(s), the most prominent text of the result ('' when there is none)."""
    if not result.answer:
        return ""
    lines = [line for line in result.answer.split("\n") if line.strip()]
    return "".join(f'<p class="nl2sql-answer" style="{_ANSWER}">{escape(line)}</p>' for line in lines)


def thread_html(result: QueryResult) -> str:
    """For a follow-up, the run it follows and what changed, above the question."""
    follow = result.follow_up
    if follow is None:
        return ""
    return (f'<p class="nl2sql-thread" style="margin:0;color:#555;font-size:12px">↳ follow-up of run '
            f"{follow.parent}: {escape(follow.parent_question)} — {escape('; '.join(follow.edits))}</p>")


def answer_html(result: QueryResult) -> str:
    """The answer text, the held requests, the first rows of the table, the chart and problems."""
    parts = [answer_text_html(result), held_html(result), candidates_html(result)]
    table = result.table()
    if table is not None:
        columns = result_columns(result, table)
        parts.append(table_html(table, 0, PREVIEW_ROWS, columns))
        parts.append(download_html(result.question, table))
        parts.append(chart_svg(table, choose_chart(table, columns)))
    parts.append(problems_html(result))
    return "".join(p for p in parts if p)


def download_html(question: str, table: pa.Table) -> str:
    """A "Download CSV" link carrying every row of the table (no script: it works in any front
    end that shows HTML). Parquet is the widget's only: its bytes name the writer's version, so
    a saved notebook would change with pyarrow."""
    from nl2sql.notebook.exports import csv_bytes, download_link, file_stem

    link = download_link(csv_bytes(table), f"{file_stem(question)}.csv", "text/csv", "Download CSV")
    return f"<p>{link}</p>"


def held_html(result: QueryResult) -> str:
    items = []
    for req in sections.held_requests(result):
        items.append(f"<li><code>{escape(req.datasource_id)}</code> {escape(req.intent or req.sub_query_id)}"
                     f" — held: {escape(req.reason)}{highlight_sql(req.sql, req.dialect)}</li>")
    return f"<p>Waiting for approval:</p><ul>{''.join(items)}</ul>" if items else ""


def candidates_html(result: QueryResult) -> str:
    """The readings of a needs_clarification run (the widget shows a Run button for each)."""
    items = [f"<li>{escape(c.line())}{highlight_sql(c.sql, _dialect(result, c.datasource)) if c.sql else ''}</li>"
             for c in result.candidates]
    return (f"<p>Not sure what the question means. Did you mean (<code>result.choose(n)</code>):</p>"
            f"<ol>{''.join(items)}</ol>") if items else ""


def _dialect(result: QueryResult, datasource: str) -> str | None:
    adapter = result.session.context.datasources.get(datasource)
    return adapter.dialect if adapter is not None else None


def problems_html(result: QueryResult) -> str:
    parts = []
    errors = sections.sorted_errors(result)
    if errors:
        items = "".join(f"<li><code>{escape(e.error_code.value)}</code> ({escape(e.node)}): "
                        f"{escape(e.message)}</li>" for e in errors)
        parts.append(f"<p>Errors:</p><ul>{items}</ul>")
    warnings = sections.sorted_warnings(result)
    if warnings:
        items = "".join(f"<li><code>{escape(w.code)}</code>: {escape(w.message)}</li>" for w in warnings)
        parts.append(f"<p>Warnings:</p><ul>{items}</ul>")
    return "".join(parts)


def table_html(table: pa.Table, start: int, count: int, columns: Sequence[ColumnInfo] | None = None) -> str:
    """Rows `start`..`start+count` of `table`, headed by the columns' human labels (the SQL
    alias in each header's tooltip), numbers right-aligned, with a caption saying which rows."""
    labels = {c.name: c.label for c in columns or ()}
    head = "".join(f'<th {_CELL} title="{escape(c)}">{escape(labels.get(c, c))}</th>' for c in table.column_names)
    kinds = [arrow_kind(f.type) for f in table.schema]
    styles = [_NUMBER_CELL if k == "number" else _DATE_CELL if k == "date" else _CELL for k in kinds]
    rows = []
    for row in formatted_rows(table, columns, start, count):
        rows.append("<tr>" + "".join(f"<td {styles[i]}>{escape(v)}</td>" for i, v in enumerate(row)) + "</tr>")
    end = min(start + count, table.num_rows)
    caption = (f"<caption>rows {start + 1:,}–{end:,} of {table.num_rows:,}</caption>"
               if table.num_rows > count else "")
    # a wide table scrolls sideways instead of being cut at the output's edge
    return (f'<div style="overflow-x:auto"><table class="nl2sql-table" {_TABLE}>{caption}<thead><tr>{head}'
            f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>")


def plan_html(result: QueryResult) -> str:
    parts = []
    for view in sections.sub_query_views(result):
        plan = view.output.plan
        if plan is None:
            continue
        parts.append(f"<p><code>{escape(view.datasource)}</code> {escape(view.intent)} "
                     f"(plan: {escape(view.plan_source)})</p><pre>{escape(tree_text(plan_tree(plan)))}</pre>"
                     f"{layer_used_html(result, view)}"
                     f"<details><summary>JSON</summary><pre>{escape(to_json(plan))}</pre></details>")
    return "".join(parts)


def layer_used_html(result: QueryResult, view: sections.SubQueryView) -> str:
    """The semantic layer entries a sub-query's plan used, as one paragraph ('' when none)."""
    line = sections.layer_line(result, view)
    return f'<p class="nl2sql-layer-used">{escape(line)}</p>' if line else ""


def sql_html(result: QueryResult) -> str:
    """Every SQL draft of every sub-query: after a retry the earlier attempts stay visible,
    labelled by attempt, above the final one."""
    parts = []
    for view in sections.sub_query_views(result):
        for label, sql, dialect in sections.sql_drafts(view.output):
            parts.append(f"<p><code>{escape(view.datasource)}</code> · {escape(dialect or 'sql')}"
                         f"{escape(label)}</p>" + highlight_sql(sql, dialect))
    return "".join(parts)


def sub_queries_html(result: QueryResult) -> str:
    views = sections.sub_query_views(result)
    if not views:
        return ""
    head = "".join(f"<th {_CELL}>{h}</th>" for h in
                   ("sub-query", "source", "intent", "status", "plan", "retries", "checks", "rows", "truncated"))
    rows = []
    for v in views:
        cells = (v.id, v.datasource, v.intent, v.status, v.plan_source, str(v.retries), v.checks_label,
                 "—" if v.rows is None else f"{v.rows:,}", "yes" if v.truncated else "no")
        rows.append("<tr>" + "".join(f"<td {_CELL}>{escape(c)}</td>" for c in cells) + "</tr>")
        notes = v.failed_checks + v.errors
        if notes:
            items = "".join(f"<li>{escape(n)}</li>" for n in notes)
            rows.append(f'<tr><td {_CELL} colspan="9"><ul>{items}</ul></td></tr>')
    return f"<table {_TABLE}><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def reasoning_html(result: QueryResult) -> str:
    parts = [_entry_html(e) for e in sections.main_reasoning(result)]
    for view in sections.sub_query_views(result):
        entries = "".join(_entry_html(e) for e in view.output.reasoning)
        if entries:
            parts.append(f"<p><i>sub-query {escape(view.id)} on {escape(view.datasource)}</i></p>{entries}")
    return "".join(parts)


def _entry_html(entry: dict[str, Any]) -> str:
    body = []
    for label, text in sections.reasoning_detail(entry):
        if label == "content":
            body.append(escape(text))
        else:
            body.append(f"<details><summary>{escape(label)}</summary><pre>{escape(text)}</pre></details>")
    return f"<p><b>{escape(str(entry.get('node', '')))}</b>: {''.join(body)}</p>"


def trace_html(result: QueryResult) -> str:
    lines = []
    for row in trace_rows(result.trace):
        fields = f" → {', '.join(row.fields)}" if row.fields else ""
        lines.append("  " * row.depth + row.label + fields)
    return f"<pre>{escape(chr(10).join(lines))}</pre>" if lines else ""
