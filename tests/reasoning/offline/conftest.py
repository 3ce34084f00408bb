"""Fixtures: a small library schema (snapshot + real SQLite data + value look-up) and a second
"events" datasource that shares the district attribute, for two-source questions."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from nl2sql.schema.models import Column, ForeignKey, SchemaSnapshot, Table

LIBRARY_DDL = """
CREATE TABLE districts (district_id INTEGER PRIMARY KEY, district_name TEXT);
CREATE TABLE branches (branch_id INTEGER PRIMARY KEY, branch_name TEXT, city TEXT,
    district_id INTEGER REFERENCES districts(district_id));
CREATE TABLE authors (author_id INTEGER PRIMARY KEY, name TEXT, country TEXT);
CREATE TABLE books (book_id INTEGER PRIMARY KEY, title TEXT, author_id INTEGER REFERENCES authors(author_id),
    genre TEXT, price REAL, published_date DATE, pages INTEGER);
CREATE TABLE members (member_id INTEGER PRIMARY KEY, first_name TEXT, last_name TEXT, city TEXT, state TEXT,
    home_branch_id INTEGER REFERENCES branches(branch_id), joined_date DATE);
CREATE TABLE copies (copy_id INTEGER PRIMARY KEY, book_id INTEGER REFERENCES books(book_id),
    branch_id INTEGER REFERENCES branches(branch_id), condition TEXT);
CREATE TABLE loans (loan_id INTEGER PRIMARY KEY, member_id INTEGER REFERENCES members(member_id),
    copy_id INTEGER REFERENCES copies(copy_id), loan_date DATE, returned_date TEXT, fee REAL, status TEXT);
"""

LIBRARY_ROWS = {
    "districts": [(1, "North"), (2, "South")],
    "branches": [
        (1, "Central", "Springfield", 1),
        (2, "Riverside", "Shelbyville", 2),
        (3, "Hilltop", "Springfield", 1),
    ],
    "authors": [(1, "Ada Byron", "France"), (2, "Kenji Mori", "Japan"), (3, "Chi Obi", "Nigeria")],
    "books": [
        (1, "Dragon Gate", 1, "Fantasy", 12.5, "2021-05-01", 320),
        (2, "Star Field", 2, "Science Fiction", 18.0, "2023-02-11", 410),
        (3, "Old Empires", 3, "History", 25.0, "2019-09-30", 530),
        (4, "Moon Song", 2, "Fantasy", 9.0, "2024-01-15", 210),
        (5, "Deep Time", 1, "History", 31.0, "2022-07-07", 610),
    ],
    "members": [
        (1, "Ann", "Lee", "Springfield", "Oregon", 1, "2022-03-01"),
        (2, "Bob", "Ray", "Shelbyville", "Ohio", 2, "2023-06-15"),
        (3, "Cleo", "Diaz", "Springfield", "Oregon", 3, "2024-02-20"),
        (4, "Dan", "Moss", "Portland", "Montana", 2, "2024-08-09"),
    ],
    "copies": [
        (1, 1, 1, "good"),
        (2, 2, 1, "worn"),
        (3, 3, 2, "good"),
        (4, 4, 3, "damaged"),
        (5, 5, 2, "good"),
    ],
    "loans": [
        (1, 1, 1, "2023-11-02", "2023-11-20", 0.0, "returned"),
        (2, 1, 2, "2024-01-10", "2024-01-30", 1.5, "returned"),
        (3, 2, 3, "2024-03-05", None, 2.0, "overdue"),
        (4, 3, 4, "2024-03-18", None, 0.0, "open"),
        (5, 1, 5, "2024-04-01", None, 0.5, "open"),
        (6, 4, 3, "2024-05-30", "2024-06-10", 3.0, "returned"),
        (7, 2, 1, "2024-07-14", None, 1.0, "overdue"),
    ],
}


def col(name: str, type: str = "INTEGER", pk: bool = False, samples=()) -> Column:
    return Column(name=name, type=type, primary_key=pk, samples=list(samples))


def fk(column: str, table: str, ref: str | None = None) -> ForeignKey:
    return ForeignKey(columns=[column], ref_table=table, ref_columns=[ref or column])


def library_snapshot() -> SchemaSnapshot:
    """The library schema; samples are bounded on purpose (states and cities are incomplete)."""
    t = Table
    return SchemaSnapshot(
        datasource_id="library",
        dialect="sqlite",
        tables=[
            t(
                name="districts",
                primary_key=["district_id"],
                columns=[
                    col("district_id", pk=True),
                    col("district_name", "TEXT", samples=["North", "South"]),
                ],
            ),
            t(
                name="branches",
                primary_key=["branch_id"],
                foreign_keys=[fk("district_id", "districts")],
                columns=[
                    col("branch_id", pk=True),
                    col("branch_name", "TEXT", samples=["Central", "Riverside", "Hilltop"]),
                    col("city", "TEXT", samples=["Springfield"]),
                    col("district_id"),
                ],
            ),
            t(
                name="authors",
                primary_key=["author_id"],
                columns=[
                    col("author_id", pk=True),
                    col("name", "TEXT"),
                    col("country", "TEXT", samples=["France", "Japan", "Nigeria"]),
                ],
            ),
            t(
                name="books",
                primary_key=["book_id"],
                foreign_keys=[fk("author_id", "authors")],
                columns=[
                    col("book_id", pk=True),
                    col("title", "TEXT"),
                    col("author_id"),
                    col("genre", "TEXT", samples=["Fantasy", "Science Fiction", "History"]),
                    col("price", "REAL"),
                    col("published_date", "DATE"),
                    col("pages"),
                ],
            ),
            t(
                name="members",
                primary_key=["member_id"],
                foreign_keys=[fk("home_branch_id", "branches", "branch_id")],
                columns=[
                    col("member_id", pk=True),
                    col("first_name", "TEXT"),
                    col("last_name", "TEXT"),
                    col("city", "TEXT", samples=["Springfield"]),
                    col("state", "TEXT", samples=["Oregon"]),
                    col("home_branch_id"),
                    col("joined_date", "DATE"),
                ],
            ),
            t(
                name="copies",
                primary_key=["copy_id"],
                foreign_keys=[fk("book_id", "books"), fk("branch_id", "branches")],
                columns=[
                    col("copy_id", pk=True),
                    col("book_id"),
                    col("branch_id"),
                    col("condition", "TEXT", samples=["good", "worn", "damaged"]),
                ],
            ),
            t(
                name="loans",
                primary_key=["loan_id"],
                foreign_keys=[fk("member_id", "members"), fk("copy_id", "copies")],
                columns=[
                    col("loan_id", pk=True),
                    col("member_id"),
                    col("copy_id"),
                    col("loan_date", "DATE"),
                    col("returned_date", "TEXT", samples=["2023-11-20", "2024-01-30"]),
                    col("fee", "REAL"),
                    col("status", "TEXT", samples=["returned", "overdue", "open"]),
                ],
            ),
        ],
    )


def events_snapshot() -> SchemaSnapshot:
    """A second datasource: events with a text district (same names as district_name)."""
    return SchemaSnapshot(
        datasource_id="events",
        dialect="sqlite",
        tables=[
            Table(
                name="venues",
                primary_key=["venue_id"],
                columns=[
                    col("venue_id", pk=True),
                    col("venue_name", "TEXT"),
                    col("district", "TEXT", samples=["North", "South"]),
                ],
            ),
            Table(
                name="events",
                primary_key=["event_id"],
                foreign_keys=[fk("venue_id", "venues")],
                columns=[
                    col("event_id", pk=True),
                    col("venue_id"),
                    col("topic", "TEXT", samples=["poetry", "chess"]),
                    col("attendees"),
                    col("event_date", "DATE"),
                ],
            ),
        ],
    )


@pytest.fixture
def library() -> SchemaSnapshot:
    return library_snapshot()


@pytest.fixture
def events() -> SchemaSnapshot:
    return events_snapshot()


@pytest.fixture
def library_db(tmp_path: Path) -> Path:
    path = tmp_path / "library.sqlite"
    con = sqlite3.connect(path)
    con.executescript(LIBRARY_DDL)
    for table, rows in LIBRARY_ROWS.items():
        marks = ", ".join("?" for _ in rows[0])
        con.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
    con.commit()
    con.close()
    return path


@pytest.fixture
def lookup(library_db: Path):
    """The bounded value look-up the pipeline passes to the planner, over the real database."""
    calls: list[tuple[str, str, str]] = []

    def values(table: str, column: str, needle: str, limit: int) -> list[str]:
        calls.append((table, column, needle))
        con = sqlite3.connect(library_db)
        try:
            sql = (
                f'SELECT DISTINCT "{column}" FROM "{table}" WHERE lower("{column}") LIKE ? LIMIT ?'
            )
            return [
                r[0] for r in con.execute(sql, (f"%{needle.lower()}%", limit)) if r[0] is not None
            ]
        finally:
            con.close()

    values.calls = calls
    return values


@pytest.fixture(scope="session")
def sqlite_sources() -> Callable[[Path, dict[str, str]], dict[str, str]]:
    """A builder: `build(folder, {name: script})` writes one SQLite file per script and returns
    the sources mapping `nl2sql.connect(sources=...)` takes."""

    def build(folder: Path, scripts: dict[str, str]) -> dict[str, str]:
        sources = {}
        for name, script in scripts.items():
            path = folder / f"{name}.sqlite"
            with sqlite3.connect(path) as con:
                con.executescript(script)
            sources[name] = str(path)
        return sources

    return build
