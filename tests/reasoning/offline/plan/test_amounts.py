""""Spends the most on wages": "most" standing for an amount ranks each entity by the total of
what its rows hold, not by its number of rows nor by its single largest row. Schemas are built
here: camelCase with declared keys, snake_case without."""

from __future__ import annotations

import pytest

import nl2sql

_CAMEL = """
    CREATE TABLE teams (teamId INTEGER PRIMARY KEY, teamName TEXT);
    INSERT INTO teams VALUES (1, 'Rovers'), (2, 'United'), (3, 'Athletic');
    CREATE TABLE players (playerId INTEGER PRIMARY KEY, lastName TEXT,
        teamId INTEGER REFERENCES teams(teamId), annualSalaryUsd INTEGER);
    INSERT INTO players VALUES (1, 'Hale', 1, 90000), (2, 'Ives', 1, 20000), (3, 'Jung', 1, 15000),
        (4, 'Kerr', 2, 100000), (5, 'Lamb', 2, 60000), (6, 'Moss', 3, 30000);
"""
_SNAKE = """
    CREATE TABLE shop (shop_id INTEGER PRIMARY KEY, shop_name TEXT);
    INSERT INTO shop VALUES (1, 'Corner'), (2, 'Harbour');
    CREATE TABLE sale (sale_id INTEGER PRIMARY KEY, shop_id INTEGER, amount REAL);
    INSERT INTO sale VALUES (1, 1, 500.0), (2, 2, 220.0), (3, 2, 230.0), (4, 2, 240.0);
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("amounts")
    return nl2sql.connect(
        sources=sqlite_sources(folder, {"camel": _CAMEL, "snake": _SNAKE}),
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
