"""Metrics in plans: valid where the alias's table declares one (and the user may read what it
aggregates), an aggregate for the GROUP BY rules, an unknown one reported with the nearest, and
one that sums rows a join repeats caught as a fan-out after execution."""

from __future__ import annotations

import pytest

from nl2sql.plan import (
    Aggregate,
    Comparison,
    Join,
    MetricRef,
    OrderItem,
    SelectItem,
    col,
    lit,
)
from nl2sql.schema.models import SchemaSnapshot
from nl2sql.security.rbac import PolicySet, UserContext
from nl2sql.semantic.apply import apply_source_layer
from nl2sql.semantic.check import check_source_layer
from nl2sql.semantic.models import SourceLayer
from nl2sql.validation import validate_plan

from .helpers import bookshop, failed, passed, plan

LAYER = SourceLayer.model_validate({"metrics": [
    {"name": "copies_sold", "expression": "SUM(copies)", "table": "sales"},
    {"name": "stores_reached", "expression": "COUNT(DISTINCT store)", "table": "sales"},
    {"name": "avgPrice", "expression": "AVG(price)", "table": "books"},
]})


@pytest.fixture
def shop() -> SchemaSnapshot:
    raw = bookshop().model_copy(update={"dialect": "postgresql"})  # a SQLAlchemy dialect name
    check_source_layer(LAYER, raw, "layer")
    return apply_source_layer(raw, LAYER)


def _per_book(*select: object, **fields: object):
    """Sales joined to books: s, b."""
    join = Join(alias="b", on=Comparison(op="=", left=col("book_id", "s"), right=col("book_id", "b")))
    return plan([("sales", "s"), ("books", "b")], list(select), joins=[join], **fields)


def test_a_metric_of_the_aliases_table_is_a_valid_grouped_measure(shop: SchemaSnapshot) -> None:
    sold = MetricRef(name="COPIES_SOLD", table="s")  # names compare case-insensitively
    checks = validate_plan(_per_book(col("title", "b"), sold, group_by=[col("title", "b")],
                                     having=Comparison(op=">", left=sold, right=lit(3)),
                                     order_by=[OrderItem(expr=sold, direction="desc")]), shop)
    assert not failed(checks), failed(checks)
    assert passed(checks, "metrics_exist") and passed(checks, "aggregation")


def test_a_plan_without_metrics_reports_no_metric_check(shop: SchemaSnapshot) -> None:
    checks = validate_plan(plan([("books", "b")], [col("title", "b")]), shop)
    assert not [c for c in checks if c.name == "metrics_exist"]


@pytest.mark.parametrize(("metric", "alias", "message", "suggestions"), [
    ("copies_sld", "s", "Metric 'copies_sld' is not defined for table 'sales' (alias s); "
                        "did you mean 'copies_sold'?", ["copies_sold"]),
    ("avgprice", "s", "Metric 'avgprice' is not defined for table 'sales' (alias s); "
                      "it is a metric of 'b'", ["b.avgPrice"]),
    ("revenue", "b", "Metric 'revenue' is not defined for table 'books' (alias b).", []),
])
def test_an_unknown_metric_names_the_nearest(shop: SchemaSnapshot, metric: str, alias: str,
                                             message: str, suggestions: list[str]) -> None:
    checks = validate_plan(_per_book(MetricRef(name=metric, table=alias)), shop)
    [problem] = failed(checks, "metrics_exist")
    assert problem.message == message
    assert problem.details["error_code"] == "COLUMN_NOT_FOUND" and problem.details["suggestions"] == suggestions


def test_a_metric_on_an_undeclared_alias_is_refused(shop: SchemaSnapshot) -> None:
    checks = validate_plan(_per_book(MetricRef(name="copies_sold", table="sa")), shop)
    [problem] = failed(checks, "metrics_exist")
    assert problem.message == "Metric sa.copies_sold uses alias 'sa', which no table declares; did you mean 's'?"


@pytest.mark.parametrize(("fields", "message"), [
    ({"group_by": [col("title", "b"), MetricRef(name="copies_sold", table="s")]},
     "Aggregates are not allowed in GROUP BY."),
    ({"group_by": [col("title", "b")],
      "where": Comparison(op=">", left=MetricRef(name="copies_sold", table="s"), right=lit(1))},
     "Aggregates are not allowed in WHERE (use HAVING)."),
    ({}, "Column b.title is used next to aggregates but is not in GROUP BY."),
])
def test_a_metric_is_an_aggregate_for_the_grouping_rules(shop: SchemaSnapshot, fields: dict,
                                                         message: str) -> None:
    checks = validate_plan(_per_book(col("title", "b"), MetricRef(name="copies_sold", table="s"),
                                     **fields), shop)
    assert message in [c.message for c in failed(checks, "aggregation")]


def test_a_metric_inside_an_aggregate_is_refused(shop: SchemaSnapshot) -> None:
    nested = Aggregate(func="max", arg=MetricRef(name="copies_sold", table="s"))
    checks = validate_plan(_per_book(SelectItem(expr=nested, alias="most")), shop)
    assert "An aggregate cannot contain another aggregate." in [c.message for c in failed(checks)]


def test_a_metric_over_a_column_the_policy_denies_is_refused(shop: SchemaSnapshot) -> None:
    checks = validate_plan(_per_book(MetricRef(name="copies_sold", table="s")), shop,
                           allowed_tables=["sales", "books"],
                           allowed_columns={"sales": ["sale_id", "book_id", "store"]})
    [denied] = failed(checks, "access_policy")
    assert denied.message == "Metric 'copies_sold' of table 'sales' reads columns the access policy denies."
    assert denied.details["error_code"] == "SECURITY_VIOLATION"
    allowed = validate_plan(_per_book(MetricRef(name="stores_reached", table="s")), shop,
                            allowed_tables=["sales", "books"],
                            allowed_columns={"sales": ["sale_id", "book_id", "store"]})
    assert not failed(allowed)


def test_a_role_that_may_not_read_a_metrics_column_does_not_see_the_metric(shop: SchemaSnapshot) -> None:
    policies = PolicySet.parse({"roles": {"clerk": {"datasources": {"bookshop": {
        "tables": "*", "columns": {"sales": ["sale_id", "book_id", "store"]}}}}}})
    seen = policies.access_for(UserContext(roles=("clerk",))).filter(shop)
    checks = validate_plan(_per_book(MetricRef(name="copies_sold", table="s")), seen)
    [problem] = failed(checks, "metrics_exist")
    assert problem.message.startswith("Metric 'copies_sold' is not defined for table 'sales'")
    assert not failed(validate_plan(_per_book(MetricRef(name="stores_reached", table="s")), seen))


@pytest.mark.parametrize(("metric", "inflated"), [("copies_sold", True), ("stores_reached", False)])
def test_a_metric_over_rows_a_join_repeats_is_a_fan_out(metric: str, inflated: bool) -> None:
    """SUM over sales joined to the returns of each sale counts a sale once per return;
    COUNT(DISTINCT) does not change."""
    from nl2sql.pipeline.subgraphs.nodes.executor.checks import join_fan_out
    from nl2sql.schema.models import Column, ForeignKey, Table

    base = apply_source_layer(bookshop(), LAYER)
    sales = base.table("sales")
    assert sales is not None
    returns = Table(name="returns", columns=[Column(name="return_id", type="INTEGER"),
                                             Column(name="sale_id", type="INTEGER")],
                    primary_key=["return_id"],
                    foreign_keys=[ForeignKey(columns=["sale_id"], ref_table="sales", ref_columns=["sale_id"])])
    keyed = sales.model_copy(update={"primary_key": ["sale_id"]})
    snapshot = base.model_copy(update={"tables": [keyed if t is sales else t for t in base.tables] + [returns]})
    join = Join(alias="r", on=Comparison(op="=", left=col("sale_id", "s"), right=col("sale_id", "r")))
    found = join_fan_out(plan([("sales", "s"), ("returns", "r")], [MetricRef(name=metric, table="s")],
                              joins=[join]), snapshot)
    assert (found is not None and found.error_code == "JOIN_FAN_OUT") is inflated
