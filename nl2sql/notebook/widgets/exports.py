"""ExportRow: "Copy SQL", "Insert as cell", "Download CSV" and "Download Parquet" for one result.

One HTML widget whose links and buttons work in the browser alone (`nl2sql.notebook.exports`
says why a kernel-side Button cannot). Each has an API twin: `result.sql`,
`sql_cell(result)` / `%nl2sql --sql`, `result.to_pandas().to_csv(...)`, `.to_parquet(...)`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from nl2sql.notebook import exports
from nl2sql.notebook.cells import jupysql_aliases, sql_cell

if TYPE_CHECKING:
    from nl2sql.result import QueryResult


class ExportRow(widgets.HTML):  # type: ignore[misc]  # ipywidgets ships no type information
    """The row for `result`; `session_variable` is the Session an inserted cell calls (None: the
    magic's own). Empty when the run has neither SQL nor rows."""

    def __init__(self, result: QueryResult, session_variable: str | None = None, **kwargs: Any):
        super().__init__(value=export_row_html(result, session_variable), **kwargs)


def export_row_html(result: QueryResult, session_variable: str | None = None) -> str:
    parts = []
    if result.sql:
        parts.append(exports.copy_button(result.sql))
        code = sql_cell(result, session_variable, jupysql_aliases=jupysql_aliases())
        if code is not None:
            parts.append(exports.insert_button(code))
    table = result.table()
    if table is not None:
        stem = exports.file_stem(result.question)
        parts.append(exports.download_link(exports.csv_bytes(table), f"{stem}.csv", "text/csv",
                                           "Download CSV"))
        parts.append(exports.download_link(exports.parquet_bytes(table), f"{stem}.parquet",
                                           "application/vnd.apache.parquet", "Download Parquet"))
    return f'<div class="nl2sql-exports">{"".join(parts)}</div>' if parts else ""
