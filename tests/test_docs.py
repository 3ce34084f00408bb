"""The docs name real things: every test in docs/failure_recovery.md's table exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_FILE = "tests/integration/test_failures.py"


def _named_tests() -> list[tuple[str, str]]:
    rows = [line for line in (ROOT / "docs" / "failure_recovery.md").read_text().splitlines()
            if line.startswith("| ") and "test_" in line]
    found = []
    for row in rows:
        cell = row.rstrip("|").split("|")[-1]
        current = DEFAULT_FILE
        for ref in re.findall(r"`([^`]+)`", cell):
            path, _, name = ref.rpartition("::")
            current = path or current
            found.append((current, name))
    return found


def test_failure_table_names_existing_tests():
    named = _named_tests()
    assert len(named) >= 20
    for path, name in named:
        source = (ROOT / path).read_text()
        assert re.search(rf"^def {re.escape(name)}\(", source, re.M), f"{path}::{name} is missing"
