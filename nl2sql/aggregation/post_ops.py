"""Post-combine operations (filter, aggregate, project, sort, limit), applied as a chain.

Expressions are PlanModel `Expr`s over the combined result's output column names; they are
turned into sqlglot expressions here (a deliberately small subset) and evaluated in DuckDB.
Filter and sort only ask DuckDB for a mask or an order and then take rows from the Arrow table,
so surviving columns keep their exact types; aggregate builds a new table.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pyarrow as pa
from sqlglot import exp

from nl2sql.aggregation.duck import (
    AggregationError,
    DuckSession,
    alias,
    column,
    order_column,
    unique_names,
    with_row_number,
)
from nl2sql.decomposition import PostCombineOp
from nl2sql.plan import Aggregate, Arithmetic, BoolOp, ColumnRef, Expr, InList, SelectItem, walk
from nl2sql.sqlgen.division import divide

_COMPARISONS = {"=": exp.EQ, "!=": exp.NEQ, "<": exp.LT, "<=": exp.LTE, ">": exp.GT, ">=": exp.GTE}
# a quotient is NULL, not infinity, over a zero denominator (nl2sql/sqlgen/division.py)
_ARITHMETIC: dict[str, Callable[..., exp.Expr]] = {
    "+": exp.Add,
    "-": exp.Sub,
    "*": exp.Mul,
    "/": divide,
}
_AGGREGATES = {"count": exp.Count, "sum": exp.Sum, "avg": exp.Avg, "min": exp.Min, "max": exp.Max}


def to_sqlglot(expr: Expr, *, aggregates: bool = False) -> exp.Expr:
    """A sqlglot expression for `expr`; AggregationError for kinds post-ops do not support.

    >>> from nl2sql.plan import Comparison, col, lit
    >>> to_sqlglot(Comparison(op=">=", left=col("revenue"), right=lit(10))).sql("duckdb")
    '"revenue" >= 10'
    """
    render = _RENDERERS.get(expr.kind)
    if expr.kind == "aggregate" and aggregates:
        return _aggregate_sql(expr)
    if isinstance(expr, Arithmetic) and aggregates:  # over aggregates: SUM(a) / SUM(b)
        operation = _ARITHMETIC[expr.op](this=to_sqlglot(expr.left, aggregates=True),
                                         expression=to_sqlglot(expr.right, aggregates=True))
        return exp.Paren(this=operation)
    if render is None:
        where = "an aggregate's argument" if aggregates else "post-combine operations"
        raise AggregationError(f"{where} do not support {expr.kind!r} expressions")
    return render(expr)


def _literal(value: str | int | float | bool | None) -> exp.Expr:
    if value is None:
        return exp.Null()
    if isinstance(value, bool):  # before int: bool is an int subclass
        return exp.Boolean(this=value)
    if isinstance(value, float) and not math.isfinite(value):
        raise AggregationError(f"literal {value!r} is not a finite number")
    if isinstance(value, int | float):
        return exp.Literal.number(value)
    return exp.Literal.string(value)


def _negate(expression: exp.Expr, negated: bool) -> exp.Expr:
    return exp.Not(this=exp.Paren(this=expression)) if negated else expression


def _in_list(e: InList) -> exp.Expr:
    if e.query is not None or not e.values:
        raise AggregationError("post-combine IN needs a list of values, not a subquery")
    values = [to_sqlglot(v) for v in e.values]
    return _negate(exp.In(this=to_sqlglot(e.expr), expressions=values), e.negated)


def _bool(e: BoolOp) -> exp.Expr:
    combine = exp.and_ if e.op == "and" else exp.or_
    return exp.Paren(this=combine(*(to_sqlglot(i) for i in e.items)))


_RENDERERS: dict[str, Callable[..., exp.Expr]] = {
    "column": lambda e: column(e.name),
    "literal": lambda e: _literal(e.value),
    "comparison": lambda e: _COMPARISONS[e.op](
        this=to_sqlglot(e.left), expression=to_sqlglot(e.right)
    ),
    "arithmetic": lambda e: exp.Paren(
        this=_ARITHMETIC[e.op](this=to_sqlglot(e.left), expression=to_sqlglot(e.right))
    ),
    "bool": _bool,
    "not": lambda e: exp.Not(this=exp.Paren(this=to_sqlglot(e.expr))),
    "is_null": lambda e: _negate(exp.Is(this=to_sqlglot(e.expr), expression=exp.Null()), e.negated),
    "in": _in_list,
    "between": lambda e: _negate(
        exp.Between(this=to_sqlglot(e.expr), low=to_sqlglot(e.low), high=to_sqlglot(e.high)),
        e.negated,
    ),
    "like": lambda e: _negate(
        (exp.ILike if e.case_insensitive else exp.Like)(
            this=to_sqlglot(e.expr), expression=exp.Literal.string(e.pattern)
        ),
        e.negated,
    ),
    # The generator's allow-listed scalar functions (lower, upper, abs, round, length, coalesce).
    "function": lambda e: exp.func(e.name, *(to_sqlglot(a) for a in e.args), dialect="duckdb"),
}


def _aggregate_sql(agg: Aggregate) -> exp.Expr:
    if agg.arg is None or agg.arg.kind == "star":
        if agg.func != "count":
            raise AggregationError(f"{agg.func}(*) is not an aggregate; name a column")
        return exp.Count(this=exp.Star())
    arg = to_sqlglot(agg.arg)
    inner = exp.Distinct(expressions=[arg]) if agg.distinct else arg
    return _AGGREGATES[agg.func](this=inner)


def _check_columns(table: pa.Table, exprs: list[Expr], what: str) -> None:
    """Name an unknown column in one line instead of DuckDB's multi-line binder error."""
    for node in walk(exprs):
        if isinstance(node, ColumnRef) and node.name not in table.column_names:
            raise AggregationError(
                f"{what} names unknown column {node.name!r}; "
                f"columns are: {', '.join(table.column_names)}"
            )


def apply_post_op(duck: DuckSession, table: pa.Table, op: PostCombineOp) -> pa.Table:
    """Apply one post-combine operation to `table`."""
    return _OPERATIONS[op.op](duck, table, op)


def _filter(duck: DuckSession, table: pa.Table, op: PostCombineOp) -> pa.Table:
    if op.condition is None:
        raise AggregationError(f"filter {op.op_id!r} has no condition")
    _check_columns(table, [op.condition], "filter")
    row = order_column([table])
    ref = duck.register(with_row_number(table, row))
    query = exp.select(to_sqlglot(op.condition)).from_(ref).order_by(column(row))
    mask = duck.query(query).column(0)
    if not pa.types.is_boolean(mask.type):
        raise AggregationError(f"filter {op.op_id!r} condition is not true/false but {mask.type}")
    return table.filter(mask)  # rows where the condition is NULL are dropped, as in SQL


def _sort(duck: DuckSession, table: pa.Table, op: PostCombineOp) -> pa.Table:
    if not op.order_by:
        raise AggregationError(f"sort {op.op_id!r} has no order_by")
    _check_columns(table, [o.expr for o in op.order_by], "sort")
    row = order_column([table])
    ref = duck.register(with_row_number(table, row))
    keys = [
        exp.Ordered(this=to_sqlglot(o.expr), desc=o.direction == "desc", nulls_first=False)
        for o in op.order_by
    ]
    # The row number breaks ties, so equal keys keep their input order (a stable sort).
    order = duck.query(exp.select(column(row)).from_(ref).order_by(*keys, column(row)))
    return table.take(order.column(0))


def _aggregate(duck: DuckSession, table: pa.Table, op: PostCombineOp) -> pa.Table:
    if not op.group_by and not op.aggregates:
        raise AggregationError(f"aggregate {op.op_id!r} has neither group_by nor aggregates")
    group_refs: list[Expr] = [ColumnRef(name=g) for g in op.group_by]
    _check_columns(table, group_refs + [a.expr for a in op.aggregates], "aggregate")
    names = unique_names(
        list(op.group_by) + [_output_name(a, i) for i, a in enumerate(op.aggregates)]
    )
    exprs = [column(g) for g in op.group_by] + [
        to_sqlglot(a.expr, aggregates=True) for a in op.aggregates
    ]
    query = exp.select(*(alias(e, n) for e, n in zip(exprs, names, strict=True)))
    query = query.from_(duck.register(table))
    if op.group_by:
        groups = [column(g) for g in op.group_by]
        # Groups come back in key order: DuckDB's hash aggregate has no stable order.
        query = query.group_by(*groups).order_by(*groups)
    return duck.query(query)


def _output_name(item: SelectItem, position: int) -> str:
    if item.alias:
        return item.alias
    e = item.expr
    if isinstance(e, Aggregate):
        if e.arg is None or e.arg.kind == "star":
            return e.func
        return (
            f"{e.func}_{e.arg.name}" if isinstance(e.arg, ColumnRef) else f"{e.func}_{position + 1}"
        )
    return e.name if isinstance(e, ColumnRef) else f"expr_{position + 1}"


def _project(duck: DuckSession, table: pa.Table, op: PostCombineOp) -> pa.Table:
    if not op.columns:
        raise AggregationError(f"project {op.op_id!r} names no columns")
    _check_columns(table, [ColumnRef(name=c) for c in op.columns], "project")
    return table.select(op.columns)


def _limit(duck: DuckSession, table: pa.Table, op: PostCombineOp) -> pa.Table:
    if op.limit is None or op.limit < 0:
        raise AggregationError(f"limit {op.op_id!r} needs a limit of 0 or more, got {op.limit}")
    return table.slice(0, op.limit)


_OPERATIONS: dict[str, Callable[[DuckSession, pa.Table, PostCombineOp], pa.Table]] = {
    "filter": _filter,
    "aggregate": _aggregate,
    "project": _project,
    "sort": _sort,
    "limit": _limit,
}
