"""Query → PlanModel: join tree, aliases (t1 for the root, t2… in join order) and expressions.

Output names are predictable because other sub-queries join on them: a column keeps its name
(`district_name`, `genre`; `<table>_<column>` on a clash), a date part is named by the part
(`year`), COUNT(*) is `count_<table>`, COUNT(DISTINCT c) is `count_distinct_<c>` (COUNT(c) of a
column holding one value per row `count_<c>`), and the other
aggregates are `<func>_<column>` (`sum_fee`, `avg_list_price`).
When a join repeats the rows of the counted table (it follows a foreign key "backwards"), COUNT(*)
becomes COUNT(DISTINCT primary key) so every row is counted once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, timedelta

from nl2sql.plan import (
    Aggregate,
    Between,
    BoolOp,
    ColumnRef,
    Comparison,
    Expr,
    Extract,
    InList,
    Join,
    MetricRef,
    OrderItem,
    PlanModel,
    ScalarSubquery,
    SelectItem,
    SetOperation,
    Star,
    TableRef,
    lit,
)
from nl2sql.reasoning.offline.catalog.index import FKEdge, SchemaIndex
from nl2sql.reasoning.offline.plan.joins import JoinTree, Tie, connect, inferred_note
from nl2sql.reasoning.offline.shapes.spec import (
    Agg,
    Col,
    Cond,
    GroupExtreme,
    Part,
    Query,
    Target,
    Unclear,
)


def snake(name: str) -> str:
    return re.sub(r"[^0-9a-z]+", "_", name.lower()).strip("_") or "value"


class PlanBuilder:
    """Builds one PlanModel (and nested ones) for a Query over one index."""

    def __init__(
        self, idx: SchemaIndex, words: set[str], avoid_fan_out: bool = False, prefix: str = "t"
    ):
        self.idx = idx
        self.words = words
        self.avoid_fan_out = avoid_fan_out
        self.prefix = prefix
        self.notes: list[str] = []
        self.tree: JoinTree | None = None
        self.inferred: list[str] = []  # joins along undeclared relationships, nested ones too
        self.ties: list[Tie] = []  # join paths the question does not choose between, nested too
        self.edges: list[FKEdge] = []  # the keys joined on, nested queries' too

    def build(self, q: Query) -> PlanModel:
        """The PlanModel of `q`; JoinError when its tables are not connected."""
        self.q = q
        self.tree = tree = connect(self.idx, q.root, q.tables(), q.preferred, self.words)
        self.alias = {q.root: f"{self.prefix}1"}
        for i, step in enumerate(tree.steps, start=2):
            self.alias[step.table] = f"{self.prefix}{i}"
        self.notes += tree.notes
        self.ties += tree.ties
        self.edges += [s.edge for s in tree.steps]
        self.inferred += [inferred_note(s.edge) for s in tree.inferred]
        self._check_negated(q, tree)
        joins = [Join(alias=self.alias[s.table], on=self._on(s.pairs())) for s in tree.steps]
        select = self._select(q)
        where = [self._cond(c) for c in q.where]
        if q.in_subquery is not None:
            col, sub = q.in_subquery
            inner = PlanBuilder(self.idx, self.words, self.avoid_fan_out, prefix="s")
            where.append(InList(expr=self._expr(col), query=inner.build(sub)))
            self._nested(inner, notes=True)
        if q.extreme is not None:
            where.append(self._group_extreme(q.extreme))
        for n, (col, sub) in enumerate(q.anti, start=1):
            inner = PlanBuilder(self.idx, self.words, self.avoid_fan_out, prefix=f"n{n}_")
            where.append(InList(expr=self._expr(col), query=inner.build(sub), negated=True))
            self._nested(inner)
        having = [self._cond(c) for c in q.having]
        # a listing through a join that repeats its rows ("members who have a loan") shows each once
        listing_fans_out = (
            tree.fans_out and not any(isinstance(t, Agg) for t, _ in q.select) and q.limit is None
        )
        set_operation = None
        if q.set_op is not None:
            op, other = q.set_op
            right = PlanBuilder(self.idx, self.words, self.avoid_fan_out, prefix=f"{self.prefix}b")
            set_operation = SetOperation(op=op, right=right.build(other))
            self._nested(right)
        return PlanModel(
            set_operation=set_operation,
            tables=[TableRef(name=t, alias=self.alias[t]) for t in tree.tables],
            joins=joins,
            select=select,
            where=_and(where),
            group_by=[self._expr(t) for t in q.group],
            having=_and(having),
            order_by=[OrderItem(expr=self._expr(t), direction=d) for t, d in q.order],
            limit=q.limit,
            distinct=(listing_fans_out or q.distinct) and not q.group and not q.star,
        )

    def _group_extreme(self, g: GroupExtreme) -> Expr:
        """measure = (SELECT MAX(measure) FROM its table WHERE by = the outer row's by)."""
        inner, table = f"{self.prefix}g1", g.measure.table
        outer = self.alias[table]
        same = [
            Comparison(
                op="=", left=ColumnRef(table=inner, name=c), right=ColumnRef(table=outer, name=c)
            )
            for c in g.by
        ]
        top = Aggregate(func=g.func, arg=ColumnRef(table=inner, name=g.measure.column))
        sub = PlanModel(
            tables=[TableRef(name=table, alias=inner)],
            select=[SelectItem(expr=top, alias=f"{g.func}_{snake(g.measure.column)}")],
            where=_all(same),
        )
        return Comparison(op="=", left=self._expr(g.measure), right=ScalarSubquery(query=sub))

    def _check_negated(self, q: Query, tree: JoinTree) -> None:
        # "not X" on a table whose rows the join repeats means "no row with X" (NOT EXISTS), which
        # a != filter does not express.
        fanned = {s.table for s in tree.steps if s.fan_out}
        for c in q.where:
            if (
                c.negated
                and isinstance(c.target, Col)
                and (c.target.table in fanned or (tree.fans_out and c.target.table != q.root))
            ):
                raise Unclear(
                    f"'not {c.text}' on {c.target.table} rows needs NOT EXISTS; not supported"
                )

    def _on(self, pairs: list[tuple[str, str, str, str]]) -> Expr:
        items = [
            Comparison(
                op="=",
                left=ColumnRef(table=self.alias[a], name=ca),
                right=ColumnRef(table=self.alias[b], name=cb),
            )
            for a, ca, b, cb in pairs
        ]
        return _all(items)

    def _select(self, q: Query) -> list[SelectItem]:
        if q.star:
            table = self.idx.tables[q.root]
            hidden = set(table.semantic.hidden) if table.semantic is not None else set()
            if not hidden:
                return [SelectItem(expr=Star(table=self.alias[q.root]))]
            # "every column" of a table with hidden columns: the others, by name
            return [SelectItem(expr=ColumnRef(table=self.alias[q.root], name=c.name), alias=c.name)
                    for c in table.columns if c.name not in hidden]
        items: list[SelectItem] = []
        names: set[str] = set()
        for target, alias in q.select:
            name = alias or self.name_of(target)
            if name in names and isinstance(target, Col):
                name = f"{snake(self.idx.tables[target.table].name)}_{target.column}"
            while name in names:
                name += "_2"
            names.add(name)
            items.append(SelectItem(expr=self._expr(target), alias=name))
        return items

    def name_of(self, target: Target) -> str:
        """The output column name of a select target."""
        if isinstance(target, Col):
            return target.column
        if isinstance(target, Part):
            return target.part
        if target.metric is not None:
            return target.metric
        if target.col is None:
            return f"count_{snake(self.idx.tables[target.table].name)}"
        if target.func == "count":
            return f"count_{'distinct_' if target.distinct else ''}{snake(target.col.column)}"
        return f"{target.func}_{snake(target.col.column)}"

    def _expr(self, target: Target) -> Expr:
        if isinstance(target, Col):
            return ColumnRef(table=self.alias[target.table], name=target.column)
        if isinstance(target, Part):
            return Extract(part=target.part, expr=self._expr(target.col))
        if target.metric is not None:
            return MetricRef(name=target.metric, table=self.alias[target.table])
        if target.col is not None:
            return Aggregate(func=target.func, arg=self._expr(target.col), distinct=target.distinct)
        return self._count_rows(target.table)

    def _count_rows(self, table: str) -> Expr:
        fans_out = self.tree is not None and self.tree.fans_out
        if not (table != self.q.root or fans_out or self.avoid_fan_out):
            return Aggregate(func="count", arg=None)
        key = self.idx.row_key(table)
        if key is None and (fans_out or table != self.q.root):
            # COUNT(*) over repeated rows would state a wrong number as certain
            raise Unclear(f"the joins repeat {table} rows and no column of {table} tells its "
                          "rows apart, so they cannot be counted once each")
        if key is None:
            return Aggregate(func="count", arg=None)
        if fans_out:
            self.notes.append(f"joins repeat {table} rows: counting DISTINCT {table}.{key}")
        return Aggregate(func="count", arg=self._expr(Col(table, key)), distinct=True)

    def _nested(self, inner: PlanBuilder, notes: bool = False) -> None:
        """What a nested query's builder found about its joins (its notes where asked)."""
        self.inferred += inner.inferred
        self.ties += inner.ties
        self.edges += inner.edges
        if notes:
            self.notes += inner.notes

    def _cond(self, c: Cond) -> Expr:
        if c.op == "or":
            return BoolOp(op="or", items=[self._cond(part) for part in c.values])
        expr = self._expr(c.target)
        if c.values and isinstance(c.values[0], Query):  # "above the average": a scalar sub-query
            inner = PlanBuilder(self.idx, self.words, self.avoid_fan_out, prefix=f"{self.prefix}v")
            sub = inner.build(c.values[0])
            self._nested(inner)
            return Comparison(op=c.op, left=expr, right=ScalarSubquery(query=sub))
        values = [lit(v) for v in c.values]
        if c.op == "in":
            return InList(expr=expr, values=values, negated=c.negated)
        if c.op == "between":
            return Between(expr=expr, low=values[0], high=values[1], negated=c.negated)
        if c.op == "range":
            return self._range(c, expr)
        op = {"=": "!=", "!=": "="}.get(c.op, c.op) if c.negated else c.op
        return Comparison(op=op, left=expr, right=values[0])

    def _range(self, c: Cond, expr: Expr) -> Expr:
        low, high = c.values
        col = c.target
        column = self.idx.column(col.table, col.column) if isinstance(col, Col) else None
        is_day = column is not None and "TIME" not in column.type.upper() and column.is_temporal
        if low and high and is_day:
            last = (date.fromisoformat(high) - timedelta(days=1)).isoformat()
            return Between(expr=expr, low=lit(low), high=lit(last))
        items: list[Expr] = []
        if low:
            items.append(Comparison(op=">=", left=expr, right=lit(low)))
        if high:
            items.append(Comparison(op="<", left=expr, right=lit(high)))
        return _all(items)


def _and(items: Sequence[Expr]) -> Expr | None:
    if not items:
        return None
    return items[0] if len(items) == 1 else BoolOp(op="and", items=list(items))


def _all(items: Sequence[Expr]) -> Expr:
    """The AND of at least one item: a join's key pairs, a date range's bounds (one at least)."""
    combined = _and(items)
    assert combined is not None
    return combined
