"""Build the demo datasources (a DuckDB sales warehouse and a SQLite CRM) into a folder.

The build is deterministic (fixed seed, fixed reference date 2025-06-30) and atomic: each file
is written under a temporary name and renamed into place, and a stamp file naming the builder
version and scale is written last, so a reader never sees a half-built database. Concurrent
builders of one folder (pytest workers) wait on a file lock and then reuse the finished build.
"""

from __future__ import annotations

import json
import math
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nl2sql.demo.data import REFERENCE_DATE, SEED
from nl2sql.progress import step

#: Bump when the generated data or schema changes: cached demos are then rebuilt.
BUILDER_VERSION = "1"
WAREHOUSE_FILE = "warehouse.duckdb"
CRM_FILE = "crm.sqlite"
STAMP_FILE = "demo-stamp.json"

#: Settings every demo session uses: the pinned reference date of relative dates.
DEMO_SETTINGS: dict[str, Any] = {"reference_date": REFERENCE_DATE}
DEMO_DESCRIPTIONS = {
    "warehouse": "Sales warehouse: orders, products, stores, customers",
    "crm": "CRM: customer accounts, contacts and support tickets",
}


@dataclass(frozen=True)
class DemoPaths:
    """Where the demo databases are."""

    warehouse: Path  # DuckDB
    crm: Path  # SQLite


def default_demo_dir() -> Path:
    """The demo's cache folder: $NL2SQL_DEMO_DIR, else $XDG_CACHE_HOME/nl2sql/demo or ~/.cache/…"""
    explicit = os.environ.get("NL2SQL_DEMO_DIR")
    if explicit:
        return Path(explicit).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME")
    base = Path(cache).expanduser() if cache else Path.home() / ".cache"
    return base / "nl2sql" / "demo"


def ensure_demo(scale: float = 1.0) -> DemoPaths:
    """The cached demo at `scale`, built on first use or when the builder version changed.

    Each scale has its own subfolder (`scale-1`, `scale-0.1`, …) of `default_demo_dir()`, so
    processes asking for different scales never replace each other's files.
    """
    return build_demo(default_demo_dir() / f"scale-{scale:g}", scale)


def build_demo(target_dir: str | Path, scale: float = 1.0, *, force: bool = False) -> DemoPaths:
    """Build `warehouse.duckdb` and `crm.sqlite` in `target_dir` unless an identical build is there.

    Args:
        target_dir: the folder to build into (created if missing; other files are left alone).
        scale: 1.0 gives ~2,000 customers, 42,000 orders and over 100,000 order items.
        force: rebuild even when the stamp says the folder already holds this build. Close
            adapters opened on the old files first: DuckDB caches open databases by path.
    """
    if not (scale > 0 and math.isfinite(scale)):
        raise ValueError(f"scale must be a positive number, not {scale!r}")
    folder = Path(target_dir).expanduser()
    folder.mkdir(parents=True, exist_ok=True)
    paths = DemoPaths(warehouse=folder / WAREHOUSE_FILE, crm=folder / CRM_FILE)
    with _exclusive(folder):
        if not force and _is_current(folder, paths, scale):
            return paths
        (folder / STAMP_FILE).unlink(missing_ok=True)
        with step("demo", "Building the demo data (once per machine)"):
            counts = _build_files(paths, scale)
        _write_atomically(
            folder / STAMP_FILE, json.dumps({**_identity(scale), "rows": counts}, indent=1)
        )
    return paths


def demo_sources(paths: DemoPaths) -> dict[str, dict[str, Any]]:
    """Datasource settings for the demo: {"warehouse": {"path", "description"}, "crm": {…}}."""
    return {
        "warehouse": {"path": str(paths.warehouse), "description": DEMO_DESCRIPTIONS["warehouse"]},
        "crm": {"path": str(paths.crm), "description": DEMO_DESCRIPTIONS["crm"]},
    }


def _identity(scale: float) -> dict[str, Any]:
    return {"builder_version": BUILDER_VERSION, "scale": scale, "seed": SEED}


def _is_current(folder: Path, paths: DemoPaths, scale: float) -> bool:
    try:
        stamp = json.loads((folder / STAMP_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    same = all(stamp.get(k) == v for k, v in _identity(scale).items())
    return same and paths.warehouse.is_file() and paths.crm.is_file()


def _build_files(paths: DemoPaths, scale: float) -> dict[str, int]:
    """Generate both databases under temporary names, then rename them into place."""
    from nl2sql.demo.crm import generate_crm, write_crm
    from nl2sql.demo.warehouse import generate_warehouse
    from nl2sql.demo.warehouse_db import write_warehouse

    token = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
    tmp_warehouse = paths.warehouse.with_name(f".{WAREHOUSE_FILE}.{token}.tmp")
    tmp_crm = paths.crm.with_name(f".{CRM_FILE}.{token}.tmp")
    try:
        warehouse = generate_warehouse(scale)
        write_warehouse(tmp_warehouse, warehouse)
        crm = generate_crm(warehouse.facts, scale)
        write_crm(tmp_crm, crm)
        os.replace(tmp_warehouse, paths.warehouse)
        os.replace(tmp_crm, paths.crm)
    finally:
        for leftover in (
            tmp_warehouse,
            tmp_warehouse.with_name(tmp_warehouse.name + ".wal"),
            tmp_crm,
        ):
            leftover.unlink(missing_ok=True)
    counts = {name: table.num_rows for name, table in warehouse.tables.items()}
    return counts | {name: len(rows) for name, rows in crm.items()}


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


@contextmanager
def _exclusive(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on the folder's lock file (POSIX); elsewhere rely on atomic renames."""
    try:
        import fcntl
    except ImportError:  # Windows: concurrent builds both finish and rename identical files
        yield
        return
    with open(folder / ".demo.lock", "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            with suppress(OSError):
                fcntl.flock(handle, fcntl.LOCK_UN)
