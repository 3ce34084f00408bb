"""What a listing shows and which table a word names: "which policies …? include the start
date" shows the policies and the date, "…, and when?" the date the condition is on, "restaurants
opened in 2019" is a subject and its verb (not an `openedOn` column asked for), and "screens"
names `screens`, not `screenings` (both stem to "screen"); "every screen together with its
cinema" shows both, and "how many screen screenings" counts screenings. Schemas are built here: PascalCase
with declared keys, camelCase and snake_case without."""

from __future__ import annotations

import pytest

import nl2sql

_PASCAL = """
    CREATE TABLE Policies (PolicyNumber TEXT PRIMARY KEY, Premium REAL, StartDate TEXT);
    INSERT INTO Policies VALUES ('P-1', 120.0, '2023-02-01'), ('P-2', 95.5, '2023-08-15'),
        ('P-3', 210.0, '2024-01-10');
"""
_CAMEL = """
    CREATE TABLE restaurants (restaurantId INTEGER PRIMARY KEY, restaurantName TEXT,
        openedOn TEXT);
    INSERT INTO restaurants VALUES (1, 'Olive', '2017-05-01'), (2, 'Basil', '2019-03-12'),
        (3, 'Thyme', '2021-09-30');
"""
_SNAKE = """
    CREATE TABLE cinemas (cinema_id INTEGER PRIMARY KEY, cinema_name TEXT);
    INSERT INTO cinemas VALUES (1, 'Roxy'), (2, 'Lux');
    CREATE TABLE screens (screen_id INTEGER PRIMARY KEY, cinema_id INTEGER, screen_name TEXT);
    INSERT INTO screens VALUES (1, 1, 'S1'), (2, 1, 'S2'), (3, 2, 'S3');
    CREATE TABLE screenings (screening_id INTEGER PRIMARY KEY, screen_id INTEGER,
        screening_date TEXT, status TEXT);
    INSERT INTO screenings VALUES (1, 1, '2024-01-01', 'Held'), (2, 1, '2024-01-02', 'Held'),
        (3, 2, '2024-01-02', 'Held'), (4, 3, '2024-01-03', 'Cancelled'),
        (5, 3, '2024-01-04', 'Held'), (6, 3, '2024-01-05', 'Held');
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("asked")
    return nl2sql.connect(
        sources=sqlite_sources(folder, {"pascal": _PASCAL, "camel": _CAMEL, "snake": _SNAKE}),
        settings={"project_dir": str(folder / "p")},
    )


def _rows(result) -> list:
    assert result.status == "success", result.first_error
    return sorted(tuple(r) for r in result.to_dict()["rows"])


def test_which_rows_and_then_more_shows_both(session):
    # was the start dates alone: the policies asked for were not shown
    result = session.ask("Which policies started after 2023-06-30? Include the start date.",
                         datasource="pascal")
    assert _rows(result) == [("P-2", "2023-08-15"), ("P-3", "2024-01-10")]


def test_and_when_shows_the_date_of_the_condition(session):
    result = session.ask("Which restaurants opened before 2020, and when?", datasource="camel")
    assert _rows(result) == [("Basil", "2019-03-12"), ("Olive", "2017-05-01")]


def test_a_table_and_its_verb_are_no_column_phrase(session):
    # was the distinct opening dates: "restaurants opened" read as `openedOn`
    result = session.ask("Which restaurants opened in 2019 or later?", datasource="camel")
    assert _rows(result) == [("Basil",), ("Thyme",)]


@pytest.mark.parametrize(("question", "expected"), [
    ("How many screens does each cinema have?", [("Lux", 1), ("Roxy", 2)]),
    ("How many screenings were there?", [(6,)]),
])
def test_a_word_names_the_table_of_its_own_word_not_of_its_stem(session, question, expected):
    # "screens" counted screenings; "screenings" counted distinct screening dates
    assert _rows(session.ask(question, datasource="snake")) == expected


def test_together_with_shows_the_rows_and_what_comes_with_them(session):
    # was the cinema names alone: the screens listed were not shown
    result = session.ask("Show every screen together with the cinema name.",
                         datasource="snake")
    assert _rows(result) == [("S1", "Roxy"), ("S2", "Roxy"), ("S3", "Lux")]


def test_a_count_of_a_compound_of_tables_counts_its_head(session):
    # was the screens counted ("screen screenings" read as the screens that have them)
    result = session.ask("For each cinema, how many screen screenings were held?",
                         datasource="snake")
    assert _rows(result) == [("Lux", 2), ("Roxy", 3)]
