"""Artifact retention: the store prunes what the setting no longer keeps; `nl2sql clean` removes
the rest (listing first with --dry-run)."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pyarrow as pa

import nl2sql
from nl2sql.cli.main import main
from nl2sql.execution.artifacts import ArtifactStore
from nl2sql.execution.retention import FolderListing, Retention, artifact_files

ROWS = pa.table({"x": [1, 2]})


def _write(store: ArtifactStore, request: str) -> Path:
    ref = store.write(ROWS, tenant_id=None, request_id=request, sub_query_id="sq", truncated=False)
    return Path(ref.uri.removeprefix("file://"))


def test_the_store_keeps_only_the_newest_files(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path / "artifacts", retention=Retention(keep=3))
    paths = []
    for i in range(6):
        paths.append(_write(store, f"r{i}"))
        os.utime(paths[-1], (time.time() - 100 + i, time.time() - 100 + i))  # distinct ages
    assert artifact_files(tmp_path / "artifacts")[-3:] == paths[-3:]
    assert len(artifact_files(tmp_path / "artifacts")) == 3
    # the folders of removed requests are gone too
    assert sorted(p.name for p in (tmp_path / "artifacts" / "default").iterdir()) == ["r3", "r4", "r5"]


def test_age_limit_and_grace_period(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path / "a", retention=Retention(max_age_s=60, grace_s=5))
    old = _write(store, "old")
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    fresh = _write(store, "fresh")
    assert not old.exists() and fresh.exists()
    # files younger than the grace period survive even a count of one
    busy = ArtifactStore(tmp_path / "b", retention=Retention(keep=1, grace_s=600))
    first, second = _write(busy, "one"), _write(busy, "two")
    assert first.exists() and second.exists()


def test_session_applies_the_retention_setting(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE orders (order_id INTEGER PRIMARY KEY, city TEXT)")
    con.execute("INSERT INTO orders VALUES (1, 'Oslo')")
    con.commit()
    con.close()
    session = nl2sql.connect(sources={"t": f"sqlite:///{db}"}, settings={
        "project_dir": tmp_path / "p", "artifact_retention": 2, "pipeline_timeout_s": 0.5,
    })
    try:
        for _ in range(5):
            assert session.ask("how many orders are there?", timeout_s=60).status == "success"
            time.sleep(0.6)  # older than the grace period (the run timeout) before the next run
    finally:
        session.close()
    assert len(artifact_files(tmp_path / "p" / "artifacts")) == 2


def test_clean_lists_with_dry_run_then_removes(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "nl2sql.toml").write_text("[settings]\nartifact_retention = 100\n")
    store = ArtifactStore(tmp_path / ".nl2sql" / "artifacts")
    written = [_write(store, f"r{i}") for i in range(3)]
    snapshot = tmp_path / ".nl2sql" / "snapshots" / "db.json"
    snapshot.parent.mkdir(parents=True)
    snapshot.write_text("{}")
    pin = tmp_path / ".nl2sql" / "pins" / "k.json"
    pin.parent.mkdir(parents=True)
    pin.write_text("{}")

    assert main(["clean", "--dry-run", "--snapshots"]) == 0
    out = capsys.readouterr().out
    assert all(p.name in out for p in written) and "db.json" in out and "4 file(s) would be removed" in out
    assert all(p.exists() for p in written) and snapshot.exists()

    assert main(["clean"]) == 0
    assert "3 file(s) removed" in capsys.readouterr().out
    assert not any(p.exists() for p in written) and snapshot.exists()
    assert main(["clean", "--snapshots"]) == 0
    assert not snapshot.exists() and pin.exists()  # pins are decisions, never cleaned


def test_background_prune_decides_from_what_the_store_wrote_and_walked(tmp_path: Path) -> None:
    root = tmp_path / "artifacts"
    outside = root / "default" / "by-hand" / "sq.parquet"  # there before the store's first walk
    outside.parent.mkdir(parents=True)
    outside.write_bytes(b"")
    os.utime(outside, (time.time() - 300, time.time() - 300))
    store = ArtifactStore(root, retention=Retention(keep=3))
    paths = [_write_unpruned(store, f"r{i}", age_s=200 - i) for i in range(4)]
    store.prune_soon()
    store.wait_pruned()
    # the walk saw the older file: with the four written, the two oldest go
    assert not outside.exists() and not paths[0].exists()
    assert artifact_files(root) == paths[1:]
    later = [_write_unpruned(store, f"s{i}", age_s=100 - i) for i in range(2)]
    store.prune_soon()
    store.wait_pruned()
    assert artifact_files(root) == [paths[3], *later]
    assert sorted(p.name for p in (root / "default").iterdir()) == ["r3", "s0", "s1"]


def test_background_prune_walks_again_once_what_it_knows_is_old(tmp_path: Path) -> None:
    root = tmp_path / "artifacts"
    listing = FolderListing(root, rewalk_s=0.0)
    store = ArtifactStore(root, retention=Retention(keep=1))
    first = _write_unpruned(store, "one", age_s=50)
    listing.written(first)
    assert listing.prune(store.retention) == []
    stranger = root / "default" / "other" / "sq.parquet"  # another process's newer result
    stranger.parent.mkdir(parents=True)
    stranger.write_bytes(b"")
    assert listing.prune(store.retention) == [first]  # seen by the new walk: the older one goes
    assert artifact_files(root) == [stranger]


def _write_unpruned(store: ArtifactStore, request: str, age_s: float) -> Path:
    """A run's write: no prune on the spot; the file is given an age (distinct times order them)."""
    ref = store.write(ROWS, tenant_id=None, request_id=request, sub_query_id="sq", truncated=False, prune=False)
    path = Path(ref.uri.removeprefix("file://"))
    os.utime(path, (time.time() - age_s, time.time() - age_s))
    return path
