"""Schema context in prompts: complete for small schemas, bounded for large ones, most relevant
tables kept in detail."""

from __future__ import annotations

from nl2sql.reasoning.llm.schema_text import (
    BARE,
    FULL,
    LEAN,
    join_paths,
    render_schema,
    render_sources,
)
from nl2sql.reasoning.llm.templates import estimate_tokens
from nl2sql.schema.models import Column, ForeignKey, SchemaSnapshot, Table


def _wide_schema(tables: int, columns: int) -> SchemaSnapshot:
    out = []
    for i in range(tables):
        cols = [Column(name="id", type="INTEGER", primary_key=True)] + [
            Column(
                name=f"attribute_{j}",
                type="VARCHAR",
                description=f"attribute {j} of entity {i}",
                samples=[f"value {k}" for k in range(6)],
                distinct_count=40,
            )
            for j in range(columns)
        ]
        fks = (
            [ForeignKey(columns=["id"], ref_table=f"entity_{i - 1}", ref_columns=["id"])]
            if i
            else []
        )
        out.append(
            Table(
                name=f"entity_{i}",
                columns=cols,
                primary_key=["id"],
                foreign_keys=fks,
                row_count=100,
                description=f"Entity number {i}.",
            )
        )
    return SchemaSnapshot(datasource_id="big", dialect="postgres", tables=out)


def test_a_small_schema_is_shown_whole_with_keys_samples_descriptions_and_joins(shop):
    ctx = render_schema(shop, 6000)
    assert ctx.levels == {"customers": FULL, "orders": FULL} and not ctx.dropped
    assert "table customers, 120 rows — People who bought something." in ctx.text
    assert "state TEXT — US state, spelled out; values: 'California', 'Texas', 'Ohio'" in ctx.text
    assert "customer_id INTEGER → customers.customer_id" in ctx.text
    assert "- orders.customer_id = customers.customer_id" in ctx.text
    # names are near-unique: two samples show their format, the count says there are more
    assert "values: 'Ada Lovelace', 'Alan Turing'" in ctx.text


def test_a_large_schema_fits_the_budget_and_degrades_least_relevant_tables_first():
    snapshot = _wide_schema(tables=120, columns=12)
    ctx = render_schema(snapshot, 3000)
    assert ctx.tokens <= 3000
    assert ctx.levels["entity_0"] == FULL  # the most relevant table keeps every detail
    kept = list(ctx.levels.values())
    assert kept == sorted(kept, reverse=True)  # detail never increases down the ranking
    assert ctx.dropped and ctx.dropped[-1] == "entity_119"
    assert f"({len(ctx.dropped)} less relevant tables not shown:" in ctx.text


def test_levels_in_between_are_used_before_any_table_is_dropped():
    snapshot = _wide_schema(tables=6, columns=10)
    full = render_schema(snapshot, 100_000).tokens
    ctx = render_schema(snapshot, int(full * 0.6))
    assert not ctx.dropped and {LEAN, BARE} & set(ctx.levels.values())
    assert ctx.tokens <= int(full * 0.6)


def test_join_paths_only_link_tables_that_are_shown():
    snapshot = _wide_schema(tables=4, columns=1)
    text = join_paths(snapshot.tables[1:3])
    assert text.splitlines() == ["Join paths (foreign keys):", "- entity_2.id = entity_1.id"]


def test_a_join_path_says_a_cardinality_other_than_many_to_one():
    snapshot = _wide_schema(tables=2, columns=1)
    child = snapshot.tables[1]
    one = child.model_copy(update={"foreign_keys": [
        fk.model_copy(update={"cardinality": "one-to-one"}) for fk in child.foreign_keys]})
    assert join_paths([snapshot.tables[0], one]).splitlines()[1:] == ["- entity_1.id = entity_0.id (one-to-one)"]


def test_several_datasources_share_the_budget(shop):
    big = _wide_schema(tables=60, columns=8)
    text = render_sources({"shop": shop, "big": big}, {"shop": "the web shop"}, 4000)
    assert (
        "## datasource `shop` (sqlite) — the web shop" in text
        and "## datasource `big` (postgres)" in text
    )
    assert estimate_tokens(text) <= 4100
