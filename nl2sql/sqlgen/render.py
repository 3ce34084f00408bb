"""Render a PlanModel as SQL: one dialect-neutral sqlglot tree, adapted per dialect.

What the rendered SQL guarantees, on every dialect:
- Every identifier is quoted. Table keys resolve through the snapshot (`sales.orders` ->
  "sales"."orders"; split on the first dot without one); columns take the snapshot's spelling; a
  column without a table alias is qualified with the one table in scope that has it.
- NULLs sort as the smallest value (SQLite's and MySQL's order), and `/` is a real division.
- In the outermost SELECT, an item without an alias whose expression contains an aggregate gets
  a derived alias, so result columns are named alike everywhere: the function, `distinct` when
  set, then the argument (`count_star`, `sum_amount`, `count_distinct_customer_id`,
  `sum_amount_div_count_star`, `round_avg_price`; a metric by its name), lower-case, made
  unique with `_2`, `_3`.
  Other items keep the engine's natural column name.
- With a set operation, the plan's own ORDER BY / LIMIT / OFFSET apply to the combined result
  (ORDER BY names output columns); the right operand's own ones stay inside that operand.
- A metric of the semantic layer is its expression, its columns qualified with the plan's alias
  for the metric's table.
- An ISO date string compared with a DATE/TIMESTAMP column (per the snapshot) is CAST to DATE or
  TIMESTAMP; SQLite, where dates are text, keeps the plain string.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sqlglot import exp
from sqlglot.errors import ErrorLevel, UnsupportedError

from nl2sql.dialects import sqlglot_dialect
from nl2sql.errors import SQLGenError, safe_one_line
from nl2sql.plan import (
    Aggregate,
    Arithmetic,
    Cast,
    ColumnRef,
    Expr,
    Extract,
    Function,
    Literal_,
    MetricRef,
    PlanModel,
    PlanScope,
    Star,
    TableRef,
    has_aggregate,
    table_of,
)
from nl2sql.schema.models import SchemaSnapshot, Table
from nl2sql.sqlgen.dialects import adapt
from nl2sql.sqlgen.expressions import ExpressionBuilder, ident

_SET_OPS = {"union": exp.Union, "intersect": exp.Intersect, "except": exp.Except}
_OP_WORDS = {"+": "plus", "-": "minus", "*": "times", "/": "div"}


def plan_to_expression(plan: PlanModel, snapshot: SchemaSnapshot | None = None, *,
                       expand_metrics: bool = True) -> exp.Query:
    """Build the dialect-neutral sqlglot query for `plan`, every identifier quoted; a metric is
    its expression, or with `expand_metrics=False` its name (`"o"."revenue" /* metric */`)."""
    return _QueryBuilder(snapshot, expand_metrics).query(plan, outer=None, top=True)


def render_plan(plan: PlanModel, dialect: str, snapshot: SchemaSnapshot | None = None) -> str:
    """Render `plan` as SQL text for `dialect` (a sqlglot or SQLAlchemy dialect name).

    >>> from nl2sql.plan import SelectItem, col
    >>> p = PlanModel(tables=[TableRef(name="t", alias="t")], select=[SelectItem(expr=col("a"))])
    >>> render_plan(p, "mysql")
    'SELECT `t`.`a` FROM `t` AS `t`'
    """
    name = sqlglot_dialect(dialect)
    # The tree is built here and used once: rewritten and generated in place, without the two
    # defensive deep copies (adapt's and sqlglot's generator's) that cost more than building it.
    query = adapt(plan_to_expression(plan, snapshot), name, copy=False)
    try:
        return query.sql(dialect=name, identify=True, unsupported_level=ErrorLevel.RAISE, copy=False)
    except UnsupportedError as exc:
        raise SQLGenError(
            f"The plan uses something {name} cannot express: {safe_one_line(exc)}", dialect=name
        ) from exc


class _QueryBuilder(ExpressionBuilder):
    """Assembles SELECTs and set operations around the expressions `ExpressionBuilder` builds."""

    def __init__(self, snapshot: SchemaSnapshot | None, expand_metrics: bool = True):
        self.snapshot = snapshot
        self.expand_metrics = expand_metrics

    def query(self, plan: PlanModel, outer: PlanScope | None, top: bool) -> exp.Query:
        """Build `plan` (and its set operation) in the table scope `outer` encloses."""
        scope = self._scope(plan, outer)
        aliases = select_aliases(plan, derive=top)
        select = self._select(plan, scope, aliases)
        if plan.set_operation is None:
            self._order_limit(plan, select, lambda node: self._order_key(node, scope))
            return select
        operation = plan.set_operation
        right: exp.Expr = self.query(operation.right, outer, top=False)
        if isinstance(right, exp.SetOperation):
            # A UNION (B EXCEPT C): the nesting must survive every engine's precedence rules
            right = exp.Subquery(this=right)
        compound = _SET_OPS[operation.op](this=select, expression=right, distinct=not operation.all)
        self._order_limit(plan, compound, lambda node: _output_key(node, plan, aliases))
        return compound

    def _scope(self, plan: PlanModel, outer: PlanScope | None) -> PlanScope:
        tables: dict[str, Table | None] = {}
        for ref in plan.tables:
            if ref.alias.lower() in {a.lower() for a in tables}:
                raise SQLGenError(f"Table alias {ref.alias!r} is declared twice.")
            tables[ref.alias] = table_of(ref, self.snapshot) if self.snapshot else None
        return PlanScope(plan=plan, tables=tables, outer=outer)

    def _select(self, plan: PlanModel, scope: PlanScope, aliases: list[str | None]) -> exp.Select:
        items = []
        for item, alias in zip(plan.select, aliases, strict=True):
            node = self._select_item(item.expr, scope)
            items.append(exp.Alias(this=node, alias=ident(alias)) if alias else node)
        select = exp.Select(expressions=items)
        self._from(plan, scope, select)
        if plan.where is not None:
            select.set("where", exp.Where(this=self.expr(plan.where, scope, "where")))
        if plan.group_by:
            group = [self.expr(g, scope, "group") for g in plan.group_by]
            select.set("group", exp.Group(expressions=group))
        if plan.having is not None:
            select.set("having", exp.Having(this=self.expr(plan.having, scope, "having")))
        if plan.distinct:
            select.set("distinct", exp.Distinct())
        return select

    def _select_item(self, node: Expr, scope: PlanScope) -> exp.Expr:
        if not isinstance(node, Star):
            return self.expr(node, scope, "select")
        if node.table is None:
            return exp.Star()
        found = scope.declared(node.table)
        if found is None:
            raise SQLGenError(f"{node.table}.* uses an undeclared table alias.")
        return exp.Column(this=exp.Star(), table=ident(found[0]))

    def _from(self, plan: PlanModel, scope: PlanScope, select: exp.Select) -> None:
        declared = {t.alias.lower() for t in plan.tables[1:]}
        joins = {}
        for join in plan.joins:
            key = join.alias.lower()
            if key not in declared or key in joins:
                raise SQLGenError(f"Join of {join.alias!r}: not a later table, or joined twice.")
            joins[key] = join
        select.set("from_", exp.From(this=self._table(plan.tables[0])))
        for ref in plan.tables[1:]:
            joined = joins.get(ref.alias.lower())
            if joined is None:  # a table listed without a join condition: a cross product
                select.append("joins", exp.Join(this=self._table(ref), kind="CROSS"))
                continue
            on = self.expr(joined.on, scope, "join")
            side = {"side": joined.kind.upper()} if joined.kind != "inner" else {"kind": "INNER"}
            select.append("joins", exp.Join(this=self._table(ref), on=on, **side))

    def _table(self, ref: TableRef) -> exp.Expr:
        if ref.query is not None:  # a derived table: its plan, named like a table's output
            inner = self.query(ref.query, outer=None, top=True)
            return exp.Subquery(this=inner, alias=exp.TableAlias(this=ident(ref.alias)))
        table = self.snapshot.table(ref.name) if self.snapshot else None
        if table is not None:
            schema, name = table.schema_name, table.name
        elif "." in ref.name:
            schema, name = ref.name.split(".", 1)
        else:
            schema, name = None, ref.name
        alias = exp.TableAlias(this=ident(ref.alias))
        return exp.Table(this=ident(name), db=ident(schema) if schema else None, alias=alias)

    def _order_limit(
        self, plan: PlanModel, query: exp.Query, key: Callable[[Expr], exp.Expr]
    ) -> None:
        if plan.order_by:
            # nulls_first on ascending order = NULL is the smallest value, on every engine
            ordered = [
                exp.Ordered(
                    this=key(o.expr), desc=o.direction == "desc", nulls_first=o.direction == "asc"
                )
                for o in plan.order_by
            ]
            query.set("order", exp.Order(expressions=ordered))
        if plan.limit is not None:
            query.set("limit", exp.Limit(expression=exp.Literal.number(plan.limit)))
        if plan.offset is not None:
            query.set("offset", exp.Offset(expression=exp.Literal.number(plan.offset)))

    def _order_key(self, node: Expr, scope: PlanScope) -> exp.Expr:
        item = scope.select_item(node.name) if isinstance(node, ColumnRef) and node.table is None else None
        if item is not None and item.alias is not None:  # select_item matched on the alias
            return exp.Column(this=ident(item.alias))
        return self.expr(node, scope, "order")


def _output_key(node: Expr, plan: PlanModel, aliases: list[str | None]) -> exp.Expr:
    """ORDER BY key of a set operation: an output column's name, or its position."""
    names = [
        alias or (item.expr.name if isinstance(item.expr, ColumnRef) else None)
        for item, alias in zip(plan.select, aliases, strict=True)
    ]
    index = next((i for i, item in enumerate(plan.select) if item.expr == node), None)
    if index is None and isinstance(node, ColumnRef):
        wanted = node.name.lower()
        index = next((i for i, n in enumerate(names) if n and n.lower() == wanted), None)
    if index is None:
        raise SQLGenError("ORDER BY of a set operation must name one of its selected columns.")
    name = names[index]
    return exp.Column(this=ident(name)) if name else exp.Literal.number(index + 1)


def select_aliases(plan: PlanModel, derive: bool, every: bool = False) -> list[str | None]:
    """The alias each select item is rendered with: its own, else (when `derive`) a derived one
    for an item that contains an aggregate (with `every`: for any item but a bare column), unique
    among the select's output names."""
    taken = {i.alias.lower() for i in plan.select if i.alias}
    taken |= {i.expr.name.lower() for i in plan.select if isinstance(i.expr, ColumnRef)}
    aliases: list[str | None] = []
    for item in plan.select:
        needs = has_aggregate(item.expr) or (every and not isinstance(item.expr, ColumnRef | Star))
        if item.alias or not derive or not needs:
            aliases.append(item.alias)
            continue
        base = re.sub(r"[^0-9a-z]+", "_", _name_of(item.expr).lower()).strip("_")[:60] or "value"
        name, n = base, 2
        while name in taken:
            name, n = f"{base}_{n}", n + 1
        taken.add(name)
        aliases.append(name)
    return aliases


def _name_of(node: Expr | None) -> str:
    """A readable name for an expression: count_star, sum_amount, year_order_date..."""
    match node:
        case None | Star():
            return "star"
        case ColumnRef():
            return node.name
        case MetricRef():
            return node.name
        case Aggregate():
            return "_".join(
                [node.func, *(["distinct"] if node.distinct else []), _name_of(node.arg)]
            )
        case Literal_():
            return str(node.value)
        case Function():
            return f"{node.name}_{_name_of(node.args[0])}" if node.args else node.name
        case Extract():
            return f"{node.part}_{_name_of(node.expr)}"
        case Arithmetic():
            return f"{_name_of(node.left)}_{_OP_WORDS[node.op]}_{_name_of(node.right)}"
        case Cast():
            return _name_of(node.expr)
    return node.kind
