"""Loading Spider-format questions, finding their databases and running gold queries."""

from __future__ import annotations

import json
import sqlite3

import pytest

from nl2sql.eval.spider import database_path, load_questions, run_gold


def test_questions_load_with_ids_and_hardness_filled_in(tiny_spider):
    questions, _ = tiny_spider
    loaded = load_questions(questions)
    assert [q.id for q in loaded] == ["tiny-0", "q1"]
    assert [q.hardness for q in loaded] == ["easy", "medium"]  # the second computed from its SQL


def test_a_question_without_its_gold_query_is_reported(tmp_path):
    path = tmp_path / "q.json"
    path.write_text(json.dumps([{"db_id": "x", "question": "How many?"}]), encoding="utf-8")
    with pytest.raises(ValueError, match="question 0 has no query"):
        load_questions(path)


def test_database_path_follows_spiders_layout(tiny_spider):
    _, databases = tiny_spider
    assert database_path(databases, "shelf").name == "shelf.sqlite"
    with pytest.raises(FileNotFoundError, match="nowhere"):
        database_path(databases, "nowhere")


def test_gold_queries_run_read_only(tiny_spider):
    _, databases = tiny_spider
    path = database_path(databases, "shelf")
    assert run_gold(path, "SELECT title FROM books WHERE pages > 300 ORDER BY title") == [
        ("Deep Time",),
        ("Dragon Gate",),
    ]
    with pytest.raises(sqlite3.OperationalError):
        run_gold(path, "DELETE FROM books")


def test_a_duckdb_database_is_found_and_its_gold_queries_run_read_only(tmp_path):
    import duckdb

    from nl2sql.datasources.base import ResultError

    folder = tmp_path / "Ledger"
    folder.mkdir()
    con = duckdb.connect(str(folder / "Ledger.duckdb"))
    con.execute("CREATE TABLE Entries (EntryId INTEGER PRIMARY KEY, Amount DECIMAL(9, 2))")
    con.execute("INSERT INTO Entries VALUES (1, 12.50), (2, 7.25), (3, 30.00)")
    con.close()
    path = database_path(tmp_path, "Ledger")
    assert path.name == "Ledger.duckdb"
    rows = run_gold(path, "SELECT EntryId FROM Entries WHERE Amount > 10 ORDER BY EntryId")
    assert rows == [(1,), (3,)]
    with pytest.raises(ResultError):
        run_gold(path, "DELETE FROM Entries")
    with pytest.raises(ResultError):
        run_gold(path, "SELECT nothing FROM Entries")
    assert run_gold(path, "SELECT COUNT(*) FROM Entries") == [(3,)]  # still all there
