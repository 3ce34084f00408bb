"""The post-combine chain: filter, aggregate, project, sort, limit, applied in list order."""

from __future__ import annotations

import pyarrow as pa
import pytest
import sqlglot

from nl2sql.aggregation.post_ops import to_sqlglot
from nl2sql.decomposition import PostCombineOp
from nl2sql.errors import ErrorCode
from nl2sql.plan import (
    Aggregate,
    Arithmetic,
    Between,
    BoolOp,
    Case,
    Comparison,
    InList,
    IsNull,
    Like,
    Not,
    OrderItem,
    SelectItem,
    When,
    col,
    lit,
)

from .helpers import group, run

SALES = pa.table(
    {
        "id": [1, 2, 3, 4, 5, 6],
        "region": ["north", "south", "north", "east", "south", None],
        "product": ["Apple", "apricot", "Banana", "cherry", "Apple", "date"],
        "units": [5, 3, 8, 1, 3, 2],
        "price": [2.0, 4.0, 1.5, 10.0, 2.0, None],
    }
)


def _chain(*ops: PostCombineOp, table: pa.Table = SALES) -> pa.Table:
    out = run([group("g", "standalone", "s")], {"s": table}, ops=list(ops))
    assert out.errors == [], out.errors
    [result] = out.results.values()
    return result


def op(op_id: str, kind: str, **fields) -> PostCombineOp:
    return PostCombineOp(op_id=op_id, group_id="g", op=kind, **fields)


@pytest.mark.parametrize(
    ("condition", "ids"),
    [
        (Comparison(op=">=", left=col("units"), right=lit(3)), [1, 2, 3, 5]),
        (Comparison(op="!=", left=col("region"), right=lit("north")), [2, 4, 5]),
        (
            BoolOp(
                op="or",
                items=[
                    Comparison(op="=", left=col("region"), right=lit("east")),
                    BoolOp(
                        op="and",
                        items=[
                            Comparison(op="=", left=col("region"), right=lit("south")),
                            Comparison(op="<", left=col("units"), right=lit(3.5)),
                        ],
                    ),
                ],
            ),
            [2, 4, 5],
        ),
        (Not(expr=Comparison(op="=", left=col("region"), right=lit("north"))), [2, 4, 5]),
        (IsNull(expr=col("price")), [6]),
        (IsNull(expr=col("region"), negated=True), [1, 2, 3, 4, 5]),
        (InList(expr=col("units"), values=[lit(1), lit(8)]), [3, 4]),
        (InList(expr=col("units"), values=[lit(1), lit(8)], negated=True), [1, 2, 5, 6]),
        (Between(expr=col("units"), low=lit(2), high=lit(3)), [2, 5, 6]),
        (Like(expr=col("product"), pattern="a%"), [2]),
        (Like(expr=col("product"), pattern="a%", case_insensitive=True), [1, 2, 5]),
        (Like(expr=col("product"), pattern="%a%", negated=True), [1, 4, 5]),
        (
            Comparison(
                op=">",
                left=Arithmetic(op="*", left=col("units"), right=col("price")),
                right=lit(9),
            ),
            [1, 2, 3, 4],
        ),
    ],
)
def test_filter_keeps_the_rows_where_the_condition_holds(condition, ids):
    result = _chain(op("f", "filter", condition=condition))
    assert result.column("id").to_pylist() == ids
    assert result.schema == SALES.schema


def test_filter_with_an_unsupported_expression_fails_with_a_clear_message():
    case = Case(whens=[When(condition=lit(True), value=lit(1))])
    condition = Comparison(op="=", left=case, right=lit(1))
    ops = [op("f", "filter", condition=condition)]
    out = run([group("g", "standalone", "s")], {"s": SALES}, ops=ops)
    assert out.results == {}
    [error] = out.errors
    assert error.error_code == ErrorCode.AGGREGATOR_FAILED
    assert "do not support 'case' expressions" in error.message


def test_filter_on_an_unknown_column_names_it_and_the_columns_there_are():
    ops = [op("f", "filter", condition=Comparison(op="=", left=col("state"), right=lit("x")))]
    out = run([group("g", "standalone", "s")], {"s": SALES}, ops=ops)
    [error] = out.errors
    assert "unknown column 'state'" in error.message
    assert "id, region, product" in error.message
    assert "\n" not in error.message


def test_aggregate_groups_and_computes_each_function():
    aggregates = [
        SelectItem(expr=Aggregate(func="count")),
        SelectItem(expr=Aggregate(func="sum", arg=col("units"))),
        SelectItem(expr=Aggregate(func="avg", arg=col("units")), alias="mean_units"),
        SelectItem(expr=Aggregate(func="min", arg=col("price"))),
        SelectItem(expr=Aggregate(func="max", arg=col("product"))),
        SelectItem(expr=Aggregate(func="count", arg=col("price"), distinct=True)),
    ]
    result = _chain(op("a", "aggregate", group_by=["region"], aggregates=aggregates))
    assert result.column_names == [
        "region", "count", "sum_units", "mean_units", "min_price", "max_product", "count_price",
    ]  # fmt: skip
    # Groups come back in key order, NULL last.
    assert result.to_pydict() == {
        "region": ["east", "north", "south", None],
        "count": [1, 2, 2, 1],
        "sum_units": [1, 13, 6, 2],
        "mean_units": [1.0, 6.5, 3.0, 2.0],
        "min_price": [10.0, 1.5, 2.0, None],
        "max_product": ["cherry", "Banana", "apricot", "date"],
        "count_price": [1, 2, 2, 0],
    }


def test_aggregate_without_group_by_returns_one_row():
    total = Aggregate(func="sum", arg=Arithmetic(op="*", left=col("units"), right=col("price")))
    result = _chain(op("a", "aggregate", aggregates=[SelectItem(expr=total, alias="revenue")]))
    assert result.to_pydict() == {"revenue": [10.0 + 12.0 + 12.0 + 10.0 + 6.0]}


def test_project_keeps_the_named_columns_in_the_given_order():
    result = _chain(op("p", "project", columns=["units", "id"]))
    assert result.column_names == ["units", "id"]
    assert result.column("id").to_pylist() == [1, 2, 3, 4, 5, 6]


def test_sort_orders_by_direction_keeps_ties_stable_and_puts_nulls_last():
    result = _chain(op("s", "sort", order_by=[OrderItem(expr=col("price"), direction="desc")]))
    # ids 1 and 5 tie on price 2.0 and keep their input order.
    assert result.column("id").to_pylist() == [4, 2, 1, 5, 3, 6]
    result = _chain(
        op(
            "s",
            "sort",
            order_by=[
                OrderItem(expr=col("region")),
                OrderItem(expr=col("units"), direction="desc"),
            ],
        )
    )
    assert result.column("id").to_pylist() == [4, 3, 1, 2, 5, 6]


def test_limit_keeps_the_first_rows():
    assert _chain(op("l", "limit", limit=2)).column("id").to_pylist() == [1, 2]


def test_the_chain_is_applied_in_list_order():
    by_units = [OrderItem(expr=col("units"), direction="desc")]
    sort_then_limit = _chain(op("s", "sort", order_by=by_units), op("l", "limit", limit=2))
    limit_then_sort = _chain(op("l", "limit", limit=2), op("s", "sort", order_by=by_units))
    assert sort_then_limit.column("id").to_pylist() == [3, 1]
    assert limit_then_sort.column("id").to_pylist() == [1, 2]

    north_first = [
        op("f", "filter", condition=Comparison(op="!=", left=col("region"), right=lit("north"))),
        op("s", "sort", order_by=by_units),
        op("l", "limit", limit=1),
    ]
    assert _chain(*north_first).column("id").to_pylist() == [2]
    assert _chain(*reversed(north_first)).column("id").to_pylist() == []


def test_a_failed_step_stops_its_chain_without_further_errors():
    ops = [
        op("p", "project", columns=["nope"]),
        op("l", "limit", limit=1),
    ]
    out = run([group("g", "standalone", "s")], {"s": SALES}, ops=ops)
    assert out.results == {}
    assert [e.details["op_id"] for e in out.errors] == ["p"]
    assert out.operations == {"combine:g": "standalone", "post:p": "project", "post:l": "limit"}


def test_rendered_expressions_quote_identifiers_and_round_trip_through_sqlglot():
    condition = BoolOp(
        op="and",
        items=[
            Like(expr=col("Product Name"), pattern="it's%"),
            Between(expr=col("units"), low=lit(-1), high=lit(2.5), negated=True),
        ],
    )
    sql = to_sqlglot(condition).sql(dialect="duckdb")
    assert sql == """("Product Name" LIKE 'it''s%' AND NOT ("units" BETWEEN -1 AND 2.5))"""
    assert sqlglot.parse_one(sql, read="duckdb").sql(dialect="duckdb") == sql


def test_a_quotient_over_a_zero_denominator_is_null_not_infinity():
    returns = pa.table(
        {"region": ["north", "north", "south"], "units": [4, 6, 5], "returned": [1, 1, 0]}
    )
    per_return = Arithmetic(
        op="/",
        left=Aggregate(func="sum", arg=col("units")),
        right=Aggregate(func="sum", arg=col("returned")),
    )
    ops = op(
        "a",
        "aggregate",
        group_by=["region"],
        aggregates=[SelectItem(expr=per_return, alias="units_per_return")],
    )
    result = _chain(ops, table=returns)
    assert result.to_pydict() == {"region": ["north", "south"], "units_per_return": [5.0, None]}
