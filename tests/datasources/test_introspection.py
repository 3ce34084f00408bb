"""fetch_schema on DuckDB and SQLite: tables, views, types, keys, row counts, samples."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import duckdb

from nl2sql.datasources.duckdb import DuckDBAdapter
from nl2sql.datasources.sqlite import SQLiteAdapter
from nl2sql.schema.models import ForeignKey

from .conftest import SALES, STORES


def test_tables_views_and_kinds(adapter):
    snapshot = adapter.fetch_schema()
    assert snapshot.datasource_id == "shop"
    assert snapshot.dialect == adapter.dialect
    assert snapshot.description == "Shop"
    kinds = {t.key: t.kind for t in snapshot.tables}
    assert kinds == {"regions": "table", "stores": "table", "sales": "table", "store_sales": "view"}
    view = snapshot.table("store_sales")
    assert [c.name for c in view.columns] == ["store_name", "total"]
    assert view.row_count is None


def test_columns_types_and_nullability(adapter):
    stores = adapter.fetch_schema().table("stores")
    assert [c.name for c in stores.columns] == ["store_id", "store_name", "state", "region_id"]
    by_name = {c.name: c for c in stores.columns}
    assert by_name["store_id"].type == "INTEGER"
    assert by_name["store_name"].type == "VARCHAR"
    assert by_name["store_name"].nullable is False
    assert by_name["state"].nullable is True
    amount = adapter.fetch_schema().table("sales").column("amount")
    # each engine's own spelling, upper-cased
    assert amount.type == {"duckdb": "DECIMAL(10,2)", "sqlite": "DECIMAL(10, 2)"}[adapter.dialect]
    assert amount.is_numeric


def test_primary_and_foreign_keys(adapter):
    snapshot = adapter.fetch_schema()
    stores, sales = snapshot.table("stores"), snapshot.table("sales")
    assert stores.primary_key == ["store_id"]
    assert stores.column("store_id").primary_key and not stores.column("state").primary_key
    assert stores.foreign_keys == [
        ForeignKey(columns=["region_id"], ref_table="regions", ref_columns=["region_id"])
    ]
    assert sales.foreign_keys == [
        ForeignKey(columns=["store_id"], ref_table="stores", ref_columns=["store_id"])
    ]
    # every foreign key names a table the snapshot knows, by its canonical key
    for table in snapshot.tables:
        for fk in table.foreign_keys:
            assert snapshot.table(fk.ref_table) is not None


def test_row_counts(adapter):
    snapshot = adapter.fetch_schema()
    assert snapshot.table("regions").row_count == 3
    assert snapshot.table("stores").row_count == len(STORES)
    assert snapshot.table("sales").row_count == len(SALES)


def test_samples_most_frequent_first_and_distinct_counts(adapter):
    stores = adapter.fetch_schema().table("stores")
    state = stores.column("state")
    assert state.samples[:3] == ["California", "Texas", "New York"]
    assert set(state.samples) == {s for _, _, s, _ in STORES if s is not None}
    assert state.distinct_count == 5
    assert stores.column("region_id").samples == []  # numbers are not sampled
    assert stores.column("region_id").distinct_count == 3


def test_integer_columns_carry_their_range(adapter):
    # relationship inference checks referencing values against the referenced key's range
    stores = adapter.fetch_schema().table("stores")
    ids = [row[0] for row in STORES]
    assert (stores.column("store_id").min_value, stores.column("store_id").max_value) == (
        min(ids), max(ids)
    )
    assert stores.column("state").min_value is None  # text columns have samples instead


def test_sample_size_is_bounded(duckdb_file: Path, sqlite_file: Path):
    for opened in (
        DuckDBAdapter("a", duckdb_file, sample_values=2),
        SQLiteAdapter("b", sqlite_file, sample_values=2),
    ):
        assert opened.fetch_schema().table("stores").column("state").samples == [
            "California",
            "Texas",
        ]
        opened.close()


def test_long_free_text_is_not_sampled(adapter):
    note = adapter.fetch_schema().table("sales").column("note")
    assert note.samples == []
    assert note.distinct_count == len(SALES)


def test_duckdb_comments_become_descriptions(duck):
    assert duck.fetch_schema().table("stores").description == "Physical stores"


def test_duckdb_several_schemas_prefix_keys(tmp_path):
    path = tmp_path / "multi.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE SCHEMA crm")
    con.execute("CREATE TABLE crm.accounts (account_id INTEGER PRIMARY KEY, name VARCHAR)")
    con.execute(
        "CREATE TABLE crm.contacts (contact_id INTEGER PRIMARY KEY, "
        "account_id INTEGER REFERENCES crm.accounts (account_id))"
    )
    con.execute("CREATE TABLE main.notes (note_id INTEGER)")
    con.close()
    adapter = DuckDBAdapter("m", path)
    snapshot = adapter.fetch_schema()
    assert sorted(t.key for t in snapshot.tables) == ["crm.accounts", "crm.contacts", "main.notes"]
    assert snapshot.table("crm.contacts").foreign_keys[0].ref_table == "crm.accounts"
    assert adapter.execute('SELECT COUNT(*) AS n FROM "crm"."accounts"').table.to_pylist() == [
        {"n": 0}
    ]
    adapter.close()


def test_sqlite_foreign_key_to_implicit_primary_key(tmp_path):
    path = tmp_path / "implicit.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE parent (id INTEGER PRIMARY KEY, label TEXT)")
    con.execute("CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent)")
    con.commit()
    con.close()
    adapter = SQLiteAdapter("i", path)
    fk = adapter.fetch_schema().table("child").foreign_keys
    assert fk == [ForeignKey(columns=["parent_id"], ref_table="parent", ref_columns=["id"])]
    adapter.close()


def test_fingerprint_is_stable_across_fetches(adapter):
    assert adapter.fetch_schema().fingerprint == adapter.fetch_schema().fingerprint


def test_statistics_queries_match_sqlglot_and_are_built_once_per_dialect(monkeypatch):
    """The per-dialect templates give sqlglot's own SQL for any names, without sqlglot per table."""
    import sqlglot.generator

    from nl2sql.datasources import sql_builders as intro
    from nl2sql.schema.models import Column

    names = ['plain', 'with space', 'q"uote', "back`tick", "br]acket", "ünï"]
    columns = [Column(name=n, type=t) for n in names for t in ("TEXT", "INTEGER")][::3]
    for dialect in ("sqlite", "duckdb", "postgres", "mysql", "tsql"):
        for schema in (None, 'sch"ema'):
            for name in names:
                table = intro.table_expr(name, schema)
                assert intro.stats_sql(table, columns, dialect) == \
                    intro._stats_expr(table, columns).sql(dialect), (dialect, name)
                assert intro.top_values_sql(table, name, 7, dialect) == \
                    intro._top_values_expr(table, name, 7).sql(dialect), (dialect, name)
    calls = []
    original = sqlglot.generator.Generator.generate
    monkeypatch.setattr(sqlglot.generator.Generator, "generate",
                        lambda self, *a, **k: calls.append(1) or original(self, *a, **k))
    for i in range(50):
        intro.stats_sql(intro.table_expr(f"t{i}"), columns, "sqlite")
        intro.top_values_sql(intro.table_expr(f"t{i}"), "plain", 20, "sqlite")
    assert len(calls) < 20  # the templates' own build at most, not two queries per table
