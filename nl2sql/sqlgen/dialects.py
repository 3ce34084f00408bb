"""The per-dialect rewrites that sqlglot's generators do not do by themselves.

`plan_to_expression` builds one dialect-neutral sqlglot tree; `adapt` rewrites a copy of it for
one target before sqlglot generates the text. sqlglot already handles most differences (ILIKE
without ILIKE, LENGTH as CHAR_LENGTH in MySQL, SQLite's LIMIT -1 OFFSET, real division where `/`
truncates, NULLS FIRST/LAST); what is here is what it leaves wrong, each checked on the engine.
"""

from __future__ import annotations

from sqlglot import exp

from nl2sql.errors import SQLGenError

#: meta key that marks a CAST the builder added around an ISO date string literal.
DATE_LITERAL = "nl2sql_date_literal"

# MySQL has no OFFSET without LIMIT; its manual's idiom is the largest unsigned BIGINT.
_MYSQL_NO_LIMIT = "18446744073709551615"

# Precision for a bare DECIMAL cast where the engine's default would silently drop the
# fraction (MySQL: DECIMAL(10, 0)) or keep only three digits of it (DuckDB: DECIMAL(18, 3)).
_WIDE_DECIMAL = "DECIMAL(38, 10)"

_STRFTIME = {"YEAR": "%Y", "QUARTER": "%m", "MONTH": "%m", "DAY": "%d"}


def adapt(query: exp.Expr, dialect: str, *, copy: bool = True) -> exp.Expr:
    """Return a copy of the neutral `query` rewritten for the sqlglot `dialect`; with
    `copy=False`, `query` itself is rewritten (a tree its caller just built and owns alone)."""
    rewrites = _REWRITES.get(dialect, ())
    out = query.copy() if copy else query
    for rewrite in rewrites:
        out = out.transform(rewrite, copy=False)
    return out


def _is_real(node: exp.Expr) -> bool:
    """True when `node` is known to be non-integer: typed as such, or itself a real division."""
    inner = node.unnest() if isinstance(node, exp.Paren) else node
    return isinstance(inner, exp.Div) or inner.is_type(*exp.DataType.REAL_TYPES)


def _strip_date_literal(node: exp.Expr) -> exp.Expr:
    # SQLite stores dates as ISO text, so the literal compares correctly as a plain string.
    if isinstance(node, exp.Cast) and node.meta.get(DATE_LITERAL):
        literal: exp.Expr = node.this
        return literal
    return node


def _sqlite_extract(node: exp.Expr) -> exp.Expr:
    # SQLite has no EXTRACT and sqlglot leaves it as is: use STRFTIME, cast to a number.
    if not isinstance(node, exp.Extract):
        return node
    part = node.this.name.upper()
    if part not in _STRFTIME:
        raise SQLGenError(f"EXTRACT({part}) cannot be rendered for SQLite.", dialect="sqlite")
    fmt = exp.Anonymous(
        this="STRFTIME", expressions=[exp.Literal.string(_STRFTIME[part]), node.expression]
    )
    number = exp.Cast(this=fmt, to=exp.DataType.build("INT"))
    if part != "QUARTER":
        return number
    # (month + 2) / 3 with SQLite's integer division: typed=True keeps sqlglot from casting to REAL
    shifted = exp.Paren(this=exp.Add(this=number, expression=exp.Literal.number(2)))
    return exp.Paren(this=exp.Div(this=shifted, expression=exp.Literal.number(3), typed=True))


def _sqlite_decimal(node: exp.Expr) -> exp.Expr:
    # SQLite has no fixed-point type; a parameterised DECIMAL would become REAL(38, 10).
    if isinstance(node, exp.DataType) and node.this == exp.DataType.Type.DECIMAL:
        return exp.DataType.build("DOUBLE")
    return node


def _postgres_extract(node: exp.Expr) -> exp.Expr:
    # PostgreSQL 14+ returns NUMERIC from EXTRACT; the other engines return integers.
    if isinstance(node, exp.Extract) and not isinstance(node.parent, exp.Cast):
        return exp.Cast(this=node, to=exp.DataType.build("INT"))
    return node


def _postgres_round(node: exp.Expr) -> exp.Expr:
    # ROUND(double precision, int) does not exist in PostgreSQL; ROUND(numeric, int) does.
    if isinstance(node, exp.Round) and node.args.get("decimals") is not None:
        arg = node.this
        if not arg.is_type(exp.DataType.Type.DECIMAL):
            arg.replace(exp.Cast(this=arg.copy(), to=exp.DataType.build("DECIMAL")))
    return node


def _no_backslash_literal(node: exp.Expr, charset: str | None = None) -> exp.Expr:
    # Whether a backslash escapes the next quote depends on server settings (PostgreSQL
    # standard_conforming_strings, MySQL NO_BACKSLASH_ESCAPES), so the SQL guard refuses such
    # literals: spell each backslash as CHR(92) / CHAR(92) between plain quoted pieces instead.
    if not (isinstance(node, exp.Literal) and node.is_string and "\\" in node.this):
        return node
    pieces: list[exp.Expr] = []
    for i, text in enumerate(node.this.split("\\")):
        if i:
            code = exp.Chr(expressions=[exp.Literal.number(92)])
            if charset is not None:
                code.set("charset", exp.var(charset))
            pieces.append(code)
        if text:
            pieces.append(exp.Literal.string(text))
    return exp.Paren(this=exp.Concat(expressions=pieces, safe=True)) if len(pieces) > 1 else pieces[0]


def _mysql_no_backslash_literal(node: exp.Expr) -> exp.Expr:
    # MySQL's CHAR(92) alone is a binary string; in the connection's text charset it compares
    # like the column's own values.
    return _no_backslash_literal(node, "utf8mb4")


def _mysql_offset(node: exp.Expr) -> exp.Expr:
    if isinstance(node, exp.Query) and node.args.get("offset") and not node.args.get("limit"):
        node.set("limit", exp.Limit(expression=exp.Literal.number(_MYSQL_NO_LIMIT)))
    return node


def _mysql_in_limit(node: exp.Expr) -> exp.Expr:
    # MySQL/MariaDB refuse LIMIT in an IN subquery, but accept it one derived table deeper.
    query = node.args.get("query") if isinstance(node, exp.In) else None
    if not isinstance(query, exp.Subquery):
        return node
    inner = query.this
    if isinstance(inner, exp.Query) and inner.args.get("limit"):
        derived = exp.Subquery(this=inner.copy(), alias=exp.TableAlias(this=_quoted("_in")))
        query.set("this", exp.Select(expressions=[exp.Star()]).from_(derived, copy=False))
    return node


def _quoted(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=True)


def _mysql_division(node: exp.Expr) -> exp.Expr:
    # MySQL divides integers into a DECIMAL with only 4 more digits (div_precision_increment):
    # a DOUBLE operand gives the same real division as the other engines.
    if isinstance(node, exp.Div) and not node.args.get("typed"):
        left = node.this
        if not _is_real(left) and not _is_real(node.expression):
            left.replace(exp.Cast(this=left.copy(), to=exp.DataType.build("DOUBLE")))
    return node


def _wide_decimal(node: exp.Expr) -> exp.Expr:
    if (
        isinstance(node, exp.DataType)
        and node.this == exp.DataType.Type.DECIMAL
        and not node.expressions
        and isinstance(node.parent, exp.Cast)
        and node.parent.args.get("to") is node
    ):
        return exp.DataType.build(_WIDE_DECIMAL)
    return node


_REWRITES = {
    "sqlite": (_strip_date_literal, _sqlite_extract, _sqlite_decimal),
    "postgres": (_postgres_extract, _postgres_round, _no_backslash_literal),
    "mysql": (_mysql_offset, _mysql_in_limit, _mysql_division, _wide_decimal,
              _mysql_no_backslash_literal),
    "duckdb": (_wide_decimal,),
}
