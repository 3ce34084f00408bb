"""Answers for a quotient of two totals: a percentage, a fraction or a ratio.

What the answer says comes from the SQL's shape, not the question's words: a single select item
`100 * (a / b)` (or `(100 * a) / b`) is a percentage and its number gets "%"; a plain `a / b`
is a fraction or a ratio, with the percentage beside a share ("0.40 (40%)"). The denominator is
guarded (`NULLIF(b, 0)`, nl2sql/sqlgen/division.py), so an empty or zero denominator gives no
value, and the answer says so instead of "none". A second sentence says what was divided by
what ("Rows of shops that match the conditions, divided by all rows of shops, times 100.").
"""

from __future__ import annotations

from dataclasses import dataclass

from nl2sql.plan import (
    Aggregate,
    Arithmetic,
    BoolOp,
    Cast,
    ColumnRef,
    Comparison,
    Expr,
    Literal_,
    PlanModel,
    ScalarSubquery,
    is_aggregate,
    walk_expression,
)
from nl2sql.reasoning.offline.plan.ratio import share_parts

_RELATIVE = ("that", "which", "who", "with")
_FUNC_WORDS = {"sum": "the sum", "avg": "the average", "min": "the minimum", "max": "the maximum"}


@dataclass(frozen=True)
class Quotient:
    """A single-value plan that divides one total by another (× 100 for a percentage)."""

    numerator: Expr
    denominator: Expr
    percent: bool
    plan: PlanModel


def quotient(plan: PlanModel | None) -> Quotient | None:
    """The division a plan's one select item computes, or None when it computes no quotient."""
    if plan is None or len(plan.select) != 1 or plan.group_by or plan.set_operation is not None:
        return None
    expr, percent = _times_hundred(_bare(plan.select[0].expr))
    expr = _bare(expr)
    if not isinstance(expr, Arithmetic) or expr.op != "/":
        return None
    left, scaled = _times_hundred(_bare(expr.left))
    if (percent and scaled) or not (_total(left) and _total(expr.right)):
        return None  # 100 × 100 × a / b, or a value per row: not a share of a total
    return Quotient(left, expr.right, percent or scaled, plan)


def _total(expr: Expr) -> bool:
    """An aggregate, or a scalar subquery (itself a total)."""
    return any(is_aggregate(n) or isinstance(n, ScalarSubquery) for n in walk_expression(expr))


def _bare(expr: Expr) -> Expr:
    return expr.expr if isinstance(expr, Cast) else expr


def _times_hundred(expr: Expr) -> tuple[Expr, bool]:
    """(x, True) for `100 * x` or `x * 100`; (expr, False) otherwise."""
    if isinstance(expr, Arithmetic) and expr.op == "*":
        for factor, rest in ((expr.left, expr.right), (expr.right, expr.left)):
            if isinstance(factor, Literal_) and factor.value in (100, 100.0):
                return rest, True
    return expr, False


def quotient_answer(
    question: str, value: object, q: Quotient, fmt_number: str, subject: str | None = None
) -> str:
    """The answer sentence for the quotient `q` whose value is `value` (`fmt_number`: it
    formatted; `subject`: the question's "the ratio of A to B", when it asks "what is …"),
    then the line saying what was divided by what."""
    line = f" {interpretation(q)}"
    share = share_parts(question)
    if value is None:
        what = "percentage" if q.percent else share[0].lower() if share else "ratio"
        return f"There is no {what}: the total it divides by is zero or empty.{line}"
    number = f"{fmt_number}%" if q.percent else f"{fmt_number}{_as_percent(value, share)}"
    if share is not None and q.percent:
        _, whole, verb, part = share
        if verb.lower() in _RELATIVE:  # "Stores with a pool: 40% of all stores."
            return f"{whole[:1].upper()}{whole[1:]} {verb} {part}: {number} of all {whole}.{line}"
        return f"{number} of {whole} {verb} {part}.{line}"
    if share is not None:
        kind, whole, verb, part = share
        relative = verb if verb.lower() in _RELATIVE else f"that {verb}"
        return f"The {_kind(kind, q)} of {whole} {relative} {part} is {number}.{line}"
    if subject and ("percent" in subject.lower()) == q.percent:
        return f"{subject[:1].upper()}{subject[1:]} is {number}.{line}"
    return f"The {'percentage' if q.percent else 'ratio'} is {number}.{line}"


def _kind(word: str, q: Quotient) -> str:
    """The question's word for the share, unless it says "percentage" of a plain fraction."""
    word = word.lower()
    return "fraction" if word.startswith("percent") and not q.percent else word


def _as_percent(value: object, share: tuple[str, str, str, str] | None) -> str:
    """ " (40%)" beside a share of a whole given as a fraction."""
    if share is None or isinstance(value, bool):
        return ""
    if isinstance(value, (int, float)) and 0 <= value <= 1:
        return f" ({value * 100:.4g}%)"
    return ""


def interpretation(q: Quotient) -> str:
    """One plain line: "Rows of shops that match the conditions, divided by all rows of
    shops, times 100."."""
    top = _side(q.numerator, q.plan)
    bottom = _side(q.denominator, q.plan)
    text = f"{top}, divided by {bottom}{', times 100' if q.percent else ''}."
    return text[:1].upper() + text[1:]


def _side(expr: Expr, plan: PlanModel) -> str:
    """ "all rows of shops", "rows of shops that match the conditions", "the sum of
    trips.fare" — one side of the division, from its aggregate and its plan's filter."""
    expr = _bare(expr)
    if isinstance(expr, ScalarSubquery) and len(expr.query.select) == 1:
        return _side(expr.query.select[0].expr, expr.query)
    if not isinstance(expr, Aggregate):
        return "a computed value"
    tables = " joined with ".join(t.name for t in plan.tables)
    where = f" where {_condition(plan.where)}" if plan.where is not None else ""
    if expr.func == "count" and expr.arg is None:
        return f"rows of {tables}{where}" if where else f"all rows of {tables}"
    column = _column(expr.arg, plan)
    if expr.func == "count":
        what = f"{'distinct' if expr.distinct else 'non-empty'} values of {column}"
    else:
        what = f"{_FUNC_WORDS[expr.func]} of {'distinct ' if expr.distinct else ''}{column}"
    return what + (f" over rows{where}" if where else "")


def _condition(expr: Expr) -> str:
    """A filter as a reader would write it ("city = 'Oslo' and rating > 4"); "the conditions"
    for anything longer than comparisons joined by AND."""
    if isinstance(expr, BoolOp) and expr.op == "and":
        parts = [_condition(e) for e in expr.items]
        return " and ".join(parts) if "the conditions" not in parts else "the conditions"
    if isinstance(expr, Comparison) and isinstance(expr.left, ColumnRef):
        if isinstance(expr.right, Literal_) and expr.right.value is not None:
            value = expr.right.value
            shown = f"'{value}'" if isinstance(value, str) else str(value)
            return f"{expr.left.name} {expr.op} {shown}"
    return "the conditions"


def _column(expr: Expr | None, plan: PlanModel) -> str:
    if isinstance(expr, ColumnRef):
        names = plan.alias_map()
        table = names.get(expr.table or "", plan.tables[0].name if plan.tables else "")
        return f"{table}.{expr.name}" if table else expr.name
    return "a computed value"
