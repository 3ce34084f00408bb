"""A tiny hand-made Spider-format benchmark: one SQLite database and two questions."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

QUESTIONS = [
    {
        "id": "tiny-0",
        "db_id": "shelf",
        "question": "How many books are there?",
        "query": "SELECT count(*) FROM books",
        "hardness": "easy",
    },
    {
        "db_id": "shelf",  # no id and no hardness: the loader fills both in
        "question": "What are the titles and pages of books with more than 300 pages?",
        "query": "SELECT title, pages FROM books WHERE pages > 300",
    },
]


@pytest.fixture
def tiny_spider(tmp_path: Path) -> tuple[Path, Path]:
    """(questions.json, databases folder) in Spider's layout."""
    folder = tmp_path / "database" / "shelf"
    folder.mkdir(parents=True)
    con = sqlite3.connect(folder / "shelf.sqlite")
    con.executescript(
        """
        CREATE TABLE books (book_id INTEGER PRIMARY KEY, title TEXT, pages INTEGER);
        INSERT INTO books VALUES (1, 'Dragon Gate', 320), (2, 'Moon Song', 210),
                                 (3, 'Deep Time', 610);
        """
    )
    con.commit()
    con.close()
    questions = tmp_path / "questions.json"
    questions.write_text(json.dumps(QUESTIONS), encoding="utf-8")
    return questions, tmp_path / "database"
