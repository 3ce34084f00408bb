from __future__ import annotations

from nl2sql.retrieval.documents import DatasourceDoc, datasource_text, table_summary, table_text
from nl2sql.schema.models import Column, SchemaSnapshot, Table

ITEMS = Table(
    name="order_items",
    schema_name="sales",
    description="Line items of each order.",
    original_name="Order Lines",
    columns=[
        Column(name="unitPrice", type="DECIMAL", original_name="Unit price (EUR)"),
        Column(
            name="status",
            type="VARCHAR",
            samples=["Open", "Closed", "Returned", "Lost", "Held", "Sixth"],
        ),
        Column(name="qty", type="INTEGER", samples=["1", "2"]),
    ],
)


def test_table_text_carries_names_columns_and_a_few_text_samples() -> None:
    text = table_text(ITEMS)
    assert text.splitlines()[0] == "sales order items (sales.order_items)"
    assert "Order Lines" in text and "Line items of each order." in text
    assert "unit Price (Unit price (EUR))" in text and "qty" in text
    assert "Open, Closed, Returned, Lost, Held." in text
    assert "Sixth" not in text  # at most five samples per column
    assert "Values: Open" in text and ", 1" not in text  # numeric samples are not words


def test_datasource_doc_from_snapshot_lists_every_table() -> None:
    snap = SchemaSnapshot(
        datasource_id="shop_db", dialect="sqlite", description="A shop.", tables=[ITEMS]
    )
    doc = DatasourceDoc.from_snapshot(snap)
    assert doc.id == "shop_db" and doc.description == "A shop."
    assert doc.table_summaries == [table_summary(ITEMS)]
    assert (
        table_summary(ITEMS)
        == "sales order items (Line items of each order): unit Price, status, qty"
    )
    assert datasource_text(doc).splitlines()[:2] == ["shop db", "A shop."]
    assert DatasourceDoc.from_snapshot(snap, "Given text.").description == "Given text."
