"""pytest --nbval on the tutorials, with pytest-xdist.

nbval runs a notebook's cells one after another in one kernel, so every cell of a notebook must go
to the same xdist worker. xdist's default `load` scheduling spreads single items over workers;
when it is in force (`-n N` without `--dist`), it becomes `loadfile` — one notebook per worker —
which keeps ordinary test files balanced the same way.

A notebook whose metadata says `"nl2sql": {"requires": ["spark"]}` starts a local Spark: where
pyspark or a Java runtime is missing its cells are skipped with the reason, except in CI (env `CI`
set), where `.ci/run` installs Java and a missing one must fail the run.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if getattr(config.option, "nbval", False) and getattr(config.option, "dist", "no") == "load":
        config.option.dist = "loadfile"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("CI"):
        return
    reasons: dict[Path, str | None] = {}
    for item in items:
        path = Path(str(item.fspath))
        if path.suffix != ".ipynb":
            continue
        if path not in reasons:
            reasons[path] = _missing(path)
        if reasons[path]:
            item.add_marker(pytest.mark.skip(reason=f"{path.name}: {reasons[path]}"))


def _missing(path: Path) -> str | None:
    """Why the notebook cannot run here (what it requires is not installed), or None."""
    requires = json.loads(path.read_text(encoding="utf-8")).get("metadata", {}).get("nl2sql", {})
    if "spark" in requires.get("requires", []):
        from nl2sql.datasources.spark_session import spark_unavailable

        return spark_unavailable()
    return None
