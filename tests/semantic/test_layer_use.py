"""The layer in use: declared relationships join, terms link, labels show, hidden columns never
show, the chat-model prompt carries it, access rules hide what it says about denied columns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import nl2sql
from nl2sql.reasoning.llm.schema_text import render_schema
from nl2sql.schema.models import SchemaSnapshot
from nl2sql.security.rbac import UserContext
from nl2sql.semantic.apply import apply_source_layer
from nl2sql.semantic.models import SourceLayer

LAYER: dict[str, Any] = {
    "relationships": [
        {"from": "orders.custRef", "to": "customers.id"},
        {"from": "order_items.order_ref", "to": "orders.order_id"},
        {"from": "order_items.sku", "to": "products.sku"},
    ],
    "terms": [
        {"term": "client", "means": "customers"},
        {"term": "CA", "means": "customers.state", "value": "California"},
        {"term": "sold", "means": "order_items.quantity"},
        {"term": "priciest", "means": "products.unit_price", "order": "desc"},
        {"term": "tax id", "means": "customers.ssn"},
    ],
    "columns": {"products.unit_price": {"unit": "USD", "description": "list price"}},
    "metrics": [{"name": "revenue", "expression": "SUM(quantity * unit_price)", "table": "order_items"}],
    "labels": {"products": ["sku"]},
    "hidden": ["customers.ssn"],
}


def _session(db: Path, tmp_path: Path, layer: dict[str, Any] | None, **kw: Any) -> nl2sql.Session:
    semantic = {"sources": {"shop": layer}} if layer is not None else None
    return nl2sql.connect(sources={"shop": str(db)}, semantic=semantic,
                          settings={"project_dir": tmp_path / ("with" if layer else "without")}, **kw)


def _rows(result: Any) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in result.to_pandas().itertuples(index=False)]


@pytest.mark.parametrize(("question", "expected"), [
    ("How many orders were placed by customers in Texas?", [(20,)]),
    ("How many orders does each client have?", None),
    ("List the customers in CA", None),
    ("Total quantity of items per customer state", None),
])
def test_declared_relationships_and_terms_answer_what_was_refused(
        shop_db: Path, tmp_path: Path, question: str, expected: list[tuple[Any, ...]] | None) -> None:
    without = _session(shop_db, tmp_path, None)
    with_layer = _session(shop_db, tmp_path, LAYER)
    try:
        assert without.ask(question).status == "error"
        result = with_layer.ask(question)
        assert result.status == "success", result.errors
        if expected is not None:
            assert _rows(result) == expected
    finally:
        without.close()
        with_layer.close()


def test_value_term_filters_on_the_stored_value(shop_db: Path, tmp_path: Path) -> None:
    session = _session(shop_db, tmp_path, LAYER)
    try:
        result = session.ask("How many customers are in CA?")
        assert result.status == "success", result.errors
        assert _rows(result) == [(10,)]
        assert "'California'" in (result.sql or "")
    finally:
        session.close()


def test_hidden_column_is_never_shown(shop_db: Path, tmp_path: Path) -> None:
    session = _session(shop_db, tmp_path, LAYER)
    try:
        listed = session.ask("Show all the information about the customers")
        assert listed.status == "success", listed.errors
        assert list(listed.to_pandas().columns) == ["id", "full_name", "state"]
        assert session.ask("What is the ssn of each customer?").status == "error"
        assert session.ask("Show the tax id of each client").status == "error"
    finally:
        session.close()


def test_declared_label_is_what_a_row_is_shown_by(shop_db: Path, tmp_path: Path) -> None:
    session = _session(shop_db, tmp_path, LAYER)
    try:
        result = session.ask("How many order items are there for each product?")
        assert result.status == "success", result.errors
        assert "sku" in result.to_pandas().columns and "title" not in result.to_pandas().columns
    finally:
        session.close()


def test_prompt_carries_terms_units_metrics_and_hidden_marks(shop_db: Path, tmp_path: Path) -> None:
    session = _session(shop_db, tmp_path, LAYER)
    try:
        text = render_schema(session.context.schemas.get("shop"), 4000).text
    finally:
        session.close()
    assert '"client" means table customers' in text
    assert "\"CA\" means state = 'California'" in text
    assert '"priciest" means ordered by unit_price DESC' in text
    assert "metric revenue = SUM(quantity * unit_price)" in text
    assert "unit_price REAL — list price [unit: USD]" in text
    assert "ssn TEXT (hidden: never select it)" in text
    assert "orders.custRef = customers.id" in text  # a declared relationship is a join path


@pytest.mark.parametrize(("role", "answered"), [("clerk", False), ("admin", True)])
def test_term_over_a_denied_column_is_invisible(shop_db: Path, tmp_path: Path, role: str,
                                                answered: bool) -> None:
    toml = tmp_path / "nl2sql.toml"
    toml.write_text(
        f'[sources.shop]\npath = "{shop_db}"\n[settings]\nproject_dir = "{tmp_path / "p"}"\n'
        "[policies.roles.clerk.datasources.shop]\n"
        'tables = "*"\ncolumns = { customers = ["id", "full_name"] }\n'
        '[policies.roles.admin.datasources]\nshop = "*"\n', encoding="utf-8")
    session = nl2sql.connect(config=toml, semantic={"sources": {"shop": LAYER}},
                             user=UserContext(roles=(role,)))
    try:
        assert (session.ask("How many customers are in CA?").status == "success") is answered
    finally:
        session.close()


def test_layer_changes_the_fingerprint_pins_compare(shop_db: Path, tmp_path: Path) -> None:
    session = _session(shop_db, tmp_path, None)
    try:
        raw: SchemaSnapshot = session.context.schemas.get("shop")
    finally:
        session.close()
    layered = apply_source_layer(raw, SourceLayer.model_validate(LAYER))
    assert layered.fingerprint != raw.fingerprint
    assert apply_source_layer(raw, SourceLayer()).fingerprint == raw.fingerprint
    other = dict(LAYER, terms=[{"term": "buyer", "means": "customers"}])
    assert apply_source_layer(raw, SourceLayer.model_validate(other)).fingerprint != layered.fingerprint


def test_a_pin_made_before_a_layer_change_is_stale(shop_db: Path, tmp_path: Path) -> None:
    from nl2sql.errors import ErrorCode

    question = "How many orders were placed by customers in Texas?"
    folder = {"project_dir": tmp_path / "same"}  # one project: the pin is on disk for each session
    with nl2sql.connect(sources={"shop": str(shop_db)}, semantic={"sources": {"shop": LAYER}},
                        settings=folder) as first:
        first.ask(question).pin()
    with nl2sql.connect(sources={"shop": str(shop_db)}, semantic={"sources": {"shop": LAYER}},
                        settings=folder) as same:
        again = same.ask(question)
        assert again.status == "success" and _rows(again) == [(20,)]
    changed = dict(LAYER, terms=[*LAYER["terms"], {"term": "buyer", "means": "customers"}])
    with nl2sql.connect(sources={"shop": str(shop_db)}, semantic={"sources": {"shop": changed}},
                        settings=folder) as later:
        stale = later.ask(question)
    assert stale.status == "error"
    assert stale.errors[0].error_code == ErrorCode.INVALID_STATE and "stale" in stale.errors[0].message


def _plan(select: list[dict[str, Any]], where: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"tables": [{"name": "customers", "alias": "t"}], "select": select, "where": where}


_SSN = {"kind": "column", "table": "t", "name": "ssn"}
_NAME = {"expr": {"kind": "column", "table": "t", "name": "full_name"}}


@pytest.mark.parametrize(("plan", "shown"), [
    (_plan([{"expr": _SSN}]), True),
    (_plan([{"expr": {"kind": "function", "name": "upper", "args": [_SSN]}, "alias": "s"}]), True),
    (_plan([{"expr": {"kind": "star", "table": "t"}}]), True),
    (_plan([_NAME], {"kind": "comparison", "op": "=", "left": _SSN,
                     "right": {"kind": "literal", "value": "000-0001"}}), False),
    (_plan([{"expr": {"kind": "aggregate", "func": "count", "arg": _SSN, "distinct": True}, "alias": "n"}]),
     False),
    (_plan([_NAME], {"kind": "in", "expr": {"kind": "column", "table": "t", "name": "id"},
                     "query": {"tables": [{"name": "customers", "alias": "c"}],
                               "select": [{"expr": {"kind": "column", "table": "c", "name": "ssn"}}]}}),
     False),
])
def test_validator_refuses_a_plan_showing_a_hidden_column(shop_db: Path, tmp_path: Path,
                                                          plan: dict[str, Any], shown: bool) -> None:
    """What a chat model plans is held to the layer too (the offline engine never names one)."""
    from nl2sql.plan import PlanModel
    from nl2sql.validation.rules import validate_plan

    with _session(shop_db, tmp_path, LAYER) as session:
        snapshot = session.context.schemas.get("shop")
    checks = [c for c in validate_plan(PlanModel.model_validate(plan), snapshot) if c.name == "hidden_columns"]
    assert checks and any(not c.passed for c in checks) is shown
    without_layer = snapshot.model_copy(update={"tables": [t.model_copy(update={"semantic": None})
                                                           for t in snapshot.tables]})
    assert not [c for c in validate_plan(PlanModel.model_validate(plan), without_layer)
                if c.name == "hidden_columns"]  # reported only where a layer hides columns
