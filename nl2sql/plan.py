"""PlanModel: the typed query AST the planner emits and the generator renders with sqlglot.

A plan never contains SQL text. Every node is a pydantic model with a `kind` discriminator and
`extra="forbid"`, so a malformed plan from a model fails validation and is asked for again.
Column references name a table alias declared in `PlanModel.tables`; the generator quotes every
identifier when it renders.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

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
    ColumnRef | Literal_ | Star | Aggregate | Function | Extract | Arithmetic | Comparison | BoolOp | Not | IsNull | InList | Between | Like | Case | Cast | Exists | ScalarSubquery,
    Field(discriminator="kind"),
]


class TableRef(BaseModel):
    model_config = _FORBID
    name: str  # SchemaSnapshot Table.key
    alias: str


class Join(BaseModel):
    """Joins `alias` (a table declared in PlanModel.tables) to the tables before it."""

    model_config = _FORBID
    alias: str
    kind: Literal["inner", "left"] = "inner"
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


for _model in (
    Aggregate,
    Function,
    Extract,
    Arithmetic,
    Comparison,
    BoolOp,
    Not,
    IsNull,
    InList,
    Between,
    Like,
    When,
    Case,
    Cast,
    Exists,
    ScalarSubquery,
    Join,
    SelectItem,
    OrderItem,
    SetOperation,
    PlanModel,
):
    _model.model_rebuild()


def walk(node: object):
    """Yield every pydantic node under `node` (expressions and nested plans), depth first."""
    if isinstance(node, BaseModel):
        yield node
        for name in type(node).model_fields:
            yield from walk(getattr(node, name))
    elif isinstance(node, list):
        for item in node:
            yield from walk(item)


def col(name: str, table: str | None = None) -> ColumnRef:
    return ColumnRef(table=table, name=name)


def lit(value: str | int | float | bool | None) -> Literal_:
    return Literal_(value=value)
