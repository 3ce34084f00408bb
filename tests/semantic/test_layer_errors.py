"""Every malformed layer entry is refused with one line naming the file, the entry and the
nearest valid name; the session does not open."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

import nl2sql
from nl2sql.errors import ConfigError

GOOD: dict[str, Any] = {
    "relationships": [{"from": "orders.custRef", "to": "customers.id"}],
    "terms": [{"term": "client", "means": "customers"}],
}

# (layer of source "shop", the words the one-line error must hold)
BAD = [
    (
        {"relationships": [{"from": "orders.custRef", "to": "customer.id"}]},
        [
            "relationships[0]",
            "orders.custRef -> customer.id",
            "unknown table 'customer'",
            "'customers'",
        ],
    ),
    (
        {"relationships": [{"from": "orders.cust_ref", "to": "customers.id"}]},
        ["relationships[0]", "unknown column 'cust_ref'", "'custRef'"],
    ),
    (
        {"relationships": [{"from": "orders.custRef", "to": "customers.full_name"}]},
        ["relationships[0]", "cannot be equal"],
    ),
    (
        {
            "relationships": [
                {"from": "orders.custRef", "to": "customers.id", "cardinality": "many"}
            ]
        },
        ["relationships[0].cardinality", "many-to-one"],
    ),
    (
        {"relationships": [{"form": "orders.custRef", "to": "customers.id"}]},
        ["relationships[0]", "unknown key 'form'", "'from'"],
    ),
    (
        {"relationships": [{"from": "orders", "to": "customers.id"}]},
        ["relationships[0]", "'orders' is not `table.column`"],
    ),
    (
        {"terms": [{"term": "client", "means": "customer"}]},
        ["terms[0] (term 'client')", "unknown table 'customer'", "'customers'"],
    ),
    (
        {"terms": [{"term": "CA", "means": "customers.stat", "value": "California"}]},
        ["terms[0] (term 'CA')", "unknown column 'stat'", "'state'"],
    ),
    (
        {"terms": [{"term": "priciest", "means": "products.title", "order": "desc"}]},
        ["terms[0] (term 'priciest')", "needs a number or a date"],
    ),
    (
        {"terms": [{"term": "priciest", "means": "products.unit_price", "order": "down"}]},
        ["terms[0].order", "'asc' or 'desc'"],
    ),
    ({"terms": [{"term": "", "means": "customers"}]}, ["terms[0].term"]),
    (
        {"columns": {"products.unit_prise": {"unit": "USD"}}},
        ["columns.products.unit_prise", "'unit_price'"],
    ),
    (
        {"columns": {"products.unit_price": {"units": "USD"}}},
        ["columns.products.unit_price.units", "unknown key 'units'", "'unit'"],
    ),
    (
        {
            "metrics": [
                {
                    "name": "revenue",
                    "expression": "SUM(quantity * unit_price",
                    "table": "order_items",
                }
            ]
        },
        ["metrics[0] (metric 'revenue')", "does not parse"],
    ),
    (
        {
            "metrics": [
                {"name": "revenue", "expression": "SUM(qty * unit_price)", "table": "order_items"}
            ]
        },
        ["metrics[0] (metric 'revenue')", "unknown column 'qty'", "quantity"],
    ),
    (
        {"metrics": [{"name": "revenue", "expression": "SUM(sku)", "table": "order_items"}]},
        ["metrics[0] (metric 'revenue')", "SUM over order_items.sku", "needs a number"],
    ),
    (
        {
            "metrics": [
                {"name": "revenue", "expression": "quantity * unit_price", "table": "order_items"}
            ]
        },
        ["metrics[0] (metric 'revenue')", "aggregates nothing"],
    ),
    (
        {
            "metrics": [
                {
                    "name": "revenue",
                    "expression": "SELECT SUM(quantity) FROM order_items",
                    "table": "order_items",
                }
            ]
        },
        ["metrics[0] (metric 'revenue')", "not a query"],
    ),
    (
        {"metrics": [{"name": "revenue", "expression": "SUM(quantity)", "table": "order_item"}]},
        ["metrics[0] (metric 'revenue')", "'order_items'"],
    ),
    ({"labels": {"customers": ["name"]}}, ["labels.customers", "unknown column 'name'"]),
    ({"hidden": ["customers.sn"]}, ["hidden[0]", "unknown column 'sn'", "'ssn'"]),
    ({"tables": {"custmers": {"description": "people"}}}, ["tables.custmers", "'customers'"]),
    ({"synonyms": []}, ["sources.shop", "unknown key 'synonyms'"]),
]


@pytest.mark.parametrize(("layer", "words"), BAD, ids=[" ".join(w[:1]) for _, w in BAD])
def test_bad_entry_is_one_line_naming_it(
    shop_db: Path, tmp_path: Path, layer: dict[str, Any], words: list[str]
) -> None:
    path = tmp_path / "semantic.yaml"
    path.write_text(yaml.safe_dump({"sources": {"shop": layer}}), encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        nl2sql.connect(
            sources={"shop": str(shop_db)}, semantic=path, settings={"project_dir": tmp_path / "p"}
        )
    message = str(caught.value)
    assert "\n" not in message and message.startswith("semantic.yaml: ")
    for word in words:
        assert word in message, message


def test_unknown_source_names_the_nearest(shop_db: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"sources\.shops: unknown datasource 'shops'.*'shop'"):
        nl2sql.connect(
            sources={"shop": str(shop_db)},
            semantic={"sources": {"shops": GOOD}},
            settings={"project_dir": tmp_path},
        )


@pytest.mark.parametrize(
    ("relationship", "words"),
    [
        ({"from": "shop:orders.custRef", "to": "crm:customers.id"}, ["unknown datasource 'crm'"]),
        ({"from": "orders.custRef", "to": "shop:customers.id"}, ["names no source"]),
        ({"from": "shop:orders.custRef", "to": "shop:customer.id"}, ["'customers'"]),
    ],
)
def test_bad_relationship_across_sources(
    shop_db: Path, tmp_path: Path, relationship: dict[str, str], words: list[str]
) -> None:
    with pytest.raises(ConfigError) as caught:
        nl2sql.connect(
            sources={"shop": str(shop_db)},
            semantic={"relationships": [relationship]},
            settings={"project_dir": tmp_path},
        )
    assert "relationships[0]" in str(caught.value)
    for word in words:
        assert word in str(caught.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "sources: [unclosed\n",
            "semantic.yaml: not valid YAML at line 1 in sources: expected ',' or ']', but got '<stream end>'",
        ),
        (
            "sources:\n  shop:\n    terms:\n    - term: client\n      means: customers\n    - term: buyer\n"
            "      term: client\n",
            'semantic.yaml: not valid YAML at line 7 in sources.shop.terms[1].term: found duplicate key "term" '
            'with value "client" (original value: "buyer")',
        ),
    ],
)
def test_file_that_is_not_yaml(shop_db: Path, tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "semantic.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        nl2sql.connect(
            sources={"shop": str(shop_db)}, semantic=path, settings={"project_dir": tmp_path}
        )
    assert str(caught.value) == message


def test_config_file_names_the_layer_and_inline_entries_add_to_it(
    shop_db: Path, tmp_path: Path
) -> None:
    (tmp_path / "semantic.yaml").write_text(
        yaml.safe_dump({"sources": {"shop": GOOD}}), encoding="utf-8"
    )
    (tmp_path / "nl2sql.toml").write_text(
        f'[sources.shop]\npath = "{shop_db}"\n\n[semantic]\nfile = "semantic.yaml"\n\n'
        '[[semantic.sources.shop.terms]]\nterm = "buyer"\nmeans = "customer"\n',
        encoding="utf-8",
    )
    with pytest.raises(
        ConfigError,
        match=r"^semantic\.yaml \+ nl2sql\.toml \[semantic\]: "
        r"sources\.shop\.terms\[1\] \(term 'buyer'\)",
    ):
        nl2sql.connect(config=tmp_path / "nl2sql.toml")
