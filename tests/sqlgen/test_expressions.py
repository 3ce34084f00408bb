"""Expression-level rendering rules and the plans the generator refuses (SQLGenError)."""

from __future__ import annotations

import pytest

from nl2sql.plan import PlanModel
from nl2sql.schema.models import Column, SchemaSnapshot, Table
from nl2sql.sqlgen import SQLGenError, render_plan

from .shop import snapshot

SHOP = snapshot()


def _col(name: str, table: str | None = None) -> dict:
    return {"kind": "column", "table": table, "name": name}


def _lit(value) -> dict:
    return {"kind": "literal", "value": value}


def _plan(tables: list[tuple[str, str]], select: list, **extra) -> PlanModel:
    refs = [{"name": n, "alias": a} for n, a in tables]
    items = [{"expr": s} if "kind" in s else s for s in select]
    return PlanModel.model_validate({"tables": refs, "select": items, **extra})


def _eq(left: dict, right: dict) -> dict:
    return {"kind": "comparison", "op": "=", "left": left, "right": right}


JOIN = [{"alias": "o", "on": _eq(_col("customer_id", "c"), _col("customer_id", "o"))}]


@pytest.mark.parametrize(
    ("plan", "message"),
    [
        (_plan([("orders", "o")], [_col("amount", "x")]), "undeclared table alias"),
        (
            _plan([("customers", "c"), ("orders", "o")], [_col("customer_id")], joins=JOIN),
            "ambiguous",
        ),
        (_plan([("orders", "o")], [{"kind": "in", "expr": _col("status", "o")}]), "either a list"),
        (
            _plan([("orders", "o")], [{"kind": "aggregate", "func": "count", "distinct": True}]),
            "needs a column",
        ),
        (_plan([("orders", "o")], [{"kind": "aggregate", "func": "sum"}]), "needs a column"),
        (
            _plan([("orders", "o")], [_col("order_id", "o")], where=_eq({"kind": "star"}, _lit(1))),
            r"\* can only",
        ),
        (_plan([("orders", "o")], [{"kind": "star", "table": "z"}]), "undeclared table alias"),
        (
            _plan(
                [("orders", "o")],
                [{"kind": "function", "name": "lower", "args": [_lit("a"), _lit("b")]}],
            ),
            "LOWER got 2",
        ),
        (_plan([("orders", "o")], [_lit(float("nan"))]), "no SQL literal"),
        (_plan([("orders", "o"), ("customers", "O")], [_col("order_id", "o")]), "declared twice"),
        (
            _plan(
                [("orders", "o")], [_col("order_id", "o")], joins=[{"alias": "o", "on": _lit(True)}]
            ),
            "not a later table",
        ),
    ],
    ids=[
        "undeclared-alias",
        "ambiguous-column",
        "in-without-values",
        "count-distinct-star",
        "sum-star",
        "star-in-where",
        "star-undeclared",
        "arity",
        "nan",
        "duplicate-alias",
        "join-first-table",
    ],
)
def test_plans_that_cannot_be_rendered_raise_sqlgen_error(plan, message):
    with pytest.raises(SQLGenError, match=message):
        render_plan(plan, "duckdb", SHOP)


def test_table_without_a_join_is_a_cross_join():
    sql = render_plan(
        _plan([("customers", "c"), ("products", "p")], [{"kind": "star"}]), "postgres"
    )
    assert 'FROM "customers" AS "c" CROSS JOIN "products" AS "p"' in sql


def test_table_star_is_qualified():
    sql = render_plan(_plan([("customers", "c")], [{"kind": "star", "table": "c"}]), "mysql")
    assert sql == "SELECT `c`.* FROM `customers` AS `c`"


def test_unqualified_column_without_snapshot_stays_unqualified_with_several_tables():
    plan = _plan([("customers", "c"), ("orders", "o")], [_col("name")], joins=JOIN)
    assert render_plan(plan, "duckdb").startswith('SELECT "name" FROM')
    assert render_plan(plan, "duckdb", SHOP).startswith('SELECT "c"."name" FROM')


def test_correlated_unqualified_column_resolves_to_the_outer_table():
    inner = {
        "tables": [{"name": "orders", "alias": "o"}],
        "select": [{"expr": _lit(1)}],
        "where": _eq(_col("customer_id", "o"), _col("tier")),
    }
    plan = _plan([("customers", "c")], [_col("name")], where={"kind": "exists", "query": inner})
    assert '"o"."customer_id" = "c"."tier"' in render_plan(plan, "duckdb", SHOP)


def test_set_operation_order_by_uses_output_names_or_positions():
    right = {
        "tables": [{"name": "orders", "alias": "o"}],
        "select": [{"expr": _col("status", "o")}, {"expr": _lit(0)}],
    }
    plan = _plan(
        [("customers", "c")],
        [_col("name", "c"), {"kind": "function", "name": "length", "args": [_col("name", "c")]}],
        set_operation={"op": "union", "right": right},
        order_by=[
            {"expr": {"kind": "function", "name": "length", "args": [_col("name", "c")]}},
            {"expr": _col("name", "c")},
        ],
    )
    assert render_plan(plan, "sqlite", SHOP).endswith('ORDER BY 2 ASC, "name" ASC')
    bad = PlanModel.model_validate({**plan.model_dump(), "order_by": [{"expr": _col("city", "c")}]})
    with pytest.raises(SQLGenError, match="must name one of its selected columns"):
        render_plan(bad, "sqlite", SHOP)


def _events() -> SchemaSnapshot:
    columns = [
        Column(name="at", type="TIMESTAMP"),
        Column(name="day", type="DATE"),
        Column(name="label", type="VARCHAR"),
    ]
    return SchemaSnapshot(
        datasource_id="e", dialect="postgres", tables=[Table(name="events", columns=columns)]
    )


@pytest.mark.parametrize(
    ("where", "fragment"),
    [
        (_eq(_col("at"), _lit("2024-01-02 10:30:00")), "CAST('2024-01-02 10:30:00' AS TIMESTAMP)"),
        (_eq(_col("at"), _lit("2024-01-02")), "CAST('2024-01-02' AS DATE)"),
        (_eq(_lit("2024-01-02"), _col("day")), 'CAST(\'2024-01-02\' AS DATE) = "e"."day"'),
        (
            {"kind": "in", "expr": _col("day"), "values": [_lit("2024-01-02")]},
            "IN (CAST('2024-01-02' AS DATE))",
        ),
        (_eq(_col("day"), _lit("January 2")), "= 'January 2'"),
        (_eq(_col("label"), _lit("2024-01-02")), "= '2024-01-02'"),
    ],
    ids=["timestamp", "date-on-timestamp", "literal-first", "in-list", "not-iso", "text-column"],
)
def test_iso_date_strings_are_cast_only_against_temporal_columns(where, fragment):
    plan = _plan([("events", "e")], [_col("label")], where=where)
    assert fragment in render_plan(plan, "postgres", _events())
    assert "CAST" not in render_plan(plan, "sqlite", _events())


def test_derived_aliases_are_unique_and_only_in_the_outermost_select():
    count = {"kind": "aggregate", "func": "count"}
    inner = {"tables": [{"name": "orders", "alias": "o"}], "select": [{"expr": count}]}
    plan = _plan(
        [("orders", "o")],
        [
            count,
            {"expr": _col("status", "o"), "alias": "count_star"},
            count,
            {"kind": "subquery", "query": inner},
        ],
        group_by=[_col("status", "o")],
    )
    sql = render_plan(plan, "duckdb", SHOP)
    assert (
        'COUNT(*) AS "count_star_2", "o"."status" AS "count_star", COUNT(*) AS "count_star_3"'
        in sql
    )
    assert '(SELECT COUNT(*) FROM "orders" AS "o")' in sql


def test_group_by_and_having_inline_a_select_alias():
    year = {"kind": "extract", "part": "year", "expr": _col("order_date", "o")}
    plan = _plan(
        [("orders", "o")],
        [
            {"expr": year, "alias": "yr"},
            {"expr": {"kind": "aggregate", "func": "count"}, "alias": "n"},
        ],
        group_by=[_col("yr")],
        having={"kind": "comparison", "op": ">", "left": _col("n"), "right": _lit(1)},
        order_by=[{"expr": {"kind": "arithmetic", "op": "+", "left": _col("n"), "right": _lit(0)}}],
    )
    sql = render_plan(plan, "postgres", SHOP)
    assert 'GROUP BY CAST(EXTRACT(YEAR FROM "o"."order_date") AS INT) HAVING COUNT(*) > 1' in sql
    assert "ORDER BY COUNT(*) + 0" in sql


def test_boolean_and_null_literals():
    plan = _plan(
        [("orders", "o")], [{"expr": _lit(True), "alias": "t"}, {"expr": _lit(None), "alias": "n"}]
    )
    assert (
        render_plan(plan, "duckdb", SHOP) == 'SELECT TRUE AS "t", NULL AS "n" FROM "orders" AS "o"'
    )
