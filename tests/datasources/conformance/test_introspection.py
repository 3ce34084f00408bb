"""Every adapter describes the shop the same way: tables, views, columns, keys, counts, samples."""

from __future__ import annotations

import pytest

from nl2sql.schema.models import SchemaSnapshot

from ..conftest import REGIONS, SALES, STORES
from .conftest import COLUMNS, Case

DIALECTS = {
    "duckdb": "duckdb",
    "frames": "duckdb",
    "sqlite": "sqlite",
    "postgres": "postgres",
    "mariadb": "mysql",
    "spark": "spark",
}


@pytest.fixture(scope="module")
def snapshot(case: Case) -> SchemaSnapshot:
    """One introspection per engine and module: every test reads the same snapshot."""
    return case.adapter.fetch_schema()


def test_tables_views_and_columns(case: Case, snapshot: SchemaSnapshot):
    assert snapshot.datasource_id == "shop" and snapshot.description == "Shop"
    assert snapshot.dialect == case.adapter.dialect == DIALECTS[case.engine]
    kinds = {t.key: t.kind for t in snapshot.tables}
    expected = {"regions": "table", "stores": "table", "sales": "table"}
    if case.views:
        expected["store_sales"] = "view"
    assert kinds == expected  # one schema: bare names, no other schema's tables leak in
    for name, columns in COLUMNS.items():
        assert [c.name for c in snapshot.table(name).columns] == list(columns)


def test_column_types_are_normalized(case: Case, snapshot: SchemaSnapshot):
    sales = snapshot.table("sales")
    amount, sold_on, note = (sales.column(n) for n in ("amount", "sold_on", "note"))
    assert amount.is_numeric and not amount.is_text
    assert note.is_text and note.type == note.type.upper()
    if case.engine != "sqlite" and case.engine != "frames":  # declared DATE; frames hold text
        assert sold_on.is_temporal


def test_primary_and_foreign_keys(case: Case, snapshot: SchemaSnapshot):
    stores = snapshot.table("stores")
    if not case.keys:
        assert stores.primary_key == [] and stores.foreign_keys == []
        return
    assert stores.primary_key == ["store_id"]
    assert stores.column("store_id").primary_key and not stores.column("store_id").nullable
    [fk] = stores.foreign_keys
    assert (fk.columns, fk.ref_table, fk.ref_columns) == (["region_id"], "regions", ["region_id"])
    [sales_fk] = snapshot.table("sales").foreign_keys
    assert sales_fk.ref_table == "stores"


def test_table_comment_is_the_description(case: Case, snapshot: SchemaSnapshot):
    stores = snapshot.table("stores")
    assert stores.description == ("Physical stores" if case.comments else None)


def test_row_counts_come_without_a_full_scan(case: Case, snapshot: SchemaSnapshot):
    for name, rows in (("regions", REGIONS), ("stores", STORES), ("sales", SALES)):
        count = snapshot.table(name).row_count
        assert count is not None and abs(count - len(rows)) <= max(2, len(rows) // 10), name
    if case.views:
        assert snapshot.table("store_sales").row_count is None


def test_samples_are_the_most_frequent_values(case: Case, snapshot: SchemaSnapshot):
    state = snapshot.table("stores").column("state")
    assert state.samples[:3] == ["California", "Texas", "New York"]
    assert state.distinct_count == 5
    # A long free-text column is not sampled; numbers are counted but not sampled.
    assert snapshot.table("sales").column("note").samples == []
    assert snapshot.table("sales").column("sale_id").distinct_count == len(SALES)


def test_lookup_values_finds_existing_values(case: Case):
    assert case.adapter.lookup_values("stores", "state", "new") == ["New York", "New Jersey"]
    assert case.adapter.lookup_values("stores", "state", "O'BRIEN") == ["O'Brien County"]
    assert case.adapter.lookup_values("stores", "state", "Atlantis") == []
