"""Deterministic demo datasources: a DuckDB sales warehouse and a SQLite CRM sharing keys.

>>> from nl2sql.demo import ensure_demo, demo_sources
>>> sources = demo_sources(ensure_demo())  # doctest: +SKIP
"""

from __future__ import annotations

from nl2sql.demo.build import (
    DEMO_DESCRIPTIONS,
    DEMO_SETTINGS,
    DemoPaths,
    build_demo,
    default_demo_dir,
    demo_sources,
    ensure_demo,
)

__all__ = [
    "DEMO_DESCRIPTIONS",
    "DEMO_SETTINGS",
    "DemoPaths",
    "build_demo",
    "default_demo_dir",
    "demo_sources",
    "ensure_demo",
]
