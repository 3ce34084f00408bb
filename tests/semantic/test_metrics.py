"""Metrics of the layer in use: a question that names one ("revenue by state", "which store has
the highest gross sales") plans with the metric as its measure, answers like hand-written SQL,
shows the metric by its name, and is refused to a role that may not read what it aggregates."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import nl2sql
from nl2sql.notebook.plan_tree import plan_tree, tree_text
from nl2sql.notebook.text import render_text
from nl2sql.plan import MetricRef, walk
from nl2sql.security.rbac import UserContext
from tests.semantic.conftest import SHOP_LAYER, STORE_LAYER, build_shop, build_stores

_SHOP_REVENUE = (
    "FROM order_items i JOIN orders o ON i.order_ref = o.order_id "
    "JOIN customers c ON o.custRef = c.id"
)
_STORE_SALES = "FROM tblSale s JOIN tblStore t ON s.storeRef = t.storeId"


@pytest.fixture(scope="module")
def databases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("metrics")
    return {
        "shop": build_shop(folder / "shop.sqlite"),
        "stores": build_stores(folder / "stores.sqlite"),
    }


@pytest.fixture(scope="module")
def sessions(
    databases: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, nl2sql.Session]]:
    layers = {"shop": SHOP_LAYER, "stores": STORE_LAYER}
    opened = {
        name: nl2sql.connect(
            sources={name: str(db)},
            semantic={"sources": {name: layers[name]}},
            settings={"project_dir": tmp_path_factory.mktemp(name)},
        )
        for name, db in databases.items()
    }
    yield opened
    for session in opened.values():
        session.close()


def _direct(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as con:
        return [tuple(r) for r in con.execute(sql).fetchall()]


def _rows(result: Any) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in result.to_pandas().itertuples(index=False)]


def _same_rows(result: Any, db: Path, sql: str, *, largest_first: bool = True) -> None:
    """The result holds the rows of `sql`; a per-group answer the offline engine was not asked to
    order comes largest first (ties in any order)."""
    rows = _rows(result)
    assert sorted(rows) == sorted(_direct(db, sql))
    measures = [row[-1] for row in rows]
    assert not largest_first or measures == sorted(measures, reverse=True)


@pytest.mark.parametrize(
    ("source", "question", "sql"),
    [
        (
            "shop",
            "revenue by state",
            f"SELECT c.state, SUM(i.quantity * i.unit_price) {_SHOP_REVENUE} GROUP BY c.state ORDER BY c.state",
        ),
        (
            "shop",
            "Total revenue per customer",
            f"SELECT c.full_name, SUM(i.quantity * i.unit_price) {_SHOP_REVENUE} "
            "GROUP BY c.id, c.full_name ORDER BY c.full_name",
        ),
        (
            "shop",
            "Which customer has the highest revenue?",
            f"SELECT c.full_name {_SHOP_REVENUE} GROUP BY c.id, c.full_name "
            "ORDER BY SUM(i.quantity * i.unit_price) DESC LIMIT 1",
        ),
        (
            "shop",
            "What is the total revenue?",
            "SELECT SUM(quantity * unit_price) FROM order_items",
        ),
        (
            "stores",
            "gross sales by sales region",
            f"SELECT t.salesRegion, SUM(s.qtySold * s.unitPrice) {_STORE_SALES} "
            "GROUP BY t.salesRegion ORDER BY t.salesRegion",
        ),
        (
            "stores",
            "Which store has the highest gross sales?",
            f"SELECT t.storeName {_STORE_SALES} GROUP BY t.storeId, t.storeName "
            "ORDER BY SUM(s.qtySold * s.unitPrice) DESC LIMIT 1",
        ),
        (
            "stores",
            "Top 2 stores by units moved",
            f"SELECT t.storeName, SUM(s.qtySold) {_STORE_SALES} GROUP BY t.storeId, t.storeName "
            "ORDER BY SUM(s.qtySold) DESC LIMIT 2",
        ),
    ],
)
def test_a_question_naming_a_metric_answers_like_direct_sql(
    sessions: dict[str, nl2sql.Session],
    databases: dict[str, Path],
    source: str,
    question: str,
    sql: str,
) -> None:
    result = sessions[source].ask(question)
    assert result.status == "success", [e.message for e in result.errors]
    _same_rows(result, databases[source], sql)
    plans = [o.plan for o in result.sub_queries if o.plan is not None]
    assert any(isinstance(n, MetricRef) for p in plans for n in walk(p))


def test_a_metric_is_shown_by_its_name(sessions: dict[str, nl2sql.Session]) -> None:
    result = sessions["stores"].ask("gross sales by sales region")
    assert result.status == "success", [e.message for e in result.errors]
    assert list(result.to_pandas().columns) == ["salesRegion", "grossSales"]
    assert result.labels["grossSales"] == "Gross sales"
    plan = next(o.plan for o in result.sub_queries if o.plan is not None)
    tree = tree_text(plan_tree(plan))
    assert 't1."grossSales" /* metric */ AS "grossSales"' in tree and "SUM(" not in tree
    plan_section = render_text(result).split("── SQL")[0].split("── Plan")[-1].splitlines()
    shown = [line for line in plan_section if "Semantic layer used" not in line]
    assert plan_section != shown, "the Plan section names the layer entries used"
    assert not any("SUM(" in line for line in shown)  # the plan itself shows the metric's name


@pytest.mark.parametrize(
    ("question", "refusal"),
    [
        ("average gross sales per store", "the average of metric 'grossSales'"),
        ("How many stores and gross sales per region", "second measure"),
    ],
)
def test_a_metric_under_another_aggregate_is_refused(
    sessions: dict[str, nl2sql.Session], question: str, refusal: str
) -> None:
    result = sessions["stores"].ask(question)
    assert result.status == "error"
    assert refusal in " ".join(e.message for e in result.errors)


@pytest.mark.parametrize(("role", "answered"), [("clerk", False), ("admin", True)])
def test_a_metric_over_a_denied_column_is_invisible(
    databases: dict[str, Path], tmp_path: Path, role: str, answered: bool
) -> None:
    toml = tmp_path / "nl2sql.toml"
    toml.write_text(
        f'[sources.shop]\npath = "{databases["shop"]}"\n[settings]\nproject_dir = "{tmp_path / "p"}"\n'
        "[policies.roles.clerk.datasources.shop]\n"
        'tables = "*"\ncolumns = { order_items = ["item_id", "order_ref", "sku", "quantity"] }\n'
        '[policies.roles.admin.datasources]\nshop = "*"\n',
        encoding="utf-8",
    )
    with nl2sql.connect(
        config=toml, semantic={"sources": {"shop": SHOP_LAYER}}, user=UserContext(roles=(role,))
    ) as session:
        result = session.ask("revenue by state")
    assert (result.status == "success") is answered, [e.message for e in result.errors]
    if not answered:  # the clerk's schema has no such metric: the word names nothing
        assert "'revenue' matches no table, column or stored value" in result.errors[0].message
    if answered:
        _same_rows(
            result,
            databases["shop"],
            f"SELECT c.state, SUM(i.quantity * i.unit_price) {_SHOP_REVENUE} GROUP BY c.state ORDER BY c.state",
        )


_MODEL_PLAN: dict[str, Any] = {
    "tables": [
        {"name": "order_items", "alias": "oi"},
        {"name": "orders", "alias": "o"},
        {"name": "customers", "alias": "c"},
    ],
    "joins": [
        {
            "alias": "o",
            "on": {
                "kind": "comparison",
                "op": "=",
                "left": {"kind": "column", "table": "oi", "name": "order_ref"},
                "right": {"kind": "column", "table": "o", "name": "order_id"},
            },
        },
        {
            "alias": "c",
            "on": {
                "kind": "comparison",
                "op": "=",
                "left": {"kind": "column", "table": "o", "name": "custRef"},
                "right": {"kind": "column", "table": "c", "name": "id"},
            },
        },
    ],
    "select": [
        {"expr": {"kind": "column", "table": "c", "name": "state"}, "alias": "state"},
        {"expr": {"kind": "metric", "name": "revenue", "table": "oi"}},
    ],
    "group_by": [{"kind": "column", "table": "c", "name": "state"}],
    "order_by": [{"expr": {"kind": "column", "name": "state"}, "direction": "asc"}],
}


@pytest.mark.parametrize(("role", "answered"), [("clerk", False), ("admin", True)])
def test_a_chat_model_plans_with_the_metric_node(
    databases: dict[str, Path], tmp_path: Path, role: str, answered: bool
) -> None:
    from nl2sql.reasoning.llm.config import ModelConfig
    from nl2sql.reasoning.llm.skill import ChatModelSkill
    from tests.reasoning.llm.fake_chat import ScriptedChatModel

    fake = ScriptedChatModel(script=[{"reasoning": "revenue per state", "plan": _MODEL_PLAN}] * 6)
    planner = ChatModelSkill(ModelConfig(model="scripted:planner"), chat_model=fake)
    toml = tmp_path / "nl2sql.toml"
    toml.write_text(
        f'[sources.shop]\npath = "{databases["shop"]}"\n[settings]\nproject_dir = "{tmp_path / "p"}"\n'
        "sql_agent_retry_base_delay_sec = 0\nsql_agent_retry_jitter_sec = 0\n"
        "[policies.roles.clerk.datasources.shop]\n"
        'tables = "*"\ncolumns = { order_items = ["item_id", "order_ref", "sku", "quantity"] }\n'
        '[policies.roles.admin.datasources]\nshop = "*"\n',
        encoding="utf-8",
    )
    with nl2sql.connect(
        config=toml,
        semantic={"sources": {"shop": SHOP_LAYER}},
        models={"default": "offline", "ast_planner": planner},
        user=UserContext(roles=(role,)),
    ) as session:
        result = session.ask("Revenue by customer state")
    prompt = fake.prompts()[0]
    assert '{"kind": "metric", "name": <metric>' in prompt
    assert ("metric revenue = SUM(quantity * unit_price)" in prompt) is answered
    if answered:
        assert result.status == "success", [e.message for e in result.errors]
        _same_rows(
            result,
            databases["shop"],
            f"SELECT c.state, SUM(i.quantity * i.unit_price) {_SHOP_REVENUE} GROUP BY c.state ORDER BY c.state",
            largest_first=False,
        )
    else:
        assert result.status == "error"
        assert "Metric 'revenue' is not defined for table 'order_items'" in " ".join(
            e.message for e in result.errors
        )


def test_the_plan_schema_a_chat_model_is_given_admits_the_metric_node() -> None:
    import jsonschema

    from nl2sql.reasoning.base import ASTPlannerResponse
    from nl2sql.reasoning.llm.jsonschema import compact_schema

    schema = compact_schema(ASTPlannerResponse, ("reasoning",))
    jsonschema.validate({"reasoning": "r", "plan": _MODEL_PLAN, "confidence": 0.9}, schema)
    no_alias = {**_MODEL_PLAN, "select": [{"expr": {"kind": "metric", "name": "revenue"}}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"plan": no_alias}, schema)
