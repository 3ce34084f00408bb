"""Relative dates answered against a pinned reference date on SQLite, DuckDB and PostgreSQL.

One small table whose dates are fixed offsets before the reference date: the rows each relative
phrase must return are known, whatever day the test runs.
"""

from __future__ import annotations

import datetime as dt
import os
import sqlite3

import duckdb
import pytest

import nl2sql

from ..datasources.conformance.servers import insert_rows, run_all, scratch

REF = dt.date(2026, 12, 1)
OFFSETS = (0, 1, 5, 10, 29, 30, 31, 45, 200, 400)  # days before the reference date
ROWS = [(i + 1, REF - dt.timedelta(days=o), float(i)) for i, o in enumerate(OFFSETS)]
DDL = "CREATE TABLE deliveries (delivery_id INTEGER PRIMARY KEY, delivery_date DATE, weight REAL)"
CASES = [
    # question, the delivery ids it covers, the answer's date note
    ("How many deliveries were made in the last 30 days?", {1, 2, 3, 4, 5},
     "(2026-11-02 to 2026-12-01, as of 2026-12-01)"),
    ("How many deliveries were made last month?", {2, 3, 4, 5, 6},
     "(2026-11-01 to 2026-11-30, as of 2026-12-01)"),
    ("How many deliveries were made yesterday?", {2}, "(2026-11-30, as of 2026-12-01)"),
    ("How many deliveries were made this year?", set(range(1, 10)),
     "(2026-01-01 to 2026-12-01, as of 2026-12-01)"),
    ("How many deliveries were made year to date?", set(range(1, 10)),
     "(2026-01-01 to 2026-12-01, as of 2026-12-01)"),
]  # fmt: skip


def _sqlite(tmp_path) -> str:
    path = tmp_path / "ship.sqlite"
    with sqlite3.connect(path) as con:
        con.execute(DDL)
        con.executemany("INSERT INTO deliveries VALUES (?, ?, ?)",
                        [(i, d.isoformat(), w) for i, d, w in ROWS])
    return str(path)


def _duckdb(tmp_path) -> str:
    path = tmp_path / "ship.duckdb"
    con = duckdb.connect(str(path))
    con.execute(DDL.replace("REAL", "DOUBLE"))
    con.executemany("INSERT INTO deliveries VALUES (?, ?, ?)", ROWS)
    con.close()
    return str(path)


def _ask_all(source: str, tmp_path) -> None:
    session = nl2sql.connect(
        sources={"ship": source},
        settings={"project_dir": tmp_path / "project", "reference_date": REF.isoformat()},
    )
    try:
        for question, ids, note in CASES:
            result = session.ask(question)
            assert result.status == "success", [e.one_line() for e in result.errors]
            assert result.table().column(0).to_pylist() == [len(ids)], question
            assert note in result.answer, result.answer
            assert any("relative dates as of 2026-12-01" in str(r) for r in result.reasoning)
            listed = session.ask(question.replace("How many deliveries", "Which deliveries"))
            assert set(listed.table().column(0).to_pylist()) == ids, listed.sql
        latest = session.ask("What is the delivery date of the most recent delivery?")
        assert [str(d) for d in latest.table().column(0).to_pylist()] == [REF.isoformat()]
        refused = session.ask("How many deliveries were made next week?")
        assert refused.status != "success" and "next week" in refused.errors[0].message
    finally:
        session.close()


def test_relative_dates_on_sqlite(tmp_path):
    _ask_all(_sqlite(tmp_path), tmp_path)


def test_relative_dates_on_duckdb(tmp_path):
    _ask_all(_duckdb(tmp_path), tmp_path)


@pytest.mark.skipif(not os.environ.get("NL2SQL_TEST_POSTGRES_URL"), reason="no PostgreSQL")
def test_relative_dates_on_postgresql(tmp_path):
    with scratch(os.environ["NL2SQL_TEST_POSTGRES_URL"]) as (engine, url):
        run_all(engine, [DDL.replace("REAL", "DOUBLE PRECISION")])
        insert_rows(engine, "deliveries", ["delivery_id", "delivery_date", "weight"], ROWS)
        _ask_all(url.render_as_string(hide_password=False), tmp_path)


def test_without_a_setting_the_reference_date_is_today(tmp_path, monkeypatch):
    monkeypatch.delenv("NL2SQL_REFERENCE_DATE", raising=False)
    session = nl2sql.connect(sources={"ship": _sqlite(tmp_path)},
                             settings={"project_dir": tmp_path / "project"})
    try:
        result = session.ask("How many deliveries were made in the last 30 days?")
        assert f"as of {dt.date.today().isoformat()}" in result.answer
    finally:
        session.close()
