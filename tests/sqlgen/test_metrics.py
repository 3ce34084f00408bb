"""A metric of the semantic layer in a plan: rendered as its own expression, its columns
qualified with the plan's alias, on every engine; shown by its name for reading."""

from __future__ import annotations

import re
from statistics import mean

import pytest

from nl2sql.errors import SQLGenError
from nl2sql.notebook.plan_tree import plan_tree, tree_text
from nl2sql.plan import (
    Arithmetic,
    Comparison,
    Join,
    MetricRef,
    OrderItem,
    PlanModel,
    SelectItem,
    TableRef,
    col,
    lit,
)
from nl2sql.schema.models import SchemaSnapshot, SemanticMetric, TableSemantics
from nl2sql.sqlgen import render_plan

from .golden import DIALECTS, normalize_rows
from .shop import ROWS, snapshot

METRICS = {
    "orders": [
        SemanticMetric(name="avg_order", expression="AVG(amount)", columns=["amount"]),
        # a table-qualified column and a division: requalified, and a real division everywhere
        SemanticMetric(name="paid_per_order", expression="SUM(orders.amount) / COUNT(*)",
                       columns=["amount"]),
    ],
    "order_items": [SemanticMetric(name="units", expression="sum(quantity)", columns=["quantity"])],
}


def _with_metrics(dialect: str = "duckdb") -> SchemaSnapshot:
    base = snapshot(dialect)
    tables = [t.model_copy(update={"semantic": TableSemantics(metrics=METRICS[t.name])})
              if t.name in METRICS else t for t in base.tables]
    return base.model_copy(update={"tables": tables})


def _per_customer() -> PlanModel:
    """Each customer's average order and paid amount per order, above 50, largest first."""
    avg = MetricRef(name="avg_order", table="o")
    return PlanModel(
        tables=[TableRef(name="orders", alias="o"), TableRef(name="customers", alias="c")],
        joins=[Join(alias="c", on=Comparison(op="=", left=col("customer_id", "o"),
                                             right=col("customer_id", "c")))],
        select=[SelectItem(expr=col("name", "c")), SelectItem(expr=avg),
                SelectItem(expr=MetricRef(name="paid_per_order", table="o")),
                SelectItem(expr=Arithmetic(op="*", left=avg, right=lit(2)), alias="twice")],
        group_by=[col("name", "c")],
        having=Comparison(op=">", left=avg, right=lit(50)),
        order_by=[OrderItem(expr=avg, direction="desc")],
    )


def _expected() -> list[tuple]:
    names = {c[0]: c[1] for c in ROWS["customers"]}
    rows = []
    for cid, name in names.items():
        orders = [o[4] for o in ROWS["orders"] if o[1] == cid]
        paid = [a for a in orders if a is not None]
        if not paid or mean(paid) <= 50:
            continue
        rows.append((name, mean(paid), sum(paid) / len(orders), 2 * mean(paid)))
    return normalize_rows(sorted(rows, key=lambda r: -r[1]), ordered=True)


@pytest.mark.parametrize("shop", DIALECTS, indirect=True)
def test_metrics_render_and_run_on_every_engine(shop, request) -> None:
    dialect = request.node.callspec.params["shop"]
    sql = render_plan(_per_customer(), dialect, _with_metrics(dialect))
    assert "paid_per_order" in sql and "avg_order" in sql  # the output columns keep the names
    assert normalize_rows(shop(sql), ordered=True) == _expected()


def test_metric_columns_take_the_plans_alias_and_quotes() -> None:
    sql = render_plan(_per_customer(), "postgres", _with_metrics("postgresql"))
    assert 'AVG("o"."amount") AS "avg_order"' in sql
    assert 'SUM("o"."amount") / COUNT(*) AS "paid_per_order"' in sql  # `orders.amount` too
    assert 'AVG("o"."amount") * 2 AS "twice"' in sql
    assert 'HAVING AVG("o"."amount") > 50 ORDER BY AVG("o"."amount") DESC' in sql


def test_a_metric_under_arithmetic_keeps_its_parentheses() -> None:
    plan = PlanModel(tables=[TableRef(name="orders", alias="o")],
                     select=[SelectItem(expr=Arithmetic(op="*", left=MetricRef(name="paid_per_order", table="o"),
                                                        right=lit(2)), alias="x")])
    sql = render_plan(plan, "sqlite", _with_metrics("sqlite"))
    assert sql.startswith('SELECT (SUM("o"."amount") / COUNT(*)) * 2 AS "x"')


def test_a_metric_written_in_the_sources_dialect_parses_in_it() -> None:
    base = _with_metrics("mysql")
    items = next(t for t in base.tables if t.name == "order_items")
    backticked = SemanticMetric(name="units", expression="SUM(`quantity`)", columns=["quantity"])
    base = base.model_copy(update={"tables": [
        t.model_copy(update={"semantic": TableSemantics(metrics=[backticked])}) if t is items else t
        for t in base.tables]})
    plan = PlanModel(tables=[TableRef(name="order_items", alias="i")],
                     select=[SelectItem(expr=MetricRef(name="units", table="i"))])
    assert render_plan(plan, "mysql", base) == "SELECT SUM(`i`.`quantity`) AS `units` FROM `order_items` AS `i`"


def test_the_plan_tree_shows_a_metric_by_its_name() -> None:
    text = tree_text(plan_tree(_per_customer()))
    assert 'o.avg_order /* metric */ AS avg_order' in text
    assert "HAVING" in text and "o.avg_order /* metric */ > 50" in text
    assert "AVG(" not in text


@pytest.mark.parametrize(("metric", "alias", "snap", "message"), [
    ("avg_order", "o", None, "Metric 'avg_order' is not defined for its table (alias o)"),
    ("units", "o", "yes", "Metric 'units' is not defined for orders (alias o)"),
    ("avg_order", "x", "yes", "Metric x.avg_order uses an undeclared table alias"),
])
def test_a_metric_the_generator_cannot_resolve_is_a_clear_error(metric: str, alias: str,
                                                                snap: str | None, message: str) -> None:
    plan = PlanModel(tables=[TableRef(name="orders", alias="o")],
                     select=[SelectItem(expr=MetricRef(name=metric, table=alias))])
    with pytest.raises(SQLGenError, match=re.escape(message)):
        render_plan(plan, "duckdb", _with_metrics() if snap else None)
