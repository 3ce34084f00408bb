"""What a plan did, in words the answer may use: the counted or summed thing, DISTINCT or not,
the joined tables, and the key a ranking ordered by.

The answer synthesizer reads these instead of the question, so an answer never claims what the
SQL did not do: "distinct" only with DISTINCT, a row count said to be a row count, a top answer
with ties said to have ties.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nl2sql.plan import (
    Aggregate,
    ColumnRef,
    Comparison,
    Expr,
    MetricRef,
    PlanModel,
    ScalarSubquery,
    walk,
)
from nl2sql.reasoning.offline.words.text import canon, split_identifier

_FUNC_WORDS = {"sum": "sum", "avg": "average", "min": "minimum", "max": "maximum"}
# words that claim an aggregate, and the aggregates that bear them out ("the total number of
# orders" is a count, or a sum of a count column; "the total amount" a sum)
_CLAIMS = (
    (re.compile(r"\b(?:average|mean|avg)\b", re.I), {"avg"}),
    (re.compile(r"\b(?:total|sum)\b(?!\s+(?:number|count)\b)", re.I), {"sum"}),
    (re.compile(r"\b(?:number|count)\s+of\b", re.I), {"count", "sum"}),
)


@dataclass(frozen=True)
class Measure:
    """The one aggregate of a single-value answer."""

    func: str  # count | sum | avg | min | max
    column: str | None  # "table.column"; None for COUNT(*)
    distinct: bool
    tables: tuple[str, ...]  # the plan's tables, FROM first (more than one: a join)


def has_distinct(plan: PlanModel | None) -> bool:
    """True when the plan (or a nested one) has SELECT DISTINCT or an aggregate over DISTINCT."""
    if plan is None:
        return False
    return any(
        (isinstance(n, PlanModel) and n.distinct) or (isinstance(n, Aggregate) and n.distinct)
        for n in walk(plan)
    )


def measure(plan: PlanModel | None) -> Measure | None:
    """The aggregate of a plan selecting exactly one aggregate, else None."""
    if plan is None or len(plan.select) != 1 or plan.set_operation is not None:
        return None
    agg = plan.select[0].expr
    if not isinstance(agg, Aggregate):
        return None
    names = plan.alias_map()
    column = _column(agg.arg, names) if agg.arg is not None else None
    if agg.arg is not None and column is None:
        return None  # an expression: nothing short to say about it
    return Measure(agg.func, column, agg.distinct, tuple(t.name for t in plan.tables))


def claims_unsupported(text: str, plan: PlanModel | None) -> bool:
    """Whether `text` names an aggregate ("average", "total", "number of") that the plan's one
    selected value does not compute: an answer must not repeat it ("the average price" of a
    SUM is not an average); without a plan nothing is known to contradict it."""
    if plan is None:
        return False
    expr = plan.select[0].expr if len(plan.select) == 1 else None
    func = expr.func if isinstance(expr, Aggregate) else None
    return any(pattern.search(text) and func not in funcs for pattern, funcs in _CLAIMS)


def describe(m: Measure) -> str:
    """One plain line saying what the query computed ("counted rows of orders")."""
    over = _over(m.tables)
    if m.func == "count" and m.column is None:
        return f"counted rows of {over}"
    if m.func == "count":
        kind = "distinct" if m.distinct else "non-empty"
        return f"counted {kind} values of {m.column}" + ("" if len(m.tables) == 1 else f" in {over}")
    word = _FUNC_WORDS[m.func]
    distinct = " distinct values of" if m.distinct else ""
    return f"{word} of{distinct} {m.column}" + ("" if len(m.tables) == 1 else f" over {over}")


def names_column(m: Measure, text: str) -> bool:
    """Whether `text` names the column the aggregate read ("the total revenue" for
    SUM(stores.revenue)), so the answer need not add which column it was."""
    if m.column is None:
        return True
    words = {canon(w) for w in text.split()}
    return bool(words & {canon(w) for w in split_identifier(m.column.split(".")[-1])})


def counts_subject(m: Measure, subject: str) -> bool:
    """Whether a count may be stated as a number of `subject` ("149 customers"): a COUNT(*) of
    one table, or a count whose table or column is named by the subject's words."""
    if m.func != "count":
        return False
    if m.column is None and len(m.tables) == 1:
        return True
    named = m.column or m.tables[0]
    words = {canon(w) for w in subject.split()}
    parts = {canon(w) for part in named.split(".") for w in split_identifier(part)}
    return bool(words & parts) and (m.distinct or len(m.tables) == 1)


def ranking_key(plan: PlanModel | None, columns: list[str]) -> tuple[int | None, str, str] | None:
    """(index of the ranked column in the result or None, direction, its name) of a ranking
    plan: ORDER BY its first key, or a filter `column = (SELECT MAX/MIN(column) …)`."""
    if plan is None:
        return None
    if plan.order_by:
        item = plan.order_by[0]
        return _position(plan, item.expr, columns), item.direction, _name(item.expr, plan)
    for node in walk(plan.where) if plan.where is not None else ():
        if (
            isinstance(node, Comparison)
            and node.op == "="
            and isinstance(node.right, ScalarSubquery)
            and len(node.right.query.select) == 1
            and isinstance(agg := node.right.query.select[0].expr, Aggregate)
            and agg.func in ("max", "min")
        ):
            direction = "desc" if agg.func == "max" else "asc"
            return _position(plan, node.left, columns), direction, _name(node.left, plan)
    return None


@dataclass(frozen=True)
class GroupTop:
    """A plan keeping each group's top rows: `measure = (SELECT MAX(measure) … WHERE the inner
    rows' group = the outer row's)`, a correlated sub-query."""

    measure: int | None  # result column of the measure
    func: str  # max | min
    groups: tuple[int, ...]  # result columns that tell the groups apart
    name: str  # the measure's column name


def group_top(plan: PlanModel | None, columns: list[str]) -> GroupTop | None:
    """The per-group extreme of `plan`, when its filter is one (see `GroupTop`)."""
    if plan is None or plan.where is None:
        return None
    for node in walk(plan.where):
        if not (
            isinstance(node, Comparison)
            and node.op == "="
            and isinstance(node.left, ColumnRef)
            and isinstance(node.right, ScalarSubquery)
        ):
            continue
        sub = node.right.query
        agg = sub.select[0].expr if len(sub.select) == 1 else None
        own = {t.alias for t in sub.tables}
        inner = walk(sub.where) if sub.where is not None else []
        outer = [n for n in inner if isinstance(n, ColumnRef) and n.table not in own]
        if not isinstance(agg, Aggregate) or agg.func not in ("max", "min") or not outer:
            continue
        measure_alias = node.left.table
        groups = tuple(
            i
            for i, item in enumerate(plan.select[: len(columns)])
            if isinstance(e := item.expr, ColumnRef)
            and (e.table != measure_alias or any(o.name == e.name for o in outer))
        )
        return GroupTop(_position(plan, node.left, columns), agg.func, groups, node.left.name)
    return None


def _position(plan: PlanModel, expr: Expr, columns: list[str]) -> int | None:
    """The result column of `expr`: the select item it equals or whose alias it names."""
    dumped = expr.model_dump_json()
    for i, item in enumerate(plan.select[: len(columns)]):
        if item.expr.model_dump_json() == dumped:
            return i
        if isinstance(expr, ColumnRef) and expr.table is None and item.alias == expr.name:
            return i
    return None


def _name(expr: Expr, plan: PlanModel) -> str:
    if isinstance(expr, ColumnRef):
        return expr.name
    if isinstance(expr, MetricRef):
        return expr.name
    if isinstance(expr, Aggregate):
        inner = _column(expr.arg, plan.alias_map()) if expr.arg is not None else None
        return "count" if expr.func == "count" else f"{_FUNC_WORDS[expr.func]} {inner or ''}".strip()
    item = next((i for i in plan.select if i.expr == expr and i.alias), None)
    return item.alias if item and item.alias else "value"


def _column(expr: Expr | None, names: dict[str, str]) -> str | None:
    if not isinstance(expr, ColumnRef):
        return None
    table = names.get(expr.table or "", next(iter(names.values()), ""))
    return f"{table}.{expr.name}" if table else expr.name


def _over(tables: tuple[str, ...]) -> str:
    return " joined with ".join(tables)
