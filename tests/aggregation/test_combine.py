"""Combine operations on real Arrow tables: standalone, union, join, compare."""

from __future__ import annotations

from decimal import Decimal

import pyarrow as pa

from nl2sql.errors import ErrorCode

from .helpers import group, run

ORDERS = pa.table(
    {
        "customer_id": pa.array([3, 1, 2, 9], pa.int64()),
        "revenue": [30.0, 10.0, 20.0, 90.0],
    }
)
CUSTOMERS = pa.table(
    {
        "id": pa.array([1, 2, 3], pa.int64()),
        "name": ["Ada", "Bo", "Cy"],
        "revenue": [100.0, 200.0, 300.0],
    }
)


def test_standalone_returns_the_input_unchanged():
    out = run([group("g", "standalone", "a")], {"a": ORDERS})
    assert out.results["combine:g"].equals(ORDERS)
    assert out.operations == {"combine:g": "standalone"}
    assert out.errors == [] and out.warnings == []


def test_union_stacks_rows_by_position_with_names_from_the_first_input():
    a = pa.table({"region": ["north", "south"], "total": pa.array([1, 2], pa.int32())})
    b = pa.table({"area": ["east"], "amount": pa.array([3], pa.int64())})
    out = run([group("u", "union", "a", "b")], {"a": a, "b": b})
    result = out.results["combine:u"]
    assert result.column_names == ["region", "total"]
    assert result.to_pydict() == {"region": ["north", "south", "east"], "total": [1, 2, 3]}


def test_union_with_different_column_counts_fails_the_group():
    a = pa.table({"x": [1]})
    b = pa.table({"x": [2], "y": [3]})
    out = run([group("u", "union", "a", "b")], {"a": a, "b": b})
    assert out.results == {}
    [error] = out.errors
    assert error.error_code == ErrorCode.AGGREGATOR_FAILED
    assert "different column counts [1, 2]" in error.message


def test_join_drops_the_right_key_and_suffixes_clashing_names_by_role():
    g = group("j", "join", ("a", "orders"), ("b", "customers"), keys=[("customer_id", "id")])
    out = run([g], {"a": ORDERS, "b": CUSTOMERS})
    result = out.results["combine:j"]
    assert result.column_names == ["customer_id", "revenue_orders", "name", "revenue_customers"]
    # Inner join, rows in the left input's order; customer 9 has no match.
    assert result.to_pydict() == {
        "customer_id": [3, 1, 2],
        "revenue_orders": [30.0, 10.0, 20.0],
        "name": ["Cy", "Ada", "Bo"],
        "revenue_customers": [300.0, 100.0, 200.0],
    }


def test_join_casts_integer_keys_of_different_widths_to_one_type():
    customers = CUSTOMERS.set_column(0, "id", pa.array([1, 2, 3], pa.int32()))
    g = group("j", "join", "a", "b", keys=[("customer_id", "id")])
    out = run([g], {"a": ORDERS, "b": customers})
    result = out.results["combine:j"]
    assert result.schema.field("customer_id").type == pa.int64()
    assert result.column("name").to_pylist() == ["Cy", "Ada", "Bo"]


def test_join_matches_decimal_keys_against_double_keys():
    prices = pa.table({"price": pa.array([Decimal("1.50"), Decimal("2.25")], pa.decimal128(6, 2))})
    labels = pa.table({"price": [2.25, 1.5, 9.0], "label": ["high", "low", "none"]})
    g = group("j", "join", "a", "b", keys=[("price", "price")])
    out = run([g], {"a": prices, "b": labels})
    result = out.results["combine:j"]
    assert result.to_pydict() == {"price": [1.5, 2.25], "label": ["low", "high"]}


def test_join_of_text_and_integer_keys_compares_as_text_and_warns():
    codes = pa.table({"code": ["1", "2"], "city": ["Oslo", "Rome"]})
    people = pa.table({"city_code": pa.array([2, 1, 2], pa.int64()), "who": ["x", "y", "z"]})
    g = group("j", "join", "a", "b", keys=[("code", "city_code")])
    out = run([g], {"a": codes, "b": people})
    assert out.results["combine:j"].to_pydict() == {
        "code": ["1", "2", "2"],
        "city": ["Oslo", "Rome", "Rome"],
        "who": ["y", "x", "z"],
    }
    assert [w.code for w in out.warnings] == ["JOIN_KEY_CAST"]


def test_join_of_three_inputs_joins_successively_on_the_same_keys():
    emails = pa.table({"id": [2, 3], "email": ["bo@x", "cy@x"]})
    g = group("j", "join", "a", "b", "c", keys=[("customer_id", "id")])
    out = run([g], {"a": ORDERS, "b": CUSTOMERS, "c": emails})
    result = out.results["combine:j"]
    assert result.column("customer_id").to_pylist() == [3, 2]
    assert result.column("email").to_pylist() == ["cy@x", "bo@x"]
    # Repeated default roles are numbered so their suffixes stay distinct.
    assert "revenue_input1" in result.column_names and "revenue_input2" in result.column_names


def test_join_naming_a_missing_key_column_fails_with_the_columns_it_has():
    g = group("j", "join", "a", "b", keys=[("customer", "id")])
    out = run([g], {"a": ORDERS, "b": CUSTOMERS})
    [error] = out.errors
    assert error.error_code == ErrorCode.AGGREGATOR_FAILED
    assert "no key column 'customer'" in error.message
    assert "customer_id, revenue" in error.message


def test_compare_is_a_full_outer_join_with_side_by_side_columns_and_differences():
    y2023 = pa.table({"region": ["north", "south", "west"], "sales": [10, 20, 5]})
    y2024 = pa.table({"region": ["south", "north", "east"], "sales": [25, 12, 7]})
    g = group("c", "compare", ("a", "y2023"), ("b", "y2024"), keys=[("region", "region")])
    out = run([g], {"a": y2023, "b": y2024})
    assert out.results["combine:c"].to_pydict() == {
        "region": ["north", "south", "west", "east"],
        "sales_y2023": [10, 20, 5, None],
        "sales_y2024": [12, 25, None, 7],
        "sales_diff": [2, 5, None, None],
    }


def test_compare_without_keys_matches_on_shared_text_columns():
    a = pa.table({"region": ["north", "south"], "sales": [1.0, 2.0]})
    b = pa.table({"region": ["south", "north"], "sales": [5.0, 3.0]})
    out = run([group("c", "compare", ("a", "old"), ("b", "new"))], {"a": a, "b": b})
    result = out.results["combine:c"]
    assert result.column("region").to_pylist() == ["north", "south"]
    assert result.column("sales_diff").to_pylist() == [2.0, 3.0]


def test_compare_of_two_totals_without_shared_dimensions_lines_them_up_by_row():
    a = pa.table({"total": [Decimal("100.50")]})
    b = pa.table({"total": [Decimal("120.00")], "orders": [4]})
    out = run([group("c", "compare", ("a", "q1"), ("b", "q2"))], {"a": a, "b": b})
    assert out.results["combine:c"].to_pydict() == {
        "total_q1": [Decimal("100.50")],
        "total_q2": [Decimal("120.00")],
        "orders_q2": [4],
        "total_diff": [Decimal("19.50")],
    }


def test_a_column_named_like_the_engines_helper_column_survives_union_and_join():
    a = pa.table({"k": [1, 2], "__nl2sql_row": ["x", "y"]})
    b = pa.table({"k": [2], "__nl2sql_row": ["z"]})
    union = run([group("u", "union", "a", "b")], {"a": a, "b": b}).results["combine:u"]
    assert union.to_pydict() == {"k": [1, 2, 2], "__nl2sql_row": ["x", "y", "z"]}
    g = group("j", "join", ("a", "l"), ("b", "r"), keys=[("k", "k")])
    joined = run([g], {"a": a, "b": b}).results["combine:j"]
    assert joined.to_pydict() == {"k": [2], "__nl2sql_row_l": ["y"], "__nl2sql_row_r": ["z"]}
