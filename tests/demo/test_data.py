"""The demo's content: deterministic, dates as promised, keys declared and resolvable, shared keys."""

from __future__ import annotations

import datetime as dt
import time

import pytest
from sqlglot import exp

from nl2sql.datasources.duckdb import DuckDBAdapter
from nl2sql.datasources.sqlite import SQLiteAdapter
from nl2sql.demo import build_demo
from nl2sql.schema.models import ForeignKey

from .conftest import rows, scalar

FINGERPRINT_QUERIES = {
    "warehouse": [
        "SELECT COUNT(*) AS n, SUM(quantity * unit_price * (1 - discount)) AS revenue FROM order_items",
        "SELECT status, channel, COUNT(*) AS n FROM orders GROUP BY ALL ORDER BY ALL",
        "SELECT * FROM customers ORDER BY customer_id",
        "SELECT * FROM products ORDER BY product_id",
        "SELECT * FROM stores ORDER BY store_id",
        "SELECT md5(string_agg(CAST(o AS VARCHAR), ',' ORDER BY order_id)) AS h FROM orders AS o",
    ],
    "crm": [
        "SELECT * FROM accounts ORDER BY account_id",
        "SELECT * FROM contacts ORDER BY contact_id",
        "SELECT * FROM support_tickets ORDER BY ticket_id",
    ],
}


def test_two_builds_are_identical(small_demo, small_demo_twin):
    assert small_demo.warehouse != small_demo_twin.warehouse
    for name, open_ in (("warehouse", DuckDBAdapter), ("crm", SQLiteAdapter)):
        a = open_(name, getattr(small_demo, name))
        b = open_(name, getattr(small_demo_twin, name))
        assert a.fetch_schema() == b.fetch_schema()  # structure, row counts, samples
        for sql in FINGERPRINT_QUERIES[name]:
            assert rows(a, sql) == rows(b, sql), sql
        a.close()
        b.close()


def test_order_dates_span_exactly(warehouse):
    span = rows(warehouse, "SELECT MIN(order_date) AS lo, MAX(order_date) AS hi FROM orders")
    assert span == [{"lo": dt.date(2023, 1, 1), "hi": dt.date(2025, 6, 30)}]
    calendar = rows(
        warehouse, "SELECT MIN(date_key) AS lo, MAX(date_key) AS hi, COUNT(*) AS n FROM dates"
    )
    assert calendar == [{"lo": dt.date(2023, 1, 1), "hi": dt.date(2025, 6, 30), "n": 912}]


def test_calendar_columns(warehouse):
    day = rows(warehouse, "SELECT * FROM dates WHERE date_key = DATE '2024-11-30'")
    assert day == [
        {
            "date_key": dt.date(2024, 11, 30),
            "year": 2024,
            "quarter": 4,
            "month": 11,
            "month_name": "November",
            "day_of_week": "Saturday",
            "is_weekend": True,
        }
    ]


def test_warehouse_foreign_keys_are_declared(warehouse):
    snapshot = warehouse.fetch_schema()
    assert (
        ForeignKey(columns=["customer_id"], ref_table="customers", ref_columns=["customer_id"])
        in snapshot.table("orders").foreign_keys
    )
    assert (
        ForeignKey(columns=["store_id"], ref_table="stores", ref_columns=["store_id"])
        in snapshot.table("orders").foreign_keys
    )
    assert (
        ForeignKey(columns=["product_id"], ref_table="products", ref_columns=["product_id"])
        in snapshot.table("order_items").foreign_keys
    )
    assert snapshot.table("stores").foreign_keys[0].ref_table == "regions"
    assert {t.key: t.primary_key for t in snapshot.tables}["dates"] == ["date_key"]
    assert snapshot.table("products").column("unit_price").type == "DECIMAL(10,2)"
    assert snapshot.table("order_items").column("discount").type == "DECIMAL(4,2)"
    assert snapshot.table("order_items").description  # table comments reach the snapshot


@pytest.mark.parametrize("which", ["warehouse", "crm"])
def test_every_foreign_key_resolves(request, which):
    adapter = request.getfixturevalue(which)
    snapshot = adapter.fetch_schema()
    checked = 0
    for table in snapshot.tables:
        for fk in table.foreign_keys:
            (col,), (ref,) = fk.columns, fk.ref_columns
            orphans = scalar(
                adapter, _orphans_sql(table.name, col, fk.ref_table, ref, adapter.dialect)
            )
            assert orphans == 0, (table.name, col)
            checked += 1
    assert checked == {"warehouse": 7, "crm": 2}[which]


def _orphans_sql(table: str, column: str, ref_table: str, ref_column: str, dialect: str) -> str:
    """COUNT of rows of `table` whose `column` matches no `ref_table.ref_column`."""
    match = (
        exp.select("1")
        .from_(exp.table_(ref_table, quoted=True, alias="r"))
        .where(
            exp.EQ(
                this=exp.column(ref_column, "r", quoted=True),
                expression=exp.column(column, "t", quoted=True),
            )
        )
    )
    query = (
        exp.select(exp.Count(this=exp.Star()))
        .from_(exp.table_(table, quoted=True, alias="t"))
        .where(exp.Not(this=exp.Exists(this=match)))
    )
    return query.sql(dialect)


def test_shared_keys_match_across_sources(warehouse, crm):
    customers = {
        r["customer_id"]: r
        for r in rows(
            warehouse,
            "SELECT c.customer_id, r.region_name, c.segment FROM customers AS c "
            "JOIN regions AS r USING (region_id)",
        )
    }
    accounts = rows(crm, "SELECT customer_id, region FROM accounts")
    assert len(accounts) > len(customers) / 3
    assert len({a["customer_id"] for a in accounts}) == len(accounts)
    for account in accounts:
        assert account["region"] == customers[account["customer_id"]]["region_name"]
    businesses = {c for c, r in customers.items() if r["segment"] != "Consumer"}
    assert businesses <= {a["customer_id"] for a in accounts}  # every business has an account
    region_names = {r["region_name"] for r in rows(warehouse, "SELECT region_name FROM regions")}
    assert region_names == {"North", "South", "East", "West", "Central"}


def test_value_domains(warehouse, crm):
    def values(adapter, sql):
        return {next(iter(r.values())) for r in rows(adapter, sql)}

    assert values(warehouse, "SELECT DISTINCT status FROM orders") == {
        "completed",
        "returned",
        "cancelled",
        "pending",
    }
    assert values(warehouse, "SELECT DISTINCT channel FROM orders") == {"online", "in-store"}
    assert values(warehouse, "SELECT DISTINCT segment FROM customers") == {
        "Consumer",
        "Corporate",
        "Small Business",
    }
    assert {"Electronics", "Furniture", "Office Supplies", "Clothing", "Sports"} <= values(
        warehouse, "SELECT DISTINCT category FROM products"
    )
    assert values(crm, "SELECT DISTINCT tier FROM accounts") == {
        "Bronze",
        "Silver",
        "Gold",
        "Platinum",
    }
    assert values(crm, "SELECT DISTINCT priority FROM support_tickets") == {
        "low",
        "medium",
        "high",
        "urgent",
    }
    assert values(crm, "SELECT DISTINCT status FROM support_tickets") == {
        "open",
        "closed",
        "escalated",
    }
    assert values(crm, "SELECT DISTINCT satisfaction_score FROM support_tickets") == {
        None,
        1,
        2,
        3,
        4,
        5,
    }
    assert warehouse.lookup_values("customers", "state", "california") == ["California"]


def test_ticket_dates_are_consistent(crm):
    assert (
        scalar(
            crm,
            "SELECT COUNT(*) FROM support_tickets WHERE (status = 'closed') <> (closed_date IS NOT NULL)",
        )
        == 0
    )
    assert scalar(crm, "SELECT COUNT(*) FROM support_tickets WHERE closed_date < opened_date") == 0
    assert (
        scalar(crm, "SELECT MAX(COALESCE(closed_date, opened_date)) FROM support_tickets")
        <= "2025-06-30"
    )
    assert (
        scalar(
            crm,
            "SELECT COUNT(*) FROM support_tickets WHERE satisfaction_score IS NOT NULL AND status <> 'closed'",
        )
        == 0
    )


def test_customers_sign_up_before_their_first_order(warehouse):
    late = "SELECT COUNT(*) FROM customers AS c JOIN orders AS o USING (customer_id) WHERE o.order_date < c.signup_date"
    assert scalar(warehouse, late) == 0


def test_scale_one_has_over_100k_order_items(tmp_path):
    started = time.perf_counter()
    paths = build_demo(tmp_path, 1.0)
    elapsed = time.perf_counter() - started
    warehouse = DuckDBAdapter("warehouse", paths.warehouse)
    crm = SQLiteAdapter("crm", paths.crm)
    counts = {t.key: t.row_count for t in warehouse.fetch_schema().tables}
    counts |= {t.key: t.row_count for t in crm.fetch_schema().tables}
    print(f"demo build at scale 1: {elapsed:.2f} s; rows: {counts}")
    assert counts["order_items"] >= 100_000
    assert 1_500 <= counts["customers"] and 30_000 <= counts["orders"] and 150 <= counts["products"]
    assert 20 <= counts["stores"] and counts["support_tickets"] >= 3_000
    # Pareto-ish popularity: the top fifth of products sell well over half the units
    top = scalar(
        warehouse,
        "SELECT SUM(u) / (SELECT SUM(quantity) FROM order_items) FROM ("
        "SELECT SUM(quantity) AS u FROM order_items GROUP BY product_id "
        "ORDER BY u DESC LIMIT 40)",
    )
    assert top > 0.5
    # seasonality: December outsells February every year
    by_month = {
        (r["y"], r["m"]): r["n"]
        for r in rows(
            warehouse,
            "SELECT year(order_date) AS y, "
            "month(order_date) AS m, COUNT(*) AS n FROM orders GROUP BY ALL",
        )
    }
    assert by_month[(2023, 12)] > by_month[(2023, 2)] and by_month[(2024, 12)] > by_month[(2024, 2)]
    warehouse.close()
    crm.close()
    assert elapsed < 30  # about 1-2 s on two cores; generous for a loaded machine
