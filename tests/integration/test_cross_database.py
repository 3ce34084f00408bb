"""One question answered from PostgreSQL, MariaDB and DuckDB together, through the aggregator.

Customers live in PostgreSQL, orders in MariaDB, support tickets in DuckDB; each has a region.
The offline decomposer splits a question into at most two parts, so the decomposition (three
sub-queries, one per source, joined on region) is supplied as a scripted decomposer skill; every
other node is the real offline engine: the planner writes each source's SQL in its own dialect,
the read-only adapters run it, and the aggregator joins the three results.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import duckdb
import pandas as pd
import pytest

import nl2sql
from nl2sql.decomposition import (
    CombineGroup,
    CombineInput,
    DecomposerResponse,
    JoinKey,
    SubQuery,
    sub_query_id,
)

from ..datasources.conformance.servers import insert_rows, run_all, scratch

REGIONS = ("East", "North", "South", "West")
CUSTOMERS = [(i, f"Customer {i}", REGIONS[i % 4]) for i in range(1, 21)]  # 5 per region
ORDERS = [(i, REGIONS[i % 3], Decimal(f"{10 + i}.50")) for i in range(1, 31)]  # no West orders
TICKETS = [(i, REGIONS[(i * 7) % 4], "high" if i % 2 else "low") for i in range(1, 14)]
QUESTION = (
    "For each region, the number of customers, the total order amount and the number of tickets"
)
PARTS = (
    ("crm", "number of customers per region"),
    ("sales", "total amount of orders per region"),
    ("support", "number of tickets per region"),
)


class ThreeSourceDecomposer:
    """A decomposer skill with a fixed answer: one sub-query per source, joined on region."""

    def decompose(self, request) -> DecomposerResponse:
        subs = [
            SubQuery(id=sub_query_id(ds, intent, i), datasource_id=ds, intent=intent)
            for i, (ds, intent) in enumerate(PARTS)
        ]
        group = CombineGroup(
            group_id="by_region",
            operation="join",
            inputs=[CombineInput(subquery_id=s.id, role=s.datasource_id) for s in subs],
            join_keys=[JoinKey(left="region", right="region")],
        )
        return DecomposerResponse(
            sub_queries=subs, combine_groups=[group], reasoning="scripted: three sources"
        )


@pytest.fixture(scope="module")
def crm_url(postgres_url: str) -> Iterator[str]:
    with scratch(postgres_url) as (engine, url):
        run_all(engine, ["CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, "
                         "customer_name VARCHAR(50) NOT NULL, region VARCHAR(20) NOT NULL)"])  # fmt: skip
        insert_rows(engine, "customers", ("customer_id", "customer_name", "region"), CUSTOMERS)
        yield url.render_as_string(hide_password=False)


@pytest.fixture(scope="module")
def sales_url(mysql_url: str) -> Iterator[str]:
    with scratch(mysql_url) as (engine, url):
        run_all(engine, ["CREATE TABLE orders (order_id INTEGER PRIMARY KEY, "
                         "region VARCHAR(20) NOT NULL, amount DECIMAL(10, 2) NOT NULL)"])  # fmt: skip
        insert_rows(engine, "orders", ("order_id", "region", "amount"), ORDERS)
        yield url.render_as_string(hide_password=False)


@pytest.fixture(scope="module")
def support_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("support") / "support.duckdb"
    con = duckdb.connect(str(path))
    con.execute(
        "CREATE TABLE tickets (ticket_id INTEGER PRIMARY KEY, region VARCHAR, priority VARCHAR)"
    )
    con.executemany("INSERT INTO tickets VALUES (?, ?, ?)", TICKETS)
    con.close()
    return path


@pytest.fixture(scope="module")
def session(crm_url, sales_url, support_path, tmp_path_factory) -> Iterator[nl2sql.Session]:
    opened = nl2sql.connect(
        sources={
            "crm": {"url": crm_url, "description": "Customers and their regions"},
            "sales": {"url": sales_url, "description": "Orders with amounts"},
            "support": {"url": f"duckdb:///{support_path}", "description": "Support tickets"},
        },
        models={"decomposer": ThreeSourceDecomposer()},
        settings={"project_dir": tmp_path_factory.mktemp("project")},
    )
    yield opened
    opened.close()


def _expected() -> list[tuple[str, int, float, int]]:
    customers = Counter(region for *_, region in CUSTOMERS)
    amounts: dict[str, Decimal] = defaultdict(Decimal)
    for _, region, amount in ORDERS:
        amounts[region] += amount
    tickets = Counter(region for _, region, _ in TICKETS)
    # An inner join: only regions all three sources have.
    shared = sorted(set(customers) & set(amounts) & set(tickets))
    return [(r, customers[r], float(amounts[r]), tickets[r]) for r in shared]


def test_three_databases_answer_one_question(session: nl2sql.Session):
    result = session.ask(QUESTION)
    assert result.status == "success", [e.one_line() for e in result.errors]
    outputs = {o.sub_query.datasource_id: o for o in result.sub_queries}
    assert set(outputs) == {"crm", "sales", "support"}
    assert all(o.status == "success" for o in outputs.values())
    # Each source got SQL in its own dialect.
    assert '"customers"' in outputs["crm"].sql_draft and "`orders`" in outputs["sales"].sql_draft
    table = result.to_pandas()
    assert list(table.columns)[0] == "region"
    rows = sorted(
        (row[0], int(row[1]), round(float(row[2]), 2), int(row[3]))
        for row in table.itertuples(index=False)
    )
    assert rows == _expected()
    assert "West" not in {r[0] for r in rows}  # MariaDB has no West orders: inner join drops it


def test_the_offline_decomposer_splits_a_question_over_two_servers(
    crm_url, sales_url, support_path, tmp_path_factory
):
    with nl2sql.connect(
        sources={
            "crm": {"url": crm_url, "description": "Customers and their regions"},
            "sales": {"url": sales_url, "description": "Orders with amounts"},
            "support": {"url": f"duckdb:///{support_path}", "description": "Support tickets"},
        },
        settings={"project_dir": tmp_path_factory.mktemp("project")},
    ) as real:
        result = real.ask(
            "For each region, compare the number of customers with the number of orders"
        )
    assert result.status == "success", [e.one_line() for e in result.errors]
    assert {o.sub_query.datasource_id for o in result.sub_queries} == {"crm", "sales"}
    customers = Counter(region for *_, region in CUSTOMERS)
    orders = Counter(region for _, region, _ in ORDERS)
    table = result.to_pandas()
    got = {row[0]: (_count(row[1]), _count(row[2])) for row in table.itertuples(index=False)}
    # compare is a full outer join: West has customers but no orders.
    assert got == {r: (customers.get(r), orders.get(r)) for r in set(customers) | set(orders)}
    assert got["West"] == (customers["West"], None)


def _count(value) -> int | None:
    return None if pd.isna(value) else int(value)
