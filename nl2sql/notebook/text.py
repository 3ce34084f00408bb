"""Plain text for a QueryResult: the widget's sections for a terminal IPython or a log.

Deterministic like the HTML (no ids, timings or paths); the table is a fixed-width preview.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from nl2sql.labels import ColumnInfo, arrow_kind, result_columns
from nl2sql.notebook import sections
from nl2sql.notebook.chart import choose_chart
from nl2sql.notebook.formatting import formatted_rows
from nl2sql.notebook.highlight import layout_sql
from nl2sql.notebook.plan_tree import plan_tree, tree_text
from nl2sql.notebook.trace_view import trace_rows

if TYPE_CHECKING:
    import pyarrow as pa

    from nl2sql.result import QueryResult

PREVIEW_ROWS = 10
_MAX_WIDTH = 30


def render_text(result: QueryResult, *, details: bool = True) -> str:
    """The result as text: header, answer, table; with `details`, every other section too."""
    out = [f"{result.question}  [{sections.status_line(result)}]"]
    if result.follow_up is not None:
        out.insert(0, f"↳ {result.follow_up.note} ({result.follow_up.parent_question})")
    if result.answer:
        out.append(f"Answer: {result.answer}")
    for req in sections.held_requests(result):
        out.append(f"Waiting for approval ({req.datasource_id}): {req.reason}\n  {req.sql}")
    found = result.candidates
    if found:
        out.append("Not sure what the question means. Did you mean (result.choose(n)):")
        out.extend(f"  {c.line()}\n     {c.sql or '(no SQL)'}" for c in found)
    table = result.table()
    if table is not None:
        columns = result_columns(result, table)
        out.append(table_text(table, PREVIEW_ROWS, columns))
        spec = choose_chart(table, columns)
        if spec.kind != "none" and spec.x is not None:
            measures = " | ".join(", ".join(spec.title(y) for y in axis) for axis in spec.axes())
            out.append(f"Chart: {spec.kind} of {measures} by {spec.x_title()}")
    out.extend(f"Error {e.error_code.value} ({e.node}): {e.message}" for e in sections.sorted_errors(result))
    out.extend(f"Warning {w.code}: {w.message}" for w in sections.sorted_warnings(result))
    if details:
        for title, body in _sections(result):
            if body:
                out.append(f"── {title} ──\n{body}")
    return "\n".join(out)


def _sections(result: QueryResult) -> list[tuple[str, str]]:
    views = sections.sub_query_views(result)
    plans = [f"{v.datasource}: {v.intent}\n{tree_text(plan_tree(v.output.plan))}"
             + (f"\n{line}" if (line := sections.layer_line(result, v)) else "")
             for v in views if v.output.plan is not None]
    sqls = [f"{v.datasource} ({dialect}){label}:\n{layout_sql(sql, dialect)}"
            for v in views for label, sql, dialect in sections.sql_drafts(v.output)]
    subs = [f"{v.id} {v.datasource} {v.status} · plan {v.plan_source} · retries {v.retries} · "
            f"checks {v.checks_label} · rows {'—' if v.rows is None else v.rows}"
            f"{' (truncated)' if v.truncated else ''}" + "".join(f"\n  {n}" for n in v.failed_checks + v.errors)
            for v in views]
    reasoning = [f"{e.get('node')}: {e.get('content', '')}" for e in sections.main_reasoning(result)]
    for v in views:
        reasoning.extend(f"{v.id} {e.get('node')}: {e.get('content', '')}" for e in v.output.reasoning)
    trace = ["  " * r.depth + r.label for r in trace_rows(result.trace)]
    return [("Plan", "\n".join(plans)), ("SQL", "\n".join(sqls)), ("Sub-queries", "\n".join(subs)),
            ("Reasoning", "\n".join(reasoning)), ("Trace", "\n".join(trace))]


def table_text(table: pa.Table, limit: int, columns: Sequence[ColumnInfo] | None = None) -> str:
    """The first `limit` rows as an aligned text table headed by the columns' labels, with a
    'N of M rows' line when cut."""
    rows = [[_clip(v) for v in r] for r in formatted_rows(table, columns, 0, limit)]
    labels = {c.name: c.label for c in columns or ()}
    head = [_clip(labels.get(c, c)) for c in table.column_names]
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(head)]
    lines = [" | ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)),
             "-+-".join("-" * w for w in widths)]
    numeric = [arrow_kind(f.type) == "number" for f in table.schema]
    lines += [" | ".join(c.rjust(w) if n else c.ljust(w) for c, w, n in zip(r, widths, numeric, strict=True))
              for r in rows]
    if table.num_rows > limit:
        lines.append(f"({limit} of {table.num_rows:,} rows)")
    return "\n".join(line.rstrip() for line in lines)


def _clip(text: str) -> str:
    return text if len(text) <= _MAX_WIDTH else text[: _MAX_WIDTH - 1] + "…"
