"""Division that never fails and never answers infinity: `a / NULLIF(b, 0)` on every dialect.

Engines disagree on `x / 0`: PostgreSQL raises, SQLite and MySQL return NULL, DuckDB returns
infinity for a real quotient. A ratio whose denominator is empty is undefined, so every division
the generator and the post-combine operations write has its denominator wrapped in
`NULLIF(…, 0)` (written out, not left to sqlglot's per-dialect `safe` flag, so the SQL an
analyst reads says it on every engine). A non-zero number literal needs no guard.
"""

from __future__ import annotations

from sqlglot import exp


def safe_denominator(node: exp.Expr) -> exp.Expr:
    """`node` wrapped in NULLIF(node, 0), unless it is a number literal other than zero.

    >>> safe_denominator(exp.column("n")).sql()
    'NULLIF(n, 0)'
    >>> safe_denominator(exp.Literal.number(4)).sql()
    '4'
    """
    inner = node.unnest() if isinstance(node, exp.Paren) else node
    if isinstance(inner, exp.Literal) and not inner.is_string and float(inner.this) != 0:
        return node
    if isinstance(inner, exp.Nullif):
        return node
    return exp.Nullif(this=inner, expression=exp.Literal.number(0))


def divide(this: exp.Expr, expression: exp.Expr) -> exp.Div:
    """`this / NULLIF(expression, 0)`: a true division (sqlglot casts where an engine would
    truncate integers) that is NULL when the denominator is zero.

    >>> divide(exp.column("a"), exp.column("b")).sql("postgres")
    'CAST(a AS DOUBLE PRECISION) / NULLIF(b, 0)'
    """
    return exp.Div(this=this, expression=safe_denominator(expression), typed=False, safe=False)
