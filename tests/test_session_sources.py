"""connect(): DataFrames as a datasource, and ${ENV_VAR} in source URLs."""

from __future__ import annotations

import gc
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

import nl2sql
from nl2sql.errors import ConfigError


@pytest.fixture
def crm(tmp_path: Path) -> Path:
    path = tmp_path / "crm.sqlite"
    con = sqlite3.connect(path)
    con.executescript("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT);"
                      "INSERT INTO customers VALUES (1, 'Ada');")  # fmt: skip
    con.commit()
    con.close()
    return path


def test_frames_alone_make_one_datasource_and_no_demo(tmp_path: Path):
    sales = pd.DataFrame({"region": ["West", "East"], "amount": [10.5, 4.0]})
    session = nl2sql.connect(frames={"sales": sales}, settings={"project_dir": tmp_path})
    try:
        assert session.datasources == ["frames"]
        table = session.schema("frames").table("sales")
        assert [c.name for c in table.columns] == ["region", "amount"]
        adapter = session.context.datasources["frames"]
        rows = adapter.execute('SELECT SUM("amount") AS s FROM "sales"', row_cap=5, timeout_s=5)
        assert rows.table.to_pylist() == [{"s": 14.5}]
        assert "sales" in session.context.descriptions["frames"]
    finally:
        session.close()


def test_frames_join_the_configured_sources_and_go_with_the_session(tmp_path: Path, crm: Path):
    session = nl2sql.connect(
        sources={"crm": str(crm)},
        frames={"targets": pd.DataFrame({"id": [1], "goal": [3]})},
        settings={"project_dir": tmp_path},
    )
    folder = session.context.datasources["frames"].path.parent
    assert sorted(session.datasources) == ["crm", "frames"] and folder.is_dir()
    session.close()
    del session
    gc.collect()
    assert not folder.exists()


def test_the_frames_id_cannot_be_taken_twice(tmp_path: Path, crm: Path):
    with pytest.raises(ConfigError, match="'frames' is taken"):
        nl2sql.connect(sources={"frames": str(crm)}, frames={"t": pd.DataFrame({"a": [1]})})


def test_source_urls_read_environment_variables(
    tmp_path: Path, crm: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("NL2SQL_TEST_CRM_DIR", str(crm.parent))
    session = nl2sql.connect(
        sources={
            "crm": {"url": "sqlite:///${NL2SQL_TEST_CRM_DIR}/crm.sqlite", "description": "CRM"}
        },
        settings={"project_dir": tmp_path},
    )
    try:
        assert session.schema("crm").table("customers").row_count == 1
    finally:
        session.close()
    monkeypatch.delenv("NL2SQL_TEST_CRM_DIR")
    with pytest.raises(ConfigError) as info:
        nl2sql.connect(sources={"crm": "sqlite:///${NL2SQL_TEST_CRM_DIR}/crm.sqlite"})
    assert "NL2SQL_TEST_CRM_DIR" in str(info.value) and str(crm.parent) not in str(info.value)
