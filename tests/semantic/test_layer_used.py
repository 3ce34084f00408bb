"""Which layer entries a plan used: relationships, terms and metrics, on the result and in the
Plan tab, the static HTML and the text."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import nl2sql
from nl2sql.notebook.html import render_html
from nl2sql.notebook.text import render_text
from nl2sql.plan import PlanModel, SelectItem, TableRef
from nl2sql.semantic.apply import apply_source_layer
from nl2sql.semantic.models import SourceLayer
from nl2sql.semantic.used import LayerEntry, layer_used, summary
from tests.semantic.test_layer_use import LAYER

CODED_LAYER: dict[str, Any] = {
    "relationships": [{"from": "TBL_ORD.ORD_CST", "to": "TBL_CST.CST_CD"}],
    "terms": [{"term": "client", "means": "TBL_CST"}, {"term": "area", "means": "TBL_CST.CST_RGN"},
              {"term": "order", "means": "TBL_ORD"}, {"term": "outlet", "means": "stores"}],
}


def _coded(path: Path) -> Path:
    """Coded upper-case names without keys, and a snake_case pair with a declared key."""
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE TBL_CST (CST_CD TEXT, CST_NM TEXT, CST_RGN TEXT);
        CREATE TABLE TBL_ORD (ORD_NO INTEGER, ORD_CST TEXT, ORD_AMT REAL);
        CREATE TABLE regions (region_id INTEGER PRIMARY KEY, region_name TEXT);
        CREATE TABLE stores (store_id INTEGER, region_id INTEGER REFERENCES regions(region_id));
    """)
    areas = ["North", "South", "East", "West"]
    con.executemany("INSERT INTO TBL_CST VALUES (?, ?, ?)", [(f"C{i:03d}", f"Name {i}", areas[i % 4]) for i in range(20)])
    con.executemany("INSERT INTO TBL_ORD VALUES (?, ?, ?)", [(i, f"C{i % 20:03d}", 10.0 + i) for i in range(80)])
    con.executemany("INSERT INTO regions VALUES (?, ?)", list(enumerate(areas, 1)))
    con.executemany("INSERT INTO stores VALUES (?, ?)", [(i, 1 + i % 4) for i in range(12)])
    con.commit()
    con.close()
    return path


def _layered(folder: Path, source: str, build: Callable[[Path], Path], layer: dict[str, Any]) -> Iterator[Any]:
    session = nl2sql.connect(sources={source: str(build(folder / f"{source}.sqlite"))},
                             semantic={"sources": {source: layer}}, settings={"project_dir": folder / "p"})
    yield session
    session.close()


@pytest.fixture(scope="module")
def shop_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from tests.semantic.conftest import build_shop

    yield from _layered(tmp_path_factory.mktemp("used_shop"), "shop", build_shop, LAYER)


@pytest.fixture(scope="module")
def coded_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    yield from _layered(tmp_path_factory.mktemp("used_coded"), "coded", _coded, CODED_LAYER)


def _used(result: Any) -> list[str]:
    assert result.status == "success", result.errors
    return [str(e) for entries in result.layer_used.values() for e in entries]


@pytest.mark.parametrize(("question", "rows", "used"), [
    ("How many orders does each client have?", 30,
     ["term 'client' → customers", "relationship orders.custRef → customers.id"]),
    ("How many customers are in CA?", 1, ["term 'CA' → customers.state = 'California'"]),
    ("Which product is the priciest?", 1, ["term 'priciest' → products.unit_price desc"]),
    # "customers" names the table itself: no term was needed, the relationships were
    ("Total quantity of items per customer state", 3,
     ["relationship order_items.order_ref → orders.order_id", "relationship orders.custRef → customers.id"]),
])
def test_the_entries_a_run_used_on_the_shop(shop_session: Any, question: str, rows: int, used: list[str]) -> None:
    result = shop_session.ask(question)
    assert _used(result) == used
    assert result.table().num_rows == rows


@pytest.mark.parametrize(("question", "used"), [
    ("How many orders per client area?",
     ["term 'client' → TBL_CST", "term 'area' → TBL_CST.CST_RGN", "term 'order' → TBL_ORD",
      "relationship TBL_ORD.ORD_CST → TBL_CST.CST_CD"]),
    ("How many clients are in the West area?", ["term 'client' → TBL_CST", "term 'area' → TBL_CST.CST_RGN"]),
    # the join follows the key the database declares: it is not the layer's
    ("How many outlets are in each region?", ["term 'outlet' → stores"]),
])
def test_the_entries_a_run_used_on_coded_names(coded_session: Any, question: str, used: list[str]) -> None:
    assert _used(coded_session.ask(question)) == used


def test_a_run_without_a_layer_used_nothing(tmp_path: Path) -> None:
    with nl2sql.connect(sources={"coded": str(_coded(tmp_path / "c.sqlite"))},
                        settings={"project_dir": tmp_path / "p"}) as session:
        result = session.ask("How many stores are in each region?")
        assert result.status == "success" and result.layer_used == {}
        assert "Semantic layer used" not in render_text(result)


def test_the_plan_tab_the_html_and_the_text_show_the_entries(shop_session: Any) -> None:
    from nl2sql.notebook.widgets.tabs import plan_tab

    result = shop_session.ask("How many orders does each client have?")
    line = ("Semantic layer used: term 'client' → customers; "
            "relationship orders.custRef → customers.id")
    assert line in render_text(result)
    assert line.replace("'", "&#x27;") in render_html(result)
    tab = plan_tab(result)
    head = tab.children[0].children[0]
    assert line.replace("'", "&#x27;") in head.value
    assert result.to_dict()["layer_used"] == {sq: [str(e) for e in entries]
                                             for sq, entries in result.layer_used.items()}


def test_a_layer_key_is_marked_and_keeps_the_fingerprint(shop_session: Any) -> None:
    snapshot = shop_session.context.schemas.get("shop")
    orders = snapshot.table("orders")
    assert [(f.columns, f.from_layer) for f in orders.foreign_keys] == [(["custRef"], True)]
    assert "from_layer" not in orders.foreign_keys[0].model_copy(update={"from_layer": False}).model_dump()
    unmarked = snapshot.model_copy(update={"tables": [t.model_copy(update={"foreign_keys": [
        f.model_copy(update={"from_layer": False}) for f in t.foreign_keys]}) for t in snapshot.tables]})
    assert unmarked.fingerprint == snapshot.fingerprint


class _MetricNode(BaseModel):
    """The shape of a metric node of a plan: a `kind` of "metric" and the metric's `name`."""

    kind: str = "metric"
    name: str


def test_metric_nodes_are_read_by_kind_and_name(shop_session: Any) -> None:
    raw = shop_session.context.schemas.get("shop")
    snapshot = apply_source_layer(raw.model_copy(update={"tables": [t.model_copy(update={
        "semantic": None, "foreign_keys": []}) for t in raw.tables]}), SourceLayer.model_validate(LAYER))
    item = SelectItem.model_construct(expr=_MetricNode(name="Revenue"), alias="revenue")
    plan = PlanModel.model_construct(tables=[TableRef(name="order_items", alias="t1")], select=[item])
    assert layer_used(plan, "What is the revenue?", snapshot) == [
        LayerEntry("metric", "revenue", "SUM(quantity * unit_price) on order_items")]
    unknown = SelectItem.model_construct(expr=_MetricNode(name="margin"), alias="m")
    assert [str(e) for e in layer_used(plan.model_copy(update={"select": [unknown]}), "margin?", snapshot)] == [
        "metric 'margin'"]
    assert summary([]) == ""
