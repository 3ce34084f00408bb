"""PlanModel: the typed query AST the planner emits and the generator renders with sqlglot.

A plan never contains SQL text. Every node is a pydantic model with a `kind` discriminator and
`extra="forbid"`, so a malformed plan from a model fails validation and is asked for again.
Column references name a table alias declared in `PlanModel.tables`; the generator quotes every
identifier when it renders.

Below the models: the walkers every reader of a plan uses, and `PlanScope`, where names resolve.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Annotated, Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from nl2sql.schema.models import Column, SchemaSnapshot, Table

_FORBID = ConfigDict(extra="forbid")


class ColumnRef(BaseModel):
    model_config = _FORBID
    kind: Literal["column"] = "column"
    table: str | None = None  # alias from PlanModel.tables; None only with a single table
    name: str


class Literal_(BaseModel):
    model_config = _FORBID
    kind: Literal["literal"] = "literal"
    value: str | int | float | bool | None


class Star(BaseModel):
    model_config = _FORBID
    kind: Literal["star"] = "star"
    table: str | None = None


class Aggregate(BaseModel):
    model_config = _FORBID
    kind: Literal["aggregate"] = "aggregate"
    func: Literal["count", "sum", "avg", "min", "max"]
    arg: Expr | None = None  # None means COUNT(*)
    distinct: bool = False


class MetricRef(BaseModel):
    """A semantic-layer metric by name; the generator renders its expression, readers its name."""

    model_config = _FORBID
    kind: Literal["metric"] = "metric"
    name: str
    table: str  # alias (PlanModel.tables) of the table the metric is declared for: its grain


class Function(BaseModel):
    """A scalar function from the generator's allow-list (lower, upper, abs, round, length, coalesce)."""

    model_config = _FORBID
    kind: Literal["function"] = "function"
    name: Literal["lower", "upper", "abs", "round", "length", "coalesce"]
    args: list[Expr]


class Extract(BaseModel):
    model_config = _FORBID
    kind: Literal["extract"] = "extract"
    part: Literal["year", "quarter", "month", "day"]
    expr: Expr


class Arithmetic(BaseModel):
    model_config = _FORBID
    kind: Literal["arithmetic"] = "arithmetic"
    op: Literal["+", "-", "*", "/"]
    left: Expr
    right: Expr


class Comparison(BaseModel):
    model_config = _FORBID
    kind: Literal["comparison"] = "comparison"
    op: Literal["=", "!=", "<", "<=", ">", ">="]
    left: Expr
    right: Expr


class BoolOp(BaseModel):
    model_config = _FORBID
    kind: Literal["bool"] = "bool"
    op: Literal["and", "or"]
    items: list[Expr] = Field(min_length=1)


class Not(BaseModel):
    model_config = _FORBID
    kind: Literal["not"] = "not"
    expr: Expr


class IsNull(BaseModel):
    model_config = _FORBID
    kind: Literal["is_null"] = "is_null"
    expr: Expr
    negated: bool = False


class InList(BaseModel):
    """`expr IN (values...)` or `expr IN (subquery)`; exactly one of values / query is set."""

    model_config = _FORBID
    kind: Literal["in"] = "in"
    expr: Expr
    values: list[Expr] = Field(default_factory=list)
    query: PlanModel | None = None
    negated: bool = False


class Between(BaseModel):
    model_config = _FORBID
    kind: Literal["between"] = "between"
    expr: Expr
    low: Expr
    high: Expr
    negated: bool = False


class Like(BaseModel):
    model_config = _FORBID
    kind: Literal["like"] = "like"
    expr: Expr
    pattern: str
    negated: bool = False
    case_insensitive: bool = False


class When(BaseModel):
    model_config = _FORBID
    condition: Expr
    value: Expr


class Case(BaseModel):
    model_config = _FORBID
    kind: Literal["case"] = "case"
    whens: list[When] = Field(min_length=1)
    else_: Expr | None = None


class Cast(BaseModel):
    model_config = _FORBID
    kind: Literal["cast"] = "cast"
    expr: Expr
    to: Literal["integer", "bigint", "double", "decimal", "text", "date", "timestamp", "boolean"]


class Exists(BaseModel):
    model_config = _FORBID
    kind: Literal["exists"] = "exists"
    query: PlanModel
    negated: bool = False


class ScalarSubquery(BaseModel):
    model_config = _FORBID
    kind: Literal["subquery"] = "subquery"
    query: PlanModel


Expr = Annotated[
    ColumnRef | Literal_ | Star | Aggregate | MetricRef | Function | Extract | Arithmetic | Comparison | BoolOp | Not | IsNull | InList | Between | Like | Case | Cast | Exists | ScalarSubquery,
    Field(discriminator="kind"),
]


class TableRef(BaseModel):
    """A snapshot table, or with `query` a derived table: a nested plan's rows and output names."""

    model_config = _FORBID
    name: str  # SchemaSnapshot Table.key; a derived table's own name
    alias: str
    query: PlanModel | None = Field(default=None, exclude_if=lambda v: v is None)  # dumps of plain tables unchanged


class Join(BaseModel):
    """Joins `alias` (a table declared in PlanModel.tables) to the tables before it."""

    model_config = _FORBID
    alias: str
    kind: Literal["inner", "left", "full"] = "inner"
    on: Expr


class SelectItem(BaseModel):
    model_config = _FORBID
    expr: Expr
    alias: str | None = None


class OrderItem(BaseModel):
    model_config = _FORBID
    expr: Expr
    direction: Literal["asc", "desc"] = "asc"


class SetOperation(BaseModel):
    model_config = _FORBID
    op: Literal["union", "intersect", "except"]
    all: bool = False
    right: PlanModel


class PlanModel(BaseModel):
    """One SELECT (optionally combined with another by a set operation)."""

    model_config = _FORBID

    tables: list[TableRef] = Field(min_length=1)
    joins: list[Join] = Field(default_factory=list)
    select: list[SelectItem] = Field(min_length=1)
    where: Expr | None = None
    group_by: list[Expr] = Field(default_factory=list)
    having: Expr | None = None
    order_by: list[OrderItem] = Field(default_factory=list)
    limit: int | None = Field(default=None, ge=0)
    offset: int | None = Field(default=None, ge=0)
    distinct: bool = False
    set_operation: SetOperation | None = None

    def alias_map(self) -> dict[str, str]:
        """alias -> table key."""
        return {t.alias: t.name for t in self.tables}


# Every model of this module refers to `Expr` or `PlanModel` before they exist: resolve them all
# now (derived from the module, so a new node type cannot be forgotten here).
for _model in [v for v in list(globals().values())
               if isinstance(v, type) and issubclass(v, BaseModel) and v.__module__ == __name__]:
    _model.model_rebuild()


# -- walking a plan ---------------------------------------------------------------------------
# One family of walkers for every part that reads plans (validation, sqlgen, the offline planner,
# post-execution checks, aggregation): "into nested plans or not" is the only choice, so it is
# spelled once here instead of once per reader.

#: The clauses of one plan that hold expressions, in the order rules report them.
CLAUSES = ("select", "joins", "where", "group_by", "having", "order_by")


def children(node: object) -> list[object]:
    """The direct children of a plan node (its fields' values, lists flattened)."""
    if isinstance(node, list):
        return node
    out: list[object] = []
    for name in getattr(type(node), "model_fields", {}):
        value = getattr(node, name)
        out += value if isinstance(value, list) else [value]
    return out


def walk(node: object) -> Iterator[BaseModel]:
    """Yield every pydantic node under `node` (expressions and nested plans), depth first."""
    if isinstance(node, BaseModel):
        yield node
    if isinstance(node, BaseModel | list):
        for child in children(node):
            yield from walk(child)


def walk_expression(node: object) -> Iterator[Expr]:
    """Every expression node under `node` (itself first), not entering nested plans."""
    if isinstance(node, PlanModel):
        return
    if isinstance(node, BaseModel) and hasattr(node, "kind"):
        yield cast("Expr", node)  # a model with a `kind` discriminator is an expression node
    if isinstance(node, BaseModel | list):
        for child in children(node):
            yield from walk_expression(child)


def is_aggregate(node: object) -> bool:
    """An aggregate node: an Aggregate, or a metric (itself an aggregate expression)."""
    return isinstance(node, Aggregate | MetricRef)


def has_aggregate(node: object) -> bool:
    """True when `node` contains an aggregate (or a metric) outside any nested plan."""
    return any(is_aggregate(n) for n in walk_expression(node))


def clause_roots(plan: PlanModel, clause: str) -> list[Expr]:
    """The top expressions of one clause of `plan` (a join's ON, an ORDER BY item's expression)."""
    value = getattr(plan, clause)
    if clause == "select":
        return [i.expr for i in value]
    if clause == "joins":
        return [j.on for j in value]
    if clause == "order_by":
        return [o.expr for o in value]
    return value if isinstance(value, list) else [value] if value is not None else []


def clause_expressions(plan: PlanModel) -> Iterator[tuple[str, Expr]]:
    """(clause, node) for every expression node of `plan`, not entering nested plans."""
    for clause in CLAUSES:
        for root in clause_roots(plan, clause):
            for node in walk_expression(root):
                yield clause, node


# -- where names resolve -----------------------------------------------------------------------

@dataclass(frozen=True)
class PlanScope:
    """One plan as its names resolve: its own table aliases, then its enclosing plans'.

    A plan nests other plans in IN / EXISTS / scalar subqueries, which see the aliases of the
    plans around them (correlation), and in set operations, whose right operand sees only what
    the left operand's surroundings see. The validator and the SQL generator both resolve names
    through this one type, so they never disagree on what a reference means.
    """

    plan: PlanModel
    tables: dict[str, Table | None]  # declared alias -> snapshot table (None: not in the snapshot)
    outer: PlanScope | None = field(default=None, repr=False)
    path: str = "$"  # where the plan sits in the outermost one, e.g. $.where[0]

    def declared(self, alias: str) -> tuple[str, Table | None] | None:
        """The declared spelling and table of `alias`, in this plan or an enclosing one."""
        level: PlanScope | None = self
        while level is not None:
            for name, table in level.tables.items():
                if name.lower() == alias.lower():
                    return name, table
            level = level.outer
        return None

    def owners(self, column: str) -> list[tuple[str, Table]]:
        """The tables of this level (not the outer ones) that have `column`."""
        return [(a, t) for a, t in self.tables.items() if t is not None and t.column(column)]

    def select_item(self, name: str) -> SelectItem | None:
        """The select item aliased `name` (case-insensitive; the last one if repeated)."""
        found = [i for i in self.plan.select if i.alias and i.alias.lower() == name.lower()]
        return found[-1] if found else None

    def select_alias(self, name: str) -> bool:
        return self.select_item(name) is not None


def plan_scopes(plan: PlanModel, snapshot: SchemaSnapshot) -> list[PlanScope]:
    """Every plan inside `plan` (itself first) with the scope it is resolved in."""
    scopes: list[PlanScope] = []
    _collect(plan, "$", None, snapshot, scopes)
    return scopes


def _collect(plan: PlanModel, path: str, outer: PlanScope | None, snapshot: SchemaSnapshot,
             out: list[PlanScope]) -> None:
    tables = {ref.alias: table_of(ref, snapshot) for ref in plan.tables}
    scope = PlanScope(plan=plan, tables=tables, outer=outer, path=path)
    out.append(scope)
    for n, ref in enumerate(r for r in plan.tables if r.query is not None):
        assert ref.query is not None
        _collect(ref.query, f"{path}.tables[{n}]", None, snapshot, out)  # sees no outer alias
    nested = [(c, q) for c, n in clause_expressions(plan) if isinstance(q := getattr(n, "query", None), PlanModel)]
    for n, (clause, query) in enumerate(nested):
        _collect(query, f"{path}.{clause}[{n}]", scope, snapshot, out)
    if plan.set_operation is not None:
        _collect(plan.set_operation.right, f"{path}.set_operation", outer, snapshot, out)


def table_of(ref: TableRef, snapshot: SchemaSnapshot) -> Table | None:
    """The snapshot's table `ref` reads, or a derived table's outputs (bare columns typed)."""
    if ref.query is None:
        return snapshot.table(ref.name)
    aliases = {t.alias: snapshot.table(t.name) for t in ref.query.tables if t.query is None}
    only = next(iter(aliases.values())) if len(aliases) == 1 else None
    columns = []
    for item in ref.query.select:
        e, found = item.expr, None
        if isinstance(e, ColumnRef):
            source = aliases.get(e.table) if e.table else only
            found = source.column(e.name) if source is not None else None
        if name := item.alias or (e.name if isinstance(e, ColumnRef) else None):
            columns.append(Column(name=name, type=found.type if found else ""))
    return Table(name=ref.name, kind="derived", columns=columns)


def col(name: str, table: str | None = None) -> ColumnRef:
    return ColumnRef(table=table, name=name)


def lit(value: str | int | float | bool | None) -> Literal_:
    return Literal_(value=value)
