"""Structural rules: joins, aggregation, set operations, expression shape; failing and passing."""

from __future__ import annotations

import pytest

from nl2sql.plan import (
    Aggregate,
    Arithmetic,
    Comparison,
    Function,
    InList,
    Join,
    OrderItem,
    ScalarSubquery,
    SelectItem,
    SetOperation,
    Star,
    col,
    lit,
)
from nl2sql.validation import validate_plan

from .helpers import failed, passed, plan


def _eq(left, right) -> Comparison:
    return Comparison(op="=", left=left, right=right)


A_B = Join(alias="b", on=_eq(col("author_id", "b"), col("author_id", "a")))
B_S = Join(alias="s", on=_eq(col("book_id", "s"), col("book_id", "b")))
THREE = [("authors", "a"), ("books", "b"), ("sales", "s")]


def test_three_tables_joined_in_order_pass(shop):
    checks = validate_plan(
        plan(THREE, [col("full_name", "a"), col("copies", "s")], joins=[A_B, B_S]), shop
    )
    assert passed(checks, "join_structure") and not failed(checks)


@pytest.mark.parametrize(
    ("joins", "fragment"),
    [
        ([A_B], "'s' (sales) is never joined"),
        ([A_B, B_S, Join(alias="x", on=lit(True))], "'x', which is not one of the plan's tables"),
        ([A_B, B_S, Join(alias="a", on=lit(True))], "first (FROM) table"),
        ([A_B, B_S, B_S], "'s' is joined twice"),
        (
            [Join(alias="b", on=_eq(col("book_id", "s"), col("author_id", "a"))), B_S],
            "uses 's', which is joined later",
        ),
    ],
    ids=["not-joined", "undeclared", "first-table", "twice", "forward-reference"],
)
def test_join_structure_failures(shop, joins, fragment):
    [check] = failed(
        validate_plan(plan(THREE, [col("full_name", "a")], joins=joins), shop), "join_structure"
    )
    assert fragment in check.message
    assert (
        check.details["error_code"] == "INVALID_PLAN_STRUCTURE"
        and check.details["retryable"] is True
    )


SUM_COPIES = Aggregate(func="sum", arg=col("copies", "s"))


def test_grouped_columns_next_to_aggregates_pass(shop):
    grouped = plan([("sales", "s")], [col("store", "s"), SUM_COPIES], group_by=[col("store")])
    assert passed(validate_plan(grouped, shop), "aggregation")


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        (
            {
                "select": [SelectItem(expr=col("store", "s")), SelectItem(expr=SUM_COPIES)],
                "group_by": [],
            },
            "s.store is used next to aggregates",
        ),
        (
            {"select": [SelectItem(expr=col("book_id", "s"))], "group_by": [col("store", "s")]},
            "s.book_id is used next to aggregates",
        ),
        (
            {
                "having": Comparison(op=">", left=col("copies", "s"), right=lit(1)),
                "group_by": [col("store", "s")],
            },
            "s.copies is used",
        ),
        ({"where": Comparison(op=">", left=SUM_COPIES, right=lit(1))}, "not allowed in WHERE"),
        (
            {"select": [SelectItem(expr=Aggregate(func="max", arg=SUM_COPIES))]},
            "cannot contain another aggregate",
        ),
        (
            {"select": [SelectItem(expr=Star())], "group_by": [col("store", "s")]},
            "SELECT * cannot be combined",
        ),
        ({"group_by": [SUM_COPIES]}, "not allowed in GROUP BY"),
    ],
    ids=[
        "bare-with-aggregate",
        "bare-with-group-by",
        "having-bare",
        "where",
        "nested",
        "star",
        "group-by-aggregate",
    ],
)
def test_aggregation_failures(shop, fields, fragment):
    data = {
        "select": [SelectItem(expr=col("store", "s"))],
        "group_by": [col("store", "s")],
    } | fields
    select = data.pop("select")
    checks = validate_plan(plan([("sales", "s")], select, **data), shop)
    assert any(fragment in c.message for c in failed(checks, "aggregation")), failed(checks)


def test_grouped_expression_and_outer_columns_are_not_bare(shop):
    total = Arithmetic(op="*", left=col("copies", "s"), right=lit(2))
    doubled = plan([("sales", "s")], [total, Aggregate(func="count")], group_by=[total])
    assert passed(validate_plan(doubled, shop), "aggregation")
    inner = plan(
        [("books", "b")],
        [col("country", "a"), Aggregate(func="count")],
        where=_eq(col("author_id", "b"), col("author_id", "a")),
    )
    outer = plan(
        [("authors", "a")],
        [col("full_name", "a"), SelectItem(expr=ScalarSubquery(query=inner), alias="n")],
    )
    assert passed(validate_plan(outer, shop), "aggregation")


def _union(left_select, right_select, **fields):
    right = plan([("books", "b")], right_select)
    return plan(
        [("authors", "a")],
        left_select,
        set_operation=SetOperation(op="union", right=right),
        **fields,
    )


def test_set_operation_operands_of_equal_width_pass(shop):
    union = _union(
        [col("full_name", "a")], [col("title", "b")], order_by=[OrderItem(expr=col("full_name"))]
    )
    assert passed(validate_plan(union, shop), "set_operation")


def test_set_operation_operands_must_select_as_many_columns(shop):
    [check] = failed(
        validate_plan(
            _union([col("full_name", "a")], [col("title", "b"), col("genre", "b")]), shop
        ),
        "set_operation",
    )
    assert (check.details["left"], check.details["right"]) == (1, 2)
    # a star counts the snapshot's columns: authors has 3, books 6
    [check] = failed(
        validate_plan(_union([Star()], [col("title", "b"), col("genre", "b")]), shop),
        "set_operation",
    )
    assert (check.details["left"], check.details["right"]) == (3, 2)


def test_set_operation_order_by_must_name_a_selected_column(shop):
    union = _union(
        [col("full_name", "a")], [col("title", "b")], order_by=[OrderItem(expr=col("country", "a"))]
    )
    [check] = failed(validate_plan(union, shop), "set_operation")
    assert "can only use the selected columns" in check.message


BOOK_IDS = plan([("sales", "s")], [col("book_id", "s"), col("copies", "s")])


@pytest.mark.parametrize(
    ("where", "fragment"),
    [
        (InList(expr=col("book_id", "b"), query=BOOK_IDS), "select exactly one column"),
        (
            InList(
                expr=col("book_id", "b"),
                values=[lit(1)],
                query=plan([("sales", "s")], [col("book_id", "s")]),
            ),
            "not both or neither",
        ),
        (
            _eq(Function(name="lower", args=[col("title", "b"), lit("x")]), lit("x")),
            "LOWER got 2 arguments",
        ),
        (_eq(Star(), lit(1)), "* can only be"),
        (_eq(Aggregate(func="sum"), lit(1)), "SUM needs a column"),
        (_eq(col("price", "b"), lit(float("inf"))), "has no SQL literal"),
    ],
    ids=["in-two-columns", "in-both", "arity", "star", "sum-star", "infinite"],
)
def test_expression_shape_failures(shop, where, fragment):
    checks = validate_plan(plan([("books", "b")], [col("title", "b")], where=where), shop)
    assert any(fragment in c.message for c in failed(checks, "expression_shape")), failed(checks)


def test_count_star_and_one_column_subqueries_have_a_valid_shape(shop):
    one = plan([("sales", "s")], [col("book_id", "s")])
    ok = plan(
        [("books", "b")],
        [Aggregate(func="count"), SelectItem(expr=ScalarSubquery(query=one), alias="any_sale")],
        where=InList(expr=col("book_id", "b"), query=one),
    )
    assert passed(validate_plan(ok, shop), "expression_shape")
