"""build_demo / ensure_demo: caching by stamp, forced and scale rebuilds, concurrency, settings."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from nl2sql.datasources.factory import open_datasource
from nl2sql.demo import DEMO_DESCRIPTIONS, build_demo, default_demo_dir, demo_sources, ensure_demo
from nl2sql.demo.build import STAMP_FILE

from .conftest import files_of, scalar

TINY = 0.02


def _mtimes(paths) -> list[int]:
    return [p.stat().st_mtime_ns for p in files_of(paths)]


def test_build_writes_both_files_and_a_stamp(tmp_path: Path):
    paths = build_demo(tmp_path / "demo", TINY)
    assert paths.warehouse == tmp_path / "demo" / "warehouse.duckdb"
    assert paths.crm == tmp_path / "demo" / "crm.sqlite"
    stamp = json.loads((tmp_path / "demo" / STAMP_FILE).read_text())
    assert stamp["scale"] == TINY and stamp["rows"]["orders"] >= 300
    assert not [p for p in (tmp_path / "demo").iterdir() if p.name.endswith(".tmp")]


def test_an_identical_build_is_reused(tmp_path: Path):
    first = build_demo(tmp_path, TINY)
    before = _mtimes(first)
    assert build_demo(tmp_path, TINY) == first
    assert _mtimes(first) == before


def test_force_and_a_new_scale_rebuild(tmp_path: Path):
    paths = build_demo(tmp_path, TINY)
    before = _mtimes(paths)
    build_demo(tmp_path, TINY, force=True)
    assert _mtimes(paths) != before
    build_demo(tmp_path, TINY * 2)
    assert json.loads((tmp_path / STAMP_FILE).read_text())["scale"] == TINY * 2


def test_a_stale_stamp_triggers_a_rebuild(tmp_path: Path):
    paths = build_demo(tmp_path, TINY)
    stamp = tmp_path / STAMP_FILE
    stamp.write_text(json.dumps({**json.loads(stamp.read_text()), "builder_version": "0"}))
    before = _mtimes(paths)
    build_demo(tmp_path, TINY)
    assert _mtimes(paths) != before
    assert json.loads(stamp.read_text())["builder_version"] != "0"


def test_other_files_in_the_folder_are_left_alone(tmp_path: Path):
    keep = tmp_path / "notes.txt"
    keep.write_text("mine")
    build_demo(tmp_path, TINY, force=True)
    assert keep.read_text() == "mine"


def test_concurrent_builders_both_get_a_complete_demo(tmp_path: Path):
    results: list = []
    workers = [
        threading.Thread(target=lambda: results.append(build_demo(tmp_path, TINY)))
        for _ in range(2)
    ]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len(results) == 2 and results[0] == results[1]
    adapter = open_datasource("warehouse", results[0].warehouse)
    assert scalar(adapter, "SELECT MAX(order_date) = DATE '2025-06-30' FROM orders") is True
    adapter.close()


@pytest.mark.parametrize("scale", [0, -1, float("nan"), float("inf")])
def test_invalid_scale(tmp_path: Path, scale):
    with pytest.raises(ValueError):
        build_demo(tmp_path, scale)


def test_default_dir_follows_the_environment(monkeypatch, tmp_path: Path):
    monkeypatch.delenv("NL2SQL_DEMO_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_demo_dir() == tmp_path / "xdg" / "nl2sql" / "demo"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_demo_dir() == tmp_path / "home" / ".cache" / "nl2sql" / "demo"
    monkeypatch.setenv("NL2SQL_DEMO_DIR", str(tmp_path / "explicit"))
    assert default_demo_dir() == tmp_path / "explicit"
    assert not (tmp_path / "explicit").exists()  # asking for the folder creates nothing


def test_ensure_demo_builds_once_per_scale(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("NL2SQL_DEMO_DIR", str(tmp_path))
    paths = ensure_demo(TINY)
    assert paths.warehouse.parent == tmp_path / f"scale-{TINY:g}"
    before = _mtimes(paths)
    assert ensure_demo(TINY) == paths and _mtimes(paths) == before


def test_demo_sources_open_as_datasources(small_demo):
    sources = demo_sources(small_demo)
    assert set(sources) == {"warehouse", "crm"}
    assert sources["crm"]["description"] == DEMO_DESCRIPTIONS["crm"]
    for source_id, spec in sources.items():
        adapter = open_datasource(source_id, spec["path"], description=spec["description"])
        snapshot = adapter.fetch_schema()
        assert snapshot.description == spec["description"]
        assert {"warehouse": "duckdb", "crm": "sqlite"}[source_id] == adapter.dialect
        adapter.close()
