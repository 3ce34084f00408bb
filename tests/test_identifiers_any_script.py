"""Identifiers in any script: a Cyrillic, CJK or emoji name must not break the datasource.

One table with such names used to make `split_identifier` raise (a strict zip over no words), and
the schema retriever then failed every question on that source, not only questions about it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import duckdb
import pytest

import nl2sql
from nl2sql.reasoning.offline.catalog.naming import words_of
from nl2sql.reasoning.offline.words.text import split_identifier, tokenize

_TABLES = [
    "CREATE TABLE orders (id INTEGER PRIMARY KEY, amount REAL, city TEXT)",
    "INSERT INTO orders VALUES (1, 10, 'Paris'), (2, 20, 'Rome'), (3, 30, 'Oslo')",
    'CREATE TABLE "платежи" (id INTEGER, "сумма" REAL, "名前" TEXT, "🎉" TEXT)',
    "INSERT INTO \"платежи\" VALUES (1, 5.5, 'x', 'y'), (2, 4.5, 'z', 'w')",
]


@pytest.mark.parametrize("name", ["сумма", "名前", "🎉", "_", "  ", "сумма_итого", "Größe2"])
def test_split_identifier_never_raises_and_keeps_letters_of_any_script(name: str) -> None:
    words = split_identifier(name)
    assert all(words)
    if name.strip(" _"):
        assert words, name  # every real identifier reads as at least one word


def test_cyrillic_words_are_question_tokens_and_identifier_words() -> None:
    assert split_identifier("сумма_итого") == ["сумма", "итого"]
    assert words_of("名前") == ("名前",)
    assert "сумма" in [t.text for t in tokenize("what is the total сумма?")]


def _sqlite(folder: Path) -> str:
    path = folder / "any_script.sqlite"
    con = sqlite3.connect(path)
    for statement in _TABLES:
        con.execute(statement)
    con.commit()
    con.close()
    return f"sqlite:///{path}"


def _duckdb(folder: Path) -> str:
    path = folder / "any_script.duckdb"
    con = duckdb.connect(str(path))
    for statement in _TABLES:
        con.execute(statement)
    con.close()
    return f"duckdb:///{path}"


@pytest.mark.parametrize("make", [_sqlite, _duckdb], ids=["sqlite", "duckdb"])
def test_non_ascii_identifiers_do_not_break_other_questions(tmp_path: Path, make) -> None:
    session = nl2sql.connect(sources={"db": make(tmp_path)}, settings={"project_dir": tmp_path / "p"})
    try:
        other = session.ask("how many orders are there?")
        assert other.status == "success", other.errors
        assert other.to_pandas().iloc[0, 0] == 3
        cyrillic = session.ask("what is the total сумма?")
        assert cyrillic.status == "success", cyrillic.errors
        assert "сумма" in (cyrillic.sql or "")
        assert float(cyrillic.to_pandas().iloc[0, 0]) == pytest.approx(10.0)
    finally:
        session.close()
