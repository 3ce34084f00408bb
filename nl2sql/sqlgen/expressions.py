"""Plan expressions -> sqlglot expressions, resolved in a `nl2sql.plan.PlanScope`.

The query-level assembly (FROM, joins, ORDER BY, set operations) is in `render.py`, which
subclasses `ExpressionBuilder` and supplies `query()` for nested plans.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable

from sqlglot import errors as sqlglot_errors
from sqlglot import exp

from nl2sql.errors import SQLGenError
from nl2sql.plan import (
    Aggregate,
    Arithmetic,
    Between,
    BoolOp,
    Case,
    Cast,
    ColumnRef,
    Comparison,
    Exists,
    Expr,
    Extract,
    Function,
    InList,
    IsNull,
    Like,
    Literal_,
    MetricRef,
    Not,
    PlanModel,
    PlanScope,
    ScalarSubquery,
    Star,
)
from nl2sql.schema.models import Column, SchemaSnapshot, Table
from nl2sql.sqlgen.dialects import DATE_LITERAL
from nl2sql.sqlgen.division import divide
from nl2sql.sqlgen.metrics import metric_tree

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?P<time>[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$")
_TEMPORAL = (exp.DataType.Type.DATE, exp.DataType.Type.DATETIME, exp.DataType.Type.TIMESTAMP)
_CAST_TYPES = {
    "integer": "INT",
    "bigint": "BIGINT",
    "double": "DOUBLE",
    "decimal": "DECIMAL",
    "text": "TEXT",
    "date": "DATE",
    "timestamp": "TIMESTAMP",
    "boolean": "BOOLEAN",
}
_COMPARISONS = {"=": exp.EQ, "!=": exp.NEQ, "<": exp.LT, "<=": exp.LTE, ">": exp.GT, ">=": exp.GTE}
_ARITHMETIC = {"+": exp.Add, "-": exp.Sub, "*": exp.Mul}
_AGGREGATES = {"count": exp.Count, "sum": exp.Sum, "avg": exp.Avg, "min": exp.Min, "max": exp.Max}
_FUNCTIONS = {"lower": exp.Lower, "upper": exp.Upper, "abs": exp.Abs, "length": exp.Length}
_ARITY = {"lower": 1, "upper": 1, "abs": 1, "length": 1, "round": 2, "coalesce": None}
# Nodes that never need parentheses as an operand; anything else is wrapped, because sqlglot
# generates a built tree as is and would print (a + b) * c as a + b * c.
_ATOMS = (exp.Column, exp.Literal, exp.Null, exp.Boolean, exp.Func, exp.Subquery, exp.Paren)


def ident(name: str) -> exp.Identifier:
    """A quoted identifier."""
    return exp.to_identifier(name, quoted=True)


def _paren(node: exp.Expr) -> exp.Expr:
    if isinstance(node, exp.Paren):
        return node
    # operators first: in sqlglot, AND and OR are Func subclasses too
    if isinstance(node, exp.Binary | exp.Unary | exp.Predicate) or not isinstance(node, _ATOMS):
        return exp.Paren(this=node)
    return node


def _negate(node: exp.Expr, negated: bool) -> exp.Expr:
    return exp.Not(this=node) if negated else node


def _is_temporal(node: exp.Expr) -> bool:
    column = node.meta.get("nl2sql_column") if isinstance(node, exp.Column) else None
    if isinstance(column, Column):
        return column.is_temporal
    return isinstance(node, exp.Cast) and node.to.is_type(*_TEMPORAL)


class ExpressionBuilder(ABC):
    """Turns plan expressions into sqlglot nodes; one `_x_<kind>` method per expression kind.

    A metric renders as its expression (`expand_metrics`) or, for reading, as its name."""

    snapshot: SchemaSnapshot | None = None
    expand_metrics: bool = True

    @abstractmethod
    def query(self, plan: PlanModel, outer: PlanScope | None, top: bool) -> exp.Query:
        """Build a nested plan whose column references may use the aliases of `outer`."""

    def expr(self, node: Expr, scope: PlanScope, clause: str) -> exp.Expr:
        """Render one plan expression; `clause` decides where select aliases may be used."""
        render: Callable[[Expr, PlanScope, str], exp.Expr] = getattr(self, f"_x_{node.kind}")
        return render(node, scope, clause)

    def _x_column(self, node: ColumnRef, scope: PlanScope, clause: str) -> exp.Expr:
        if node.table is not None:
            found = scope.declared(node.table)
            if found is None:
                raise SQLGenError(
                    f"Column {node.table}.{node.name} uses an undeclared table alias."
                )
            return _qualified(found[0], found[1], node.name)
        item = scope.select_item(node.name) if clause in ("group", "having", "order") else None
        if item is not None and not scope.owners(node.name):
            # PostgreSQL accepts a select alias only as a whole ORDER BY item: inline it elsewhere
            return self.expr(item.expr, scope, "select")
        return _unqualified(node.name, scope)

    def _x_literal(self, node: Literal_, scope: PlanScope, clause: str) -> exp.Expr:
        value = node.value
        if value is None:
            return exp.Null()
        if isinstance(value, bool):
            return exp.Boolean(this=value)
        if isinstance(value, int | float):
            if value != value or value in (float("inf"), float("-inf")):
                raise SQLGenError(f"The number {value} has no SQL literal.")
            return exp.Literal.number(value)
        return exp.Literal.string(value)

    def _x_star(self, node: Star, scope: PlanScope, clause: str) -> exp.Expr:
        raise SQLGenError("* can only be a whole select item or the argument of COUNT.")

    def _x_aggregate(self, node: Aggregate, scope: PlanScope, clause: str) -> exp.Expr:
        if node.arg is None or isinstance(node.arg, Star):
            if node.func != "count" or node.distinct:
                raise SQLGenError(f"{node.func.upper()} needs a column, not *.")
            return exp.Count(this=exp.Star())
        arg = self.expr(node.arg, scope, clause)
        result = _AGGREGATES[node.func](
            this=exp.Distinct(expressions=[arg]) if node.distinct else arg
        )
        if node.func in ("sum", "min", "max") and arg.type is not None:
            result.type = arg.type.copy()  # SUM of a DOUBLE is a DOUBLE: no cast before `/`
        return result

    def _x_metric(self, node: MetricRef, scope: PlanScope, clause: str) -> exp.Expr:
        found = scope.declared(node.table)
        if found is None:
            raise SQLGenError(f"Metric {node.table}.{node.name} uses an undeclared table alias.")
        alias, table = found
        if not self.expand_metrics:
            named = exp.Column(this=ident(node.name), table=ident(alias))
            named.add_comments(["metric"])
            return named
        metric = table.metric(node.name) if table is not None else None
        if table is None or metric is None:
            where = table.key if table is not None else "its table"
            raise SQLGenError(f"Metric {node.name!r} is not defined for {where} (alias {alias}).")
        dialect = self.snapshot.dialect if self.snapshot is not None else None
        try:
            tree = metric_tree(metric.expression, dialect)
        except sqlglot_errors.ParseError:
            raise SQLGenError(f"Metric {metric.name!r} does not parse: {metric.expression}") from None

        def qualify(part: exp.Expr) -> exp.Expr:
            if isinstance(part, exp.Column) and not isinstance(part.this, exp.Star):
                return _qualified(alias, table, part.name)
            return part

        return tree.transform(qualify)

    def _x_function(self, node: Function, scope: PlanScope, clause: str) -> exp.Expr:
        args = [self.expr(a, scope, clause) for a in node.args]
        most = _ARITY[node.name]
        if not args or (most is not None and len(args) > most):
            raise SQLGenError(f"{node.name.upper()} got {len(args)} arguments.")
        if node.name == "round":
            return exp.Round(this=args[0], **({"decimals": args[1]} if len(args) > 1 else {}))
        if node.name == "coalesce":
            return exp.Coalesce(this=args[0], expressions=args[1:])
        return _FUNCTIONS[node.name](this=args[0])

    def _x_extract(self, node: Extract, scope: PlanScope, clause: str) -> exp.Expr:
        inner = self.expr(node.expr, scope, clause)
        return exp.Extract(this=exp.var(node.part.upper()), expression=inner)

    def _x_arithmetic(self, node: Arithmetic, scope: PlanScope, clause: str) -> exp.Expr:
        left = _paren(self.expr(node.left, scope, clause))
        right = _paren(self.expr(node.right, scope, clause))
        if node.op == "/":
            return divide(left, right)  # true division, NULL (not an error) over zero
        return _ARITHMETIC[node.op](this=left, expression=right)

    def _x_comparison(self, node: Comparison, scope: PlanScope, clause: str) -> exp.Expr:
        left = self.expr(node.left, scope, clause)
        right = self.expr(node.right, scope, clause)
        left, right = _date_literal(node.left, left, right), _date_literal(node.right, right, left)
        return _COMPARISONS[node.op](this=_paren(left), expression=_paren(right))

    def _x_bool(self, node: BoolOp, scope: PlanScope, clause: str) -> exp.Expr:
        items = [self.expr(i, scope, clause) for i in node.items]
        items = [exp.Paren(this=i) if isinstance(i, exp.Connector) else i for i in items]
        result = items[0]
        for item in items[1:]:
            result = (exp.And if node.op == "and" else exp.Or)(this=result, expression=item)
        return result

    def _x_not(self, node: Not, scope: PlanScope, clause: str) -> exp.Expr:
        return exp.Not(this=_paren(self.expr(node.expr, scope, clause)))

    def _x_is_null(self, node: IsNull, scope: PlanScope, clause: str) -> exp.Expr:
        inner = _paren(self.expr(node.expr, scope, clause))
        # `x IS NOT NULL` reads better than sqlglot's canonical `NOT x IS NULL`
        null = exp.Not(this=exp.Null()) if node.negated else exp.Null()
        return exp.Is(this=inner, expression=null)

    def _x_in(self, node: InList, scope: PlanScope, clause: str) -> exp.Expr:
        if bool(node.values) == (node.query is not None):
            raise SQLGenError(
                "IN needs either a list of values or a subquery, not both or neither."
            )
        left = self.expr(node.expr, scope, clause)
        if node.query is not None:
            query = exp.Subquery(this=self.query(node.query, scope, top=False))
            return _negate(exp.In(this=_paren(left), query=query), node.negated)
        values = [self.expr(v, scope, clause) for v in node.values]
        values = [
            _date_literal(v, rendered, left)
            for v, rendered in zip(node.values, values, strict=True)
        ]
        return _negate(exp.In(this=_paren(left), expressions=values), node.negated)

    def _x_between(self, node: Between, scope: PlanScope, clause: str) -> exp.Expr:
        inner = self.expr(node.expr, scope, clause)
        low = _date_literal(node.low, self.expr(node.low, scope, clause), inner)
        high = _date_literal(node.high, self.expr(node.high, scope, clause), inner)
        between = exp.Between(this=_paren(inner), low=_paren(low), high=_paren(high))
        return _negate(between, node.negated)

    def _x_like(self, node: Like, scope: PlanScope, clause: str) -> exp.Expr:
        # ILIKE where the engine has it; sqlglot writes LOWER(x) LIKE LOWER(p) elsewhere
        cls = exp.ILike if node.case_insensitive else exp.Like
        inner = _paren(self.expr(node.expr, scope, clause))
        return _negate(cls(this=inner, expression=exp.Literal.string(node.pattern)), node.negated)

    def _x_case(self, node: Case, scope: PlanScope, clause: str) -> exp.Expr:
        ifs = [
            exp.If(
                this=self.expr(w.condition, scope, clause), true=self.expr(w.value, scope, clause)
            )
            for w in node.whens
        ]
        default = self.expr(node.else_, scope, clause) if node.else_ is not None else None
        return exp.Case(ifs=ifs, default=default)

    def _x_cast(self, node: Cast, scope: PlanScope, clause: str) -> exp.Expr:
        inner = self.expr(node.expr, scope, clause)
        return exp.Cast(this=inner, to=exp.DataType.build(_CAST_TYPES[node.to]))

    def _x_exists(self, node: Exists, scope: PlanScope, clause: str) -> exp.Expr:
        return _negate(exp.Exists(this=self.query(node.query, scope, top=False)), node.negated)

    def _x_subquery(self, node: ScalarSubquery, scope: PlanScope, clause: str) -> exp.Expr:
        return exp.Subquery(this=self.query(node.query, scope, top=False))


def _qualified(alias: str, table: Table | None, name: str) -> exp.Column:
    column = table.column(name) if table is not None else None
    node = exp.Column(this=ident(column.name if column else name), table=ident(alias))
    if column is not None:
        node.meta["nl2sql_column"] = column
        try:  # a known non-integer type spares the cast that keeps `/` a real division
            kind = exp.DataType.build(column.type, udt=True)
        except Exception:  # an engine type sqlglot cannot parse: leave the column untyped
            kind = None
        if kind is not None and kind.is_type(*exp.DataType.REAL_TYPES):
            node.type = kind
    return node


def _unqualified(name: str, scope: PlanScope) -> exp.Column:
    """Qualify a column named without a table with the alias of the table that has it."""
    level: PlanScope | None = scope
    while level is not None:
        owners = level.owners(name)
        if len(owners) > 1:
            names = ", ".join(a for a, _ in owners)
            raise SQLGenError(f"Column {name!r} is ambiguous: it is in {names}.")
        if owners:
            return _qualified(owners[0][0], owners[0][1], name)
        level = level.outer
    if len(scope.tables) == 1:
        alias, table = next(iter(scope.tables.items()))
        return _qualified(alias, table, name)
    return exp.Column(this=ident(name))


def _date_literal(node: Expr, rendered: exp.Expr, other: exp.Expr) -> exp.Expr:
    """CAST an ISO date string compared with a temporal column to DATE or TIMESTAMP."""
    if not (isinstance(node, Literal_) and isinstance(node.value, str)):
        return rendered
    match = _ISO_DATE.match(node.value.strip())
    if match is None or not _is_temporal(other):
        return rendered
    kind = "TIMESTAMP" if match.group("time") else "DATE"
    cast = exp.Cast(this=rendered, to=exp.DataType.build(kind))
    cast.meta[DATE_LITERAL] = True
    return cast
