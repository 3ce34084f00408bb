"""SQL highlighted as HTML with inline styles, so it looks the same in a widget, on GitHub and in
nbviewer (no stylesheet to ship). Falls back to escaped plain text without Pygments."""

from __future__ import annotations

from html import escape

_LEXERS = {"postgres": "postgresql", "postgresql": "postgresql", "mysql": "mysql", "mariadb": "mysql",
           "mssql": "tsql", "tsql": "tsql"}
_PRE = "margin:0;padding:6px;background:#f7f7f7;white-space:pre-wrap;font-size:12px"


def highlight_sql(sql: str, dialect: str | None = None) -> str:
    """`sql` as a highlighted `<pre>` block for `dialect` (the SQL itself is shown unchanged)."""
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import get_lexer_by_name
    except ImportError:  # pygments comes with IPython; a bare install still shows the SQL
        return f'<pre style="{_PRE}">{escape(sql)}</pre>'
    lexer = get_lexer_by_name(_LEXERS.get((dialect or "").lower(), "sql"))
    body = highlight(sql, lexer, HtmlFormatter(noclasses=True, nowrap=True, style="default"))
    return f'<pre style="{_PRE}">{body.rstrip()}</pre>'
