from __future__ import annotations

import re
import time
from pathlib import Path

from nl2sql.decomposition import SubQuery
from nl2sql.reasoning.base import PlanRequest
from nl2sql.reasoning.offline.engine import OfflineEngine
from nl2sql.reasoning.registry import ModelRegistry
from nl2sql.schema.models import Column, ForeignKey, SchemaSnapshot, Table

ENGINE_DIR = Path(__file__).resolve().parents[3] / "nl2sql" / "reasoning" / "offline"


def _request(question, snapshot, values=None):
    sq = SubQuery(id="sq_x", datasource_id=snapshot.datasource_id, intent=question)
    return PlanRequest(question, sq, snapshot, snapshot, "sqlite", values=values)


def test_registry_builds_the_offline_engine_for_every_node():
    registry = ModelRegistry()
    for node in ("answerability", "decomposer", "ast_planner", "refiner", "answer_synthesizer"):
        assert isinstance(registry.skill(node), OfflineEngine)


def test_plan_response_carries_plan_confidence_and_reasoning(library):
    r = OfflineEngine().plan(_request("How many loans are overdue?", library))
    assert r.plan is not None and 0 < r.confidence <= 1 and "loans.status" in r.reasoning
    refused = OfflineEngine().plan(_request("What is the capital of Atlantis?", library))
    assert (
        refused.plan is None
        and refused.confidence == 0
        and refused.reasoning.startswith("could not plan")
    )


def test_retrieved_snapshot_subset_still_plans_joins_over_the_full_snapshot(library):
    sq = SubQuery(id="sq_x", datasource_id="library", intent="What is the total fee per district?")
    subset = library.subset(["loans", "districts"])
    r = OfflineEngine().plan(PlanRequest(sq.intent, sq, subset, library, "sqlite"))
    assert [t.name for t in r.plan.tables] == ["loans", "members", "branches", "districts"]


def test_index_is_built_once_per_snapshot_and_rebuilt_when_samples_change(library):
    from nl2sql.reasoning.offline.catalog.cache import IndexCache

    cache = IndexCache()
    assert cache.get(library) is cache.get(library_snapshot_copy(library))
    books = library.table("books")
    genre = books.column("genre").model_copy(update={"samples": ["Poetry"]})
    changed_books = books.model_copy(
        update={"columns": [genre if c.name == "genre" else c for c in books.columns]}
    )
    changed = library.model_copy(
        update={"tables": [changed_books if t.name == "books" else t for t in library.tables]}
    )
    assert changed.fingerprint == library.fingerprint
    assert "poetry" in cache.get(changed).values and "poetry" not in cache.get(library).values


def library_snapshot_copy(snapshot):
    return snapshot.model_copy(deep=True)


def test_same_inputs_same_outputs_across_engines(library):
    a = OfflineEngine().plan(_request("Top 2 members by number of loans in 2024", library))
    b = OfflineEngine().plan(_request("Top 2 members by number of loans in 2024", library))
    assert a == b


NOUNS = """asset badge bench bonus budget cabin campaign canal cargo carrier chapter charter claim
coach contract crate credit depot device diploma donor dossier engine exhibit facility fleet forum
grant harbor invoice journal kiosk lecture ledger license locker machine meter mission module notice
parcel patent permit pilot plaza quota rocket saddle tablet""".split()


def _wide_snapshot(n: int = 50) -> SchemaSnapshot:
    tables = []
    for i in range(n):
        name = NOUNS[i]
        cols = [
            Column(name=f"{name}_id", type="INTEGER", primary_key=True),
            Column(name="label", type="VARCHAR", samples=[f"{name} item {k}" for k in range(20)]),
            Column(name="status", type="VARCHAR", samples=["open", "closed"]),
            Column(name="amount", type="DOUBLE"),
            Column(name="created_date", type="DATE"),
        ]
        fks = []
        if i:
            parent = NOUNS[(i - 1) // 2]
            cols.append(Column(name=f"{parent}_id", type="INTEGER"))
            fks.append(
                ForeignKey(columns=[f"{parent}_id"], ref_table=parent, ref_columns=[f"{parent}_id"])
            )
        tables.append(Table(name=name, columns=cols, primary_key=[f"{name}_id"], foreign_keys=fks))
    return SchemaSnapshot(datasource_id="wide", dialect="duckdb", tables=tables)


def test_planning_takes_under_50_ms_on_a_50_table_schema():
    engine, snap = OfflineEngine(), _wide_snapshot()
    assert len(NOUNS) == 50
    engine.plan(_request("How many parcels are open?", snap))  # builds the cached index
    questions = [
        "How many patents are open?",
        "What is the total amount per cargo?",
        "number of permits per month in 2024",
        "Which depot has the highest amount?",
        "Top 3 depots by number of lockers",
    ]
    for q in questions:
        started = time.perf_counter()
        r = engine.plan(_request(q, snap))
        assert (time.perf_counter() - started) < 0.05
        assert r.plan is not None, r.reasoning


def test_engine_names_no_demo_table_column_or_value():
    # The engine must be generic: it works from the snapshot alone.
    demo_words = [
        "region_name",
        "order_items",
        "support_ticket",
        "unit_price",
        "product_name",
        "customer_id",
        "store_id",
        "california",
        "electronics",
        "warehouse",
        "crm",
        "satisfaction",
    ]
    for path in ENGINE_DIR.rglob("*.py"):
        text = path.read_text().lower()
        found = [w for w in demo_words if re.search(rf"\b{w}", text)]
        assert not found, f"{path.name} names {found}"


# Ordinary English words the engine's generic lexicon, rules and docs use, which also happen to
# be the names of some benchmark tables or columns ("ship" is the derivational suffix of
# "membership"). Everything else a benchmark database calls its tables and columns (domain
# nouns, multi-word identifiers, abbreviations) must not appear in the engine.
GENERIC_WORDS = {
    "age", "average", "city", "country", "date", "district", "employee", "height", "highest",
    "id", "location", "lowest", "make", "model", "name", "note", "people", "result", "ship",
    "title", "weight", "year",
}  # fmt: skip


def _benchmark_identifiers(tables_json: Path) -> set[str]:
    import json

    tables = json.loads(tables_json.read_text(encoding="utf-8"))
    found: set[str] = set()
    for db in tables:
        found.update(db["table_names_original"])
        found.update(c for _, c in db["column_names_original"] if c != "*")
    return found


def test_engine_names_no_benchmark_table_or_column(shared_path):
    # The engine is measured on Spider's dev databases and judged on databases it never saw:
    # a rule naming a dev table or column would fit the benchmark instead of English.
    tables_json = shared_path("benchmarks/spider_dev/tables.json")
    identifiers = {i for i in _benchmark_identifiers(tables_json) if i.lower() not in GENERIC_WORDS}
    assert len(identifiers) > 100  # all 10 dev databases were read
    patterns = [
        (i, re.compile(rf"(?<![A-Za-z0-9_]){re.escape(i)}(?![A-Za-z0-9_])", re.I))
        for i in identifiers
    ]
    for path in ENGINE_DIR.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        found = sorted(i for i, pattern in patterns if pattern.search(text))
        assert not found, f"{path.name} names benchmark identifiers {found}"


def test_index_key_is_hashed_once_per_snapshot_object(library, monkeypatch):
    """A warm look-up does not re-hash the schema and its samples (half a warm ask at 400 tables)."""
    from nl2sql.reasoning.offline.catalog import cache as cache_module

    calls = []
    digest = cache_module._samples_digest
    monkeypatch.setattr(cache_module, "_samples_digest", lambda s: calls.append(1) or digest(s))
    cache = cache_module.IndexCache()
    first = cache.get(library)
    assert all(cache.get(library) is first for _ in range(5))
    assert len(calls) == 1
    copy = library_snapshot_copy(library)  # another object: hashed, then the same index
    assert cache.get(copy) is first and len(calls) == 2
