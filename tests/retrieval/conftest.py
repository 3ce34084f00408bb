"""Fixtures for retrieval tests: the hand-made quality set in cases.yaml as snapshots and questions."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from nl2sql.schema.models import Column, SchemaSnapshot, Table

CASES = Path(__file__).with_name("cases.yaml")
_COLUMN = re.compile(r"^(\w+) (\w+)(?: \[(.*)\])?$")


@dataclass(frozen=True)
class Question:
    text: str
    datasource_id: str
    tables: tuple[str, ...]


def _column(spec: str) -> Column:
    name, type_, samples = _COLUMN.match(spec.strip()).groups()
    values = [s.strip() for s in samples.split(",")] if samples else []
    return Column(name=name, type=type_, samples=values)


def load_cases() -> tuple[list[SchemaSnapshot], list[Question]]:
    """Snapshots and questions from cases.yaml (also used by the subprocess persistence test)."""
    raw = yaml.safe_load(CASES.read_text())
    snapshots = [
        SchemaSnapshot(
            datasource_id=ds["id"],
            dialect="duckdb",
            description=ds["description"],
            tables=[
                Table(
                    name=t["name"],
                    description=t["description"],
                    columns=[_column(c) for c in t["columns"]],
                )
                for t in ds["tables"]
            ],
        )
        for ds in raw["datasources"]
    ]
    questions = [Question(q["q"], q["ds"], tuple(q["tables"])) for q in raw["questions"]]
    return snapshots, questions


@pytest.fixture(scope="session")
def cases() -> tuple[list[SchemaSnapshot], list[Question]]:
    return load_cases()
