""""Spends the most on wages": "most" standing for an amount ranks each entity by the total of
what its rows hold, not by its number of rows nor by its single largest row; a count column
over filtered rows is added up; "the oldest" with no age column ranks by the birth date, the
other way round; "the most experienced" ranks by a column its verb names. Schemas are built
here: camelCase and PascalCase with declared keys, snake_case without."""

from __future__ import annotations

import pytest

import nl2sql

_CAMEL = """
    CREATE TABLE teams (teamId INTEGER PRIMARY KEY, teamName TEXT);
    INSERT INTO teams VALUES (1, 'Rovers'), (2, 'United'), (3, 'Athletic');
    CREATE TABLE players (playerId INTEGER PRIMARY KEY, lastName TEXT,
        teamId INTEGER REFERENCES teams(teamId), annualSalaryUsd INTEGER, birthDate TEXT,
        signedOn TEXT, ratingOutOf10 REAL);
    INSERT INTO players VALUES (1, 'Hale', 1, 90000, '1990-04-02', '2020-01-01', 6.5),
        (2, 'Ives', 1, 20000, '2001-07-19', '2019-03-03', 8.0),
        (3, 'Jung', 1, 15000, '1996-11-30', '2023-05-05', 7.0),
        (4, 'Kerr', 2, 100000, '1988-02-14', '2021-06-06', 9.5),
        (5, 'Lamb', 2, 60000, '1999-09-09', '2018-08-08', 5.0),
        (6, 'Moss', 3, 30000, '2003-01-25', '2022-02-02', 7.5);
"""
_PASCAL = """
    CREATE TABLE Adjusters (AdjusterId INTEGER PRIMARY KEY, FullName TEXT, YearsExperience INTEGER);
    INSERT INTO Adjusters VALUES (1, 'Ana Ruiz', 4), (2, 'Ben Cole', 17), (3, 'Cy Park', 9);
    CREATE TABLE Claims (ClaimId INTEGER PRIMARY KEY, AdjusterId INTEGER REFERENCES
        Adjusters(AdjusterId), ClaimDate TEXT);
    INSERT INTO Claims VALUES (1, 1, '2024-01-01'), (2, 1, '2024-02-01'), (3, 1, '2024-03-01'),
        (4, 3, '2024-04-01');
"""
_SNAKE = """
    CREATE TABLE shop (shop_id INTEGER PRIMARY KEY, shop_name TEXT);
    INSERT INTO shop VALUES (1, 'Corner'), (2, 'Harbour');
    CREATE TABLE sale (sale_id INTEGER PRIMARY KEY, shop_id INTEGER, amount REAL, items INTEGER,
        channel TEXT);
    INSERT INTO sale VALUES (1, 1, 500.0, 4, 'online'), (2, 2, 220.0, 2, 'online'),
        (3, 2, 230.0, 3, 'store'), (4, 2, 240.0, 1, 'online');
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("amounts")
    return nl2sql.connect(
        sources=sqlite_sources(folder, {"camel": _CAMEL, "snake": _SNAKE, "pascal": _PASCAL}),
        settings={"project_dir": str(folder / "p")},
    )


def _rows(result) -> list:
    assert result.status == "success", result.first_error
    return sorted(tuple(r) for r in result.to_dict()["rows"])


@pytest.mark.parametrize(("question", "source", "expected"), [
    # was the team with the most players (Rovers, 3 of them) at 0.95
    ("Which team spends the most on player salaries?", "camel", [("United",)]),
    # the single largest sale is Corner's; Harbour took the most in all
    ("Which shop took the most in sales amount?", "snake", [("Harbour",)]),
])
def test_the_most_on_an_amount_ranks_by_its_total(session, question, source, expected):
    assert _rows(session.ask(question, datasource=source))[:1] == expected


def test_a_count_column_over_filtered_rows_is_added_up(session):
    # was the three rows' items listed: the count a column holds is read off only the rows
    # a key or a name picks ("how many items did sale 1 have")
    result = session.ask("How many items were sold across all online sales?", datasource="snake")
    assert _rows(result) == [(7,)]


@pytest.mark.parametrize(("question", "expected"), [
    # was refused: "oldest" found no age column
    ("Who is the oldest player?", [("Kerr",)]),
    ("Who is the youngest player?", [("Moss",)]),
])
def test_the_oldest_ranks_by_the_birth_date_the_other_way_round(session, question, expected):
    assert _rows(session.ask(question, datasource="camel")) == expected


def test_a_superlative_then_first_orders_every_row(session):
    # was the one youngest player: "youngest first" asks for all of them in that order
    result = session.ask("List the players signed after 2020-01-01, youngest first.",
                         datasource="camel")
    assert result.status == "success", result.first_error
    assert [tuple(r) for r in result.to_dict()["rows"]] == [("Moss",), ("Jung",), ("Kerr",)]


@pytest.mark.parametrize("question", [
    "Who is the most experienced adjuster?",
    # was the claims, counted: "experienced claims" read as a compound, "claims" as what ranks
    "Who is our most experienced claims adjuster?",
])
def test_a_graded_participle_names_its_measure(session, question):
    assert _rows(session.ask(question, datasource="pascal")) == [("Ben Cole",)]


def test_a_column_named_with_its_scale_is_named_without_it(session):
    # was refused: "rating" named no column (`ratingOutOf10` ends with its scale)
    result = session.ask("Which player has the highest rating?", datasource="camel")
    assert _rows(result) == [("Kerr",)]
