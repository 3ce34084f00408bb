"""Two keys between the same tables (a flight's origin and destination airport) are a role the
question must name: without a word for one, the run asks which, with both readings runnable; a
noun or a verb WordNet derives it from ("won": `winnerTeamId`) names one, declared or inferred.
And the label a listing shows is the row's own name: `full_name`, not `agency_name`; a title
before another thing's name; `cmpn_nm` of a coded campaign table. A WordNet synonym that only
shares a stem with a column ("roll" for `role`) names nothing. Schemas are built here in
snake_case with keys, camelCase and coded names without."""

from __future__ import annotations

import pytest

import nl2sql

_TRAVEL = """
    CREATE TABLE airports (airport_id INTEGER PRIMARY KEY, airport_name TEXT, city TEXT);
    INSERT INTO airports VALUES (1, 'Gardermoen', 'Oslo'), (2, 'Fiumicino', 'Rome'),
        (3, 'Jorge Chavez', 'Lima');
    CREATE TABLE flights (
        flight_id INTEGER PRIMARY KEY,
        origin_airport_id INTEGER REFERENCES airports(airport_id),
        destination_airport_id INTEGER REFERENCES airports(airport_id),
        distance_km REAL);
    INSERT INTO flights VALUES (1, 1, 2, 2000), (2, 1, 3, 11000), (3, 2, 3, 10500);
"""
_STAFF = """
    CREATE TABLE Employees (employeeId INTEGER PRIMARY KEY, fullName TEXT, agencyName TEXT);
    INSERT INTO Employees VALUES (1, 'Ann Lee', 'Brightstaff'), (2, 'Bo Chen', 'Brightstaff'),
        (3, 'Cy Diaz', 'Nordtemp');
    CREATE TABLE exhibits (exhibitId INTEGER, galleryName TEXT, curatorName TEXT,
        exhibitTitle TEXT);
    INSERT INTO exhibits VALUES (1, 'East Wing', 'R. Ames', 'Bronze Age'),
        (2, 'East Wing', 'L. Poe', 'Silk Roads'), (3, 'West Wing', 'R. Ames', 'Deep Sea');
    CREATE TABLE teams (teamId INTEGER, teamName TEXT);
    INSERT INTO teams VALUES (1, 'Owls'), (2, 'Wolves');
    CREATE TABLE players (playerId INTEGER, handle TEXT, role TEXT, teamId INTEGER);
    INSERT INTO players VALUES (1, 'zed', 'support', 1), (2, 'kay', 'carry', 1),
        (3, 'moe', 'carry', 2);
    CREATE TABLE people (person_id INTEGER PRIMARY KEY, name TEXT, nationality TEXT);
    INSERT INTO people VALUES (1, 'Ana', 'Chile'), (2, 'Bea', 'Peru'), (3, 'Cid', 'Chile');
"""
_CODED = """
    CREATE TABLE CAMPAIGN (cmpn_cd TEXT, cmpn_nm TEXT, goal_amt REAL);
    INSERT INTO CAMPAIGN VALUES ('SP', 'Spring Drive', 1000), ('WN', 'Winter Coats', 500);
    CREATE TABLE VOLUNTEER (vol_id INTEGER, vol_nm TEXT, cmpn_cd TEXT);
    INSERT INTO VOLUNTEER VALUES (1, 'Ada', 'SP'), (2, 'Ben', 'SP'), (3, 'Cal', 'WN');
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("roles")
    return nl2sql.connect(
        sources=sqlite_sources(folder, {"travel": _TRAVEL, "staff": _STAFF, "coded": _CODED}),
        settings={"project_dir": str(folder / "p")},
    )


def _rows(result) -> list:
    assert result.status == "success", result.first_error
    return sorted(tuple(r) for r in result.to_dict()["rows"])


@pytest.mark.parametrize(("question", "expected"), [
    ("Which city has the most departing flights?", [("Oslo",)]),
    ("List the names of airports that never had a departing flight.", [("Jorge Chavez",)]),
])
def test_a_role_no_word_names_is_asked_with_both_joins_runnable(session, question, expected):
    result = session.ask(question, datasource="travel")
    assert result.status == "needs_clarification"
    by_column = {c.number: c.sql for c in result.candidates}
    origin = [n for n, sql in by_column.items() if "origin_airport_id" in sql]
    destination = [n for n, sql in by_column.items() if "destination_airport_id" in sql]
    assert len(origin) == 1 and len(destination) == 1
    joined = {c.number: c.description for c in result.candidates}
    assert "origin_airport_id" in joined[origin[0]]  # the description says which join it takes
    assert _rows(result.choose(origin[0])) == expected


@pytest.mark.parametrize(("question", "expected"), [
    ("Which city is the destination of the most flights?", [("Lima",)]),
    ("How many flights have Lima as destination?", [(2,)]),
    ("What is the longest distance of any flight whose origin is Oslo?", [(11000.0,)]),
])
def test_a_role_the_question_names_is_answered(session, question, expected):
    assert _rows(session.ask(question, datasource="travel")) == expected


def test_a_role_word_the_query_joins_on_no_key_of_is_refused(session):
    result = session.ask("Which airports in Oslo are a destination?", datasource="travel")
    assert result.status == "error"
    assert "'destination' names a key the query does not join on" in result.first_error.message


@pytest.mark.parametrize(("question", "expected"), [
    # `agencyName` names the agency, not the employee
    ("List the employees.", [("Ann Lee",), ("Bo Chen",), ("Cy Diaz",)]),
    # the exhibit's own title, not its gallery's or curator's name
    ("List the exhibits.", [("Bronze Age",), ("Deep Sea",), ("Silk Roads",)]),
    # "roster" shares WordNet's sense of "roll", whose stem is that of `role`: no link
    ("How many players are on each team's roster?", [("Owls", 2), ("Wolves", 1)]),
    # an irregular plural is the same word: "individuals" still reads `people`
    ("How many individuals are there of each nationality?", [("Chile", 2), ("Peru", 1)]),
])
def test_the_label_a_listing_shows_is_the_rows_own(session, question, expected):
    assert _rows(session.ask(question, datasource="staff")) == expected


@pytest.mark.parametrize(("question", "expected"), [
    ("List the campaigns.", [("Spring Drive",), ("Winter Coats",)]),
    ("Which campaign has the most volunteers?", [("Spring Drive",)]),
])
def test_a_coded_name_column_labels_its_table(session, question, expected):
    assert _rows(session.ask(question, datasource="coded")) == expected


_LEAGUE = """
    CREATE TABLE teams (teamId INTEGER, teamName TEXT);
    INSERT INTO teams VALUES (1, 'Owls'), (2, 'Hawks'), (3, 'Lynx'), (4, 'Moose');
    CREATE TABLE matches (matchId INTEGER, homeTeamId INTEGER, awayTeamId INTEGER,
        winnerTeamId INTEGER, matchDate TEXT);
    INSERT INTO matches VALUES (1, 1, 2, 2, '2023-03-01'), (2, 3, 1, 3, '2023-05-09'),
        (3, 2, 3, 2, '2024-01-20'), (4, 1, 3, 1, '2024-02-11'), (5, 4, 2, 2, '2024-03-02');
"""


@pytest.fixture(scope="module")
def league(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("league")
    return nl2sql.connect(sources=sqlite_sources(folder, {"league": _LEAGUE}),
                          settings={"project_dir": str(folder / "p")})


@pytest.mark.parametrize(("question", "expected"), [
    # no declared keys: three inferred keys to teams; "won" is the verb WordNet derives
    # `winner` from, so it names the winner's key
    ("Which team has won the most matches?", [("Hawks",)]),
    ("Which teams have never won a match?", [("Moose",)]),
    ("How many matches did Owls win in 2024?", [(1,)]),
    ("Which team was at home in the most matches?", [("Owls",)]),
])
def test_a_verb_or_noun_names_one_of_several_inferred_keys(league, question, expected):
    assert _rows(league.ask(question)) == expected


def test_a_negation_contracted_with_its_verb_is_read(league):
    assert _rows(league.ask("Which teams haven't won a match?")) == [("Moose",)]


def test_a_role_no_word_names_among_inferred_keys_is_asked(league):
    result = league.ask("Which team played the most matches?")
    assert result.status == "needs_clarification"
    assert len(result.candidates) >= 2
