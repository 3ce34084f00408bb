"""SQL laid out one clause a line and highlighted as HTML with inline styles, so it looks the
same in a widget, on GitHub and in nbviewer (no stylesheet to ship).

The layout only replaces the space before a top-level clause keyword with a line break: the text is
otherwise exactly the SQL that ran, so a reader can copy it.
"""

from __future__ import annotations

from html import escape

from nl2sql.dialects import dialect_name

#: sqlglot dialect name -> pygments lexer name (aliases are resolved by nl2sql.dialects first).
_LEXERS = {"postgres": "postgresql", "mysql": "mysql", "tsql": "tsql"}
_PRE = ("margin:0;padding:6px;background:#f7f7f7;white-space:pre-wrap;word-break:normal;"
        "overflow-wrap:anywhere;font-size:12px")
_CLAUSES = frozenset({"FROM", "WHERE", "GROUP_BY", "HAVING", "ORDER_BY", "LIMIT", "OFFSET", "UNION",
                      "INTERSECT", "EXCEPT", "JOIN"})
_JOIN_WORDS = frozenset({"INNER", "LEFT", "RIGHT", "FULL", "CROSS", "OUTER", "NATURAL"})


def highlight_sql(sql: str, dialect: str | None = None) -> str:
    """`sql` as a highlighted `<pre>` block for `dialect` (the SQL itself is shown unchanged)."""
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import get_lexer_by_name
    except ImportError:  # pygments comes with IPython; a bare install still shows the SQL
        return f'<pre style="{_PRE}">{escape(layout_sql(sql, dialect))}</pre>'
    lexer = get_lexer_by_name(_LEXERS.get(dialect_name(dialect or ""), "sql"))
    sql = layout_sql(sql, dialect)
    body = highlight(sql, lexer, HtmlFormatter(noclasses=True, nowrap=True, style="default"))
    return f'<pre style="{_PRE}">{body.rstrip()}</pre>'


def layout_sql(sql: str, dialect: str | None = None) -> str:
    """`sql` with each top-level clause on its own line (only whitespace changes).

    >>> print(layout_sql('SELECT a FROM t INNER JOIN u ON t.i = u.i WHERE a IN (SELECT b FROM v) LIMIT 5'))
    SELECT a
    FROM t
    INNER JOIN u ON t.i = u.i
    WHERE a IN (SELECT b FROM v)
    LIMIT 5
    """
    breaks = _clause_starts(sql, dialect)
    out, last = [], 0
    for start in breaks:
        head = sql[last:start]
        out.append(head.rstrip(" ") + "\n" if head.endswith(" ") else head)
        last = start
    out.append(sql[last:])
    return "".join(out)


def _clause_starts(sql: str, dialect: str | None) -> list[int]:
    """Offsets of top-level clause keywords (a JOIN's from its first modifier, e.g. INNER)."""
    import sqlglot

    from nl2sql.dialects import sqlglot_dialect

    try:
        tokens = sqlglot.tokenize(sql, read=sqlglot_dialect(dialect) if dialect else None)
    except Exception:  # noqa: BLE001 - layout is a nicety: unreadable SQL is shown as it is
        return []
    starts, depth = [], 0
    for i, token in enumerate(tokens):
        kind = token.token_type.name
        depth += (kind == "L_PAREN") - (kind == "R_PAREN")
        if depth or kind not in _CLAUSES or i == 0:
            continue
        first = i
        while kind == "JOIN" and first > 0 and tokens[first - 1].token_type.name in _JOIN_WORDS:
            first -= 1
        starts.append(tokens[first].start)
    return starts
