"""Question shapes on a small sports-club database made for them, each plan rendered by the real
generator, run on SQLite and compared with SQL written by hand.

The shapes: negation (anti-joins), "or", "both … and …" (intersection), comparisons with an
aggregate ("older than the average"), comparatives and units that name their measure ("taller
than 180", "24 years old"), superlative adjectives, "from the youngest to the oldest", the row with
an extreme value, "the most common …", a column listed by a count condition, place questions, and
the refusals that keep precision ("Frobnicate …", "players?").
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from nl2sql.reasoning.offline.catalog.index import build_index
from nl2sql.reasoning.offline.plan.planner import plan_question
from nl2sql.schema.models import Column, ForeignKey, SchemaSnapshot, Table
from nl2sql.sqlgen.render import render_plan

DDL = """
CREATE TABLE teams (team_id INTEGER PRIMARY KEY, team_name TEXT, city TEXT, founded TEXT);
CREATE TABLE players (player_id INTEGER PRIMARY KEY, player_name TEXT, age INTEGER, height REAL,
    nationality TEXT, team_id INTEGER REFERENCES teams(team_id));
CREATE TABLE awards (award_id INTEGER PRIMARY KEY, player_id INTEGER REFERENCES players(player_id),
    award_year TEXT, prize REAL);
"""
ROWS = {
    "teams": [
        (1, "Lions", "Leeds", "1990"),
        (2, "Hawks", "York", "2001"),
        (3, "Owls", "Bath", "1985"),
    ],
    "players": [
        (1, "Ann", 31, 170.0, "France", 1),
        (2, "Ben", 24, 182.5, "Spain", 1),
        (3, "Cal", 28, 190.0, "France", 2),
        (4, "Dee", 35, 165.0, "Italy", 2),
        (5, "Eve", 22, 175.0, "France", 2),
    ],
    "awards": [
        (1, 1, "2020", 100.0),
        (2, 1, "2021", 50.0),
        (3, 3, "2021", 300.0),
        (4, 5, "2022", 80.0),
    ],
}


def _col(name, type="INTEGER", pk=False, samples=()):
    return Column(name=name, type=type, primary_key=pk, samples=list(samples))


def club_snapshot() -> SchemaSnapshot:
    return SchemaSnapshot(
        datasource_id="club",
        dialect="sqlite",
        tables=[
            Table(
                name="teams",
                primary_key=["team_id"],
                columns=[
                    _col("team_id", pk=True),
                    _col("team_name", "TEXT", samples=["Lions", "Hawks", "Owls"]),
                    _col("city", "TEXT", samples=["Leeds", "York", "Bath"]),
                    _col("founded", "TEXT", samples=["1990", "2001", "1985"]),
                ],
            ),
            Table(
                name="players",
                primary_key=["player_id"],
                foreign_keys=[
                    ForeignKey(columns=["team_id"], ref_table="teams", ref_columns=["team_id"])
                ],
                columns=[
                    _col("player_id", pk=True),
                    _col("player_name", "TEXT", samples=["Ann", "Ben", "Cal", "Dee", "Eve"]),
                    _col("age"),
                    _col("height", "REAL"),
                    _col("nationality", "TEXT", samples=["France", "Spain", "Italy"]),
                    _col("team_id"),
                ],
            ),
            Table(
                name="awards",
                primary_key=["award_id"],
                foreign_keys=[
                    ForeignKey(
                        columns=["player_id"], ref_table="players", ref_columns=["player_id"]
                    )
                ],
                columns=[
                    _col("award_id", pk=True),
                    _col("player_id"),
                    _col("award_year", "TEXT", samples=["2020", "2021", "2022"]),
                    _col("prize", "REAL"),
                ],
            ),
        ],
    )


@pytest.fixture(scope="module")
def club(tmp_path_factory) -> tuple[SchemaSnapshot, Path]:
    path = tmp_path_factory.mktemp("club") / "club.sqlite"
    con = sqlite3.connect(path)
    con.executescript(DDL)
    for table, rows in ROWS.items():
        marks = ", ".join("?" * len(rows[0]))
        con.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
    con.commit()
    con.close()
    return club_snapshot(), path


CASES = [
    # negation: anti-joins
    (
        "Which teams have no players?",
        "SELECT team_name FROM teams WHERE team_id NOT IN (SELECT team_id FROM players)",
    ),
    (
        "Which players have never won an award?",
        "SELECT player_name FROM players WHERE player_id NOT IN (SELECT player_id FROM awards)",
    ),
    (
        "How many teams do not have a player from Italy?",
        "SELECT COUNT(*) FROM teams WHERE team_id NOT IN "
        "(SELECT team_id FROM players WHERE nationality = 'Italy')",
    ),
    # a comparison with an aggregate of the same column
    (
        "Which players are older than the average age?",
        "SELECT player_name FROM players WHERE age > (SELECT AVG(age) FROM players)",
    ),
    # comparatives and units that name their measure
    ("How many players are taller than 180?", "SELECT COUNT(*) FROM players WHERE height > 180"),
    (
        "Which players are 24 or 35 years old?",
        "SELECT player_name FROM players WHERE age IN (24, 35)",
    ),
    # "or" between values of one column, and between different conditions
    (
        "How many awards were given in 2020 or 2021?",
        "SELECT COUNT(*) FROM awards WHERE award_year IN ('2020', '2021')",
    ),
    (
        "How many players are from Spain or younger than 25?",
        "SELECT COUNT(*) FROM players WHERE nationality = 'Spain' OR age < 25",
    ),
    # "both … and …" on rows a team repeats: an intersection
    (
        "Which teams have both a player from France and a player from Spain?",
        "SELECT team_name FROM teams t JOIN players p ON p.team_id = t.team_id WHERE p.nationality = 'France' "
        "INTERSECT SELECT team_name FROM teams t JOIN players p ON p.team_id = t.team_id "
        "WHERE p.nationality = 'Spain'",
    ),
    # superlatives
    ("Which player is the oldest?", "SELECT player_name FROM players ORDER BY age DESC LIMIT 1"),
    (
        "Which player received the biggest prize?",
        "SELECT p.player_name FROM awards a JOIN players p ON a.player_id = p.player_id "
        "ORDER BY a.prize DESC LIMIT 1",
    ),
    (
        "What is the most common nationality of players?",
        "SELECT nationality FROM players GROUP BY nationality ORDER BY COUNT(*) DESC LIMIT 1",
    ),
    (
        "What is the maximum height and the nationality?",
        "SELECT nationality, height FROM players ORDER BY height DESC LIMIT 1",
    ),
    # a column listed by a count condition; groups
    (
        "Which nationalities are shared by at least two players?",
        "SELECT nationality FROM players GROUP BY nationality HAVING COUNT(*) >= 2",
    ),
    (
        "How many players does each team have?",
        "SELECT t.team_name, COUNT(*) FROM players p JOIN teams t ON p.team_id = t.team_id "
        "GROUP BY t.team_id",
    ),
    (
        "What is the maximum age for different nationalities?",
        "SELECT nationality, MAX(age) FROM players GROUP BY nationality",
    ),
    # place questions
    ("Where is the team Owls from?", "SELECT city FROM teams WHERE team_name = 'Owls'"),
]


def _run(path: Path, sql: str) -> list[tuple]:
    con = sqlite3.connect(path)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("question, hand_sql", CASES, ids=[c[0] for c in CASES])
def test_shape_returns_the_rows_of_hand_written_sql(question, hand_sql, club):
    snapshot, path = club
    out = plan_question(question, build_index(snapshot))
    assert out.plan is not None, out.reasoning
    got = _run(path, render_plan(out.plan, "sqlite", snapshot))
    want = _run(path, hand_sql)
    assert sorted(map(sorted_row, got)) == sorted(map(sorted_row, want)), out.reasoning


def sorted_row(row: tuple) -> tuple:
    """Column order does not matter: compare each row's values as a sorted tuple."""
    return tuple(sorted(row, key=repr))


def test_order_from_the_youngest_to_the_oldest(club):
    snapshot, path = club
    question = "List the names of the players from the youngest to the oldest."
    out = plan_question(question, build_index(snapshot))
    got = _run(path, render_plan(out.plan, "sqlite", snapshot))
    assert [r[0] for r in got] == ["Eve", "Ben", "Cal", "Ann", "Dee"]


@pytest.mark.parametrize(
    "question, says",
    [
        ("Frobnicate the players sideways", "'Frobnicate', 'sideways'"),
        ("Which players scored the most goals?", "'scored', 'goals'"),
        ("players?", "does not say what to do"),
        ("How many awards did the team with the most players win?", "nested"),
    ],
)
def test_what_is_not_understood_is_refused_and_named(question, says, club):
    out = plan_question(question, build_index(club[0]))
    assert out.plan is None and out.confidence == 0
    assert says in out.reasoning
