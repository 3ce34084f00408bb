"""The plan walkers and PlanScope: what validation and the SQL generator both rely on."""

from __future__ import annotations

from nl2sql.plan import (
    Aggregate,
    ColumnRef,
    Comparison,
    PlanModel,
    ScalarSubquery,
    SelectItem,
    TableRef,
    clause_expressions,
    col,
    has_aggregate,
    plan_scopes,
    walk,
    walk_expression,
)
from nl2sql.schema.models import Column, SchemaSnapshot, Table

SNAPSHOT = SchemaSnapshot(datasource_id="shop", dialect="duckdb", tables=[
    Table(name="orders", columns=[Column(name="id", type="INTEGER"), Column(name="amount", type="INTEGER")]),
])
INNER = PlanModel(tables=[TableRef(name="orders", alias="i")],
                  select=[SelectItem(expr=Aggregate(func="avg", arg=col("amount", "i")))])
OUTER = PlanModel(tables=[TableRef(name="orders", alias="o")], select=[SelectItem(expr=col("id", "o"), alias="ident")],
                  where=Comparison(op=">", left=col("amount", "o"), right=ScalarSubquery(query=INNER)))


def test_walk_enters_nested_plans_and_walk_expression_does_not():
    assert sum(isinstance(n, Aggregate) for n in walk(OUTER)) == 1
    assert not any(isinstance(n, Aggregate) for n in walk_expression(OUTER.where))
    assert not has_aggregate(OUTER.where) and has_aggregate(INNER.select[0].expr)


def test_clause_expressions_name_the_clause_of_every_column():
    columns = [(c, n.name) for c, n in clause_expressions(OUTER) if isinstance(n, ColumnRef)]
    assert columns == [("select", "id"), ("where", "amount")]


def test_a_nested_plan_sees_the_aliases_around_it():
    outer, inner = plan_scopes(OUTER, SNAPSHOT)
    assert (outer.path, inner.path) == ("$", "$.where[0]")
    assert inner.declared("O") == ("o", SNAPSHOT.table("orders")) and outer.declared("i") is None
    assert outer.select_item("IDENT").alias == "ident" and not inner.select_alias("ident")
