"""Conditions on a metric of the layer: "stores whose gross sales is above 210", "regions with
gross sales under 500" keep the groups whose metric passes (HAVING on the metric node), on
SQLite and on DuckDB, with the rows hand-written SQL returns on the same database."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

import nl2sql
from nl2sql.plan import MetricRef, walk
from tests.semantic.conftest import SHOP_LAYER, STORE_LAYER, build_shop, build_stores

_SALES = "FROM tblSale s JOIN tblStore t ON s.storeRef = t.storeId"
_GROSS = "SUM(s.qtySold * s.unitPrice)"
_REVENUE = (
    "FROM order_items i JOIN orders o ON i.order_ref = o.order_id "
    "JOIN customers c ON o.custRef = c.id"
)

STORE_QUESTIONS = [
    ("Which stores have gross sales over 210?",
     f"SELECT t.storeName {_SALES} GROUP BY t.storeId, t.storeName HAVING {_GROSS} > 210"),
    ("stores whose gross sales is above 210",
     f"SELECT t.storeName {_SALES} GROUP BY t.storeId, t.storeName HAVING {_GROSS} > 210"),
    ("regions with gross sales under 500",
     f"SELECT t.salesRegion {_SALES} GROUP BY t.salesRegion HAVING {_GROSS} < 500"),
    ("Which stores have gross sales between 200 and 225?",
     f"SELECT t.storeName {_SALES} GROUP BY t.storeId, t.storeName "
     f"HAVING {_GROSS} BETWEEN 200 AND 225"),
    ("stores with more than 210 in gross sales",
     f"SELECT t.storeName {_SALES} GROUP BY t.storeId, t.storeName HAVING {_GROSS} > 210"),
    ("How many stores have gross sales above 210?",
     f"SELECT COUNT(*) FROM (SELECT t.storeId {_SALES} GROUP BY t.storeId HAVING {_GROSS} > 210)"),
    ("units moved per sales region where gross sales is above 500",
     f"SELECT t.salesRegion, SUM(s.qtySold) {_SALES} GROUP BY t.salesRegion HAVING {_GROSS} > 500"),
    ("Top 2 stores by units moved with gross sales above 210",
     f"SELECT t.storeName, SUM(s.qtySold) {_SALES} GROUP BY t.storeId, t.storeName "
     f"HAVING {_GROSS} > 210 ORDER BY SUM(s.qtySold) DESC LIMIT 2"),
    ("Which store with gross sales above 210 has the most units moved?",
     f"SELECT t.storeName {_SALES} GROUP BY t.storeId, t.storeName "
     f"HAVING {_GROSS} > 210 ORDER BY SUM(s.qtySold) DESC LIMIT 1"),
    ("gross sales per store with gross sales of at least 230",
     f"SELECT t.storeName, {_GROSS} {_SALES} GROUP BY t.storeId, t.storeName HAVING {_GROSS} >= 230"),
]  # fmt: skip


@pytest.fixture(scope="module", params=["sqlite", "duckdb"])
def stores(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[nl2sql.Session, Any]]:
    """A session over the stores database on one engine, and a connection to run SQL directly
    (on a twin file with the same rows: DuckDB lets one process open a file one way only)."""
    folder = tmp_path_factory.mktemp(request.param)
    path = build_stores(folder / f"stores.{request.param}")
    twin = build_stores(folder / f"twin.{request.param}")
    direct = duckdb.connect(str(twin)) if request.param == "duckdb" else sqlite3.connect(twin)
    with nl2sql.connect(
        sources={"stores": f"{request.param}:///{path}"},
        semantic={"sources": {"stores": STORE_LAYER}},
        settings={"project_dir": folder / "project"},
    ) as session:
        yield session, direct
    direct.close()


def _rows(result: Any) -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in result.to_pandas().itertuples(index=False))


def _compared_metric(result: Any) -> list[str]:
    """The names of the metrics the plans compare in HAVING (their own or a sub-query's)."""
    plans = [o.plan for o in result.sub_queries if o.plan is not None]
    havings = [n.having for p in plans for n in walk(p) if getattr(n, "having", None) is not None]
    return [n.name for h in havings for n in walk(h) if isinstance(n, MetricRef)]


@pytest.mark.parametrize(("question", "sql"), STORE_QUESTIONS, ids=[q for q, _ in STORE_QUESTIONS])
def test_a_condition_on_a_metric_keeps_the_groups_it_holds_for(
    stores: tuple[nl2sql.Session, Any], question: str, sql: str
) -> None:
    session, direct = stores
    result = session.ask(question)
    assert result.status == "success", [e.message for e in result.errors]
    expected = sorted(tuple(r) for r in direct.execute(sql).fetchall())
    assert expected and _rows(result) == expected
    assert "grossSales" in _compared_metric(result)


@pytest.mark.parametrize(("question", "sql"), [
    ("customers whose revenue is above 600",
     f"SELECT c.full_name {_REVENUE} GROUP BY c.id, c.full_name "
     "HAVING SUM(i.quantity * i.unit_price) > 600"),
    ("How many customers have revenue of at least 300?",
     f"SELECT COUNT(*) FROM (SELECT c.id {_REVENUE} GROUP BY c.id "
     "HAVING SUM(i.quantity * i.unit_price) >= 300)"),
    ("Which states have revenue of more than 2000?",
     f"SELECT c.state {_REVENUE} GROUP BY c.state HAVING SUM(i.quantity * i.unit_price) > 2000"),
])  # fmt: skip
def test_a_metric_over_two_joins_is_compared_per_group(
    tmp_path: Path, question: str, sql: str
) -> None:
    shop = build_shop(tmp_path / "shop.sqlite")
    with nl2sql.connect(
        sources={"shop": str(shop)},
        semantic={"sources": {"shop": SHOP_LAYER}},
        settings={"project_dir": tmp_path / "project"},
    ) as session:
        result = session.ask(question)
    assert result.status == "success", [e.message for e in result.errors]
    with sqlite3.connect(shop) as con:
        expected = sorted(tuple(r) for r in con.execute(sql).fetchall())
    assert expected and _rows(result) == expected
    assert _compared_metric(result) == ["revenue"]


def test_a_metric_of_other_rows_than_the_groups_is_refused(
    stores: tuple[nl2sql.Session, Any],
) -> None:
    session, _ = stores
    # each store's gross sales inside groups by region would need a nested query
    result = session.ask("gross sales by sales region for stores with gross sales above 100")
    assert result.status == "error"
    assert "(a nested query); not supported" in result.errors[0].message
