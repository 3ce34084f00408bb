"""Static HTML for a QueryResult: the same sections as the widget, for any front end.

Deterministic by construction: no ids, timestamps, timings or paths, so saved notebook outputs
compare equal from run to run.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nl2sql.result import QueryResult

_MAX_ROWS = 20


def render_html(result: QueryResult) -> str:
    parts = [
        '<div class="nl2sql-result">',
        f"<p><b>{escape(result.question)}</b> — <code>{escape(result.status)}</code></p>",
    ]
    if result.answer:
        parts.append(f"<p>{escape(result.answer)}</p>")
    table = result.table()
    if table is not None:
        parts.append(_table_html(table))
    for out in result.sub_queries:
        if out.sql_draft:
            label = f"{out.sub_query.datasource_id} · {out.dialect} · {out.status}"
            parts.append(f"<details><summary>SQL ({escape(label)})</summary>"
                         f"<pre>{escape(out.sql_draft)}</pre></details>")
    if result.errors:
        items = "".join(f"<li><code>{escape(e.error_code.value)}</code> ({escape(e.node)}): "
                        f"{escape(e.message)}</li>" for e in result.errors)
        parts.append(f"<p>Errors:</p><ul>{items}</ul>")
    if result.warnings:
        items = "".join(f"<li><code>{escape(w.code)}</code>: {escape(w.message)}</li>" for w in result.warnings)
        parts.append(f"<p>Warnings:</p><ul>{items}</ul>")
    parts.append("</div>")
    return "\n".join(parts)


def _table_html(table) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in table.column_names)
    rows = []
    for row in table.slice(0, _MAX_ROWS).to_pylist():
        rows.append("<tr>" + "".join(f"<td>{escape(_fmt(v))}</td>" for v in row.values()) + "</tr>")
    more = (f"<caption>{_MAX_ROWS} of {table.num_rows:,} rows</caption>"
            if table.num_rows > _MAX_ROWS else "")
    return f"<table>{more}<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _fmt(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:,.2f}"
    return str(value)
