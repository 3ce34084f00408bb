"""The schema-size benchmark's generated database: the asked number of tables, answerable."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import nl2sql

from .conftest import load_benchmark

ROOT = Path(__file__).resolve().parents[2]


def _module():
    return load_benchmark("schema_scale")


def test_generated_database_has_the_tables_and_answers_the_question(tmp_path):
    scale = _module()
    db = tmp_path / "db.sqlite"
    scale.build(db, 12)
    con = sqlite3.connect(db)
    assert con.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0] == 12
    con.close()
    with nl2sql.connect(sources={"db": str(db)}, settings={"project_dir": tmp_path / "p"}) as session:
        result = session.ask(scale.QUESTION)
    assert result.status == "success", [e.one_line() for e in result.errors]
    assert 0 < result.table().column(0)[0].as_py() <= scale.ROWS
