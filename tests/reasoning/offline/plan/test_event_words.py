"""How a question names the events a table records and the dates and counts it keeps:

- a date column's verb relates rows where no date is asked ("which baker has baked the most
  batches"), and stays the date where one is ("baked in 2024", "when was it last baked");
- a table's rows by the noun its date column is named after ("visits" of `memberVisits`), or by
  the word that modifies its name (`fire_incidents`: "fires") where no entity of that name is
  keyed;
- a count column by its noun ("more than 20 docks"), "currently active" as the flag;
- a value placed by its preposition ("a race in Denver": the race's city);
- "the 5 X with the longest Y" as a top 5, showing the measure it names, not an unnamed one.

The schemas are built here: snake_case with keys, camelCase and coded without."""

from __future__ import annotations

import pytest

import nl2sql
from nl2sql.reasoning.offline.catalog.index import build_index
from nl2sql.reasoning.offline.linking.linker import link
from nl2sql.reasoning.offline.words.text import tokenize
from nl2sql.schema.models import Column, SchemaSnapshot, Table

_BAKERY = """
    CREATE TABLE bakers (baker_id INTEGER PRIMARY KEY, baker_name TEXT, is_active INTEGER);
    CREATE TABLE loaves (loaf_id INTEGER PRIMARY KEY, loaf_name TEXT);
    CREATE TABLE batches (batch_id INTEGER PRIMARY KEY,
        baker_id INTEGER REFERENCES bakers(baker_id), loaf_id INTEGER REFERENCES loaves(loaf_id),
        baked_on TEXT, oven_count INTEGER);
    INSERT INTO bakers VALUES (1, 'Ada Moss', 1), (2, 'Ben Oak', 0), (3, 'Cy Fern', 1);
    INSERT INTO loaves VALUES (1, 'Rye'), (2, 'Spelt'), (3, 'Brioche'), (4, 'Focaccia');
    INSERT INTO batches VALUES (1, 1, 1, '2024-02-01', 2), (2, 1, 2, '2024-05-03', 3),
        (3, 1, 1, '2025-01-09', 1), (4, 2, 3, '2024-03-15', 4), (5, 3, 1, '2025-06-30', 2);
"""
_RACES = """
    CREATE TABLE runners (runnerId INTEGER PRIMARY KEY, runnerName TEXT, homeCity TEXT);
    CREATE TABLE races (raceId INTEGER PRIMARY KEY, raceName TEXT, city TEXT,
        lengthKm REAL);
    CREATE TABLE raceEntries (entryId INTEGER PRIMARY KEY, runnerId INTEGER, raceId INTEGER,
        finishMinutes INTEGER);
    CREATE TABLE stationVisits (visitId INTEGER PRIMARY KEY, visitDate TEXT, dockCount INTEGER);
    INSERT INTO runners VALUES (1, 'Ivy Hart', 'Denver'), (2, 'Jon Bell', 'Austin'),
        (3, 'Kai Lund', 'Austin'), (4, 'Lea Voss', 'Boise');
    INSERT INTO races VALUES (1, 'Mile High Run', 'Denver', 42.2), (2, 'Capitol Ten', 'Austin', 10),
        (3, 'River Half', 'Boise', 21.1), (4, 'Peak Dash', 'Denver', 5),
        (5, 'Lake Loop', 'Austin', 15), (6, 'Dune Trek', 'Boise', 30);
    INSERT INTO raceEntries VALUES (1, 2, 1, 250), (2, 3, 4, 30), (3, 1, 2, 55), (4, 4, 3, 120),
        (5, 2, 2, 60);
    INSERT INTO stationVisits VALUES (1, '2025-01-02', 12), (2, '2025-01-05', 25),
        (3, '2025-02-11', 30);
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("events")
    return nl2sql.connect(sources=sqlite_sources(folder, {"bakery": _BAKERY}),
                          settings={"project_dir": str(folder / "p")})


@pytest.fixture(scope="module")
def races(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("races")
    return nl2sql.connect(sources=sqlite_sources(folder, {"races": _RACES}),
                          settings={"project_dir": str(folder / "p")})


_ROOMS = """
    CREATE TABLE rooms (roomId INTEGER PRIMARY KEY, roomName TEXT, isOpen INTEGER);
    CREATE TABLE bookings (bookingId INTEGER PRIMARY KEY, roomId INTEGER, guests INTEGER);
    INSERT INTO rooms VALUES (1, 'Attic', 1), (2, 'Vault', 0), (3, 'Cellar', 1), (4, 'Loft', 0);
    INSERT INTO bookings VALUES (1, 1, 4), (2, 1, 2), (3, 3, 6), (4, 1, 3), (5, 3, 2);
"""


@pytest.fixture(scope="module")
def rooms(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("rooms")
    return nl2sql.connect(sources=sqlite_sources(folder, {"rooms": _ROOMS}),
                          settings={"project_dir": str(folder / "p")})


@pytest.mark.parametrize(("question", "expected"), [
    ("Which rooms have never been booked?", [("Loft",), ("Vault",)]),  # `bookings`: "booked"
    ("Which rooms have at least 2 separate bookings?", [("Attic",), ("Cellar",)]),
    ("Which rooms aren't open yet?", [("Loft",), ("Vault",)]),
])
def test_events_named_by_their_noun_and_time_adverbs(rooms, question, expected):
    assert sorted(_rows(rooms, question)) == expected


_COURSES = """
    CREATE TABLE T_STDNT (STDNT_ID INTEGER PRIMARY KEY, STDNT_NM TEXT);
    CREATE TABLE T_ENROLL (ENROLL_ID INTEGER PRIMARY KEY, STDNT_ID INTEGER, TERM_CD TEXT);
    INSERT INTO T_STDNT VALUES (1, 'Ann Lee'), (2, 'Bo Diaz'), (3, 'Cy Moss');
    INSERT INTO T_ENROLL VALUES (1, 1, 'F24'), (2, 1, 'S25'), (3, 3, 'F24');
"""


@pytest.fixture(scope="module")
def courses(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("courses")
    return nl2sql.connect(sources=sqlite_sources(folder, {"courses": _COURSES}),
                          settings={"project_dir": str(folder / "p")})


@pytest.mark.parametrize(("question", "expected"), [
    ("Which students have never enrolled?", [("Bo Diaz",)]),
    ("How many enrollments does each student have?", [("Ann Lee", 2), ("Cy Moss", 1)]),
])
def test_a_table_named_by_a_verb_holds_its_events(courses, question, expected):
    assert _rows(courses, question) == expected


def _rows(session, question):
    result = session.ask(question)
    assert result.status == "success", result.first_error
    return [tuple(r) for r in result.to_dict()["rows"]]


@pytest.mark.parametrize(("question", "expected"), [
    ("Which baker has baked the most batches?", [("Ada Moss",)]),
    ("How many different loaves has Ada Moss baked?", [(2,)]),
    ("How many batches were baked in 2024?", [(3,)]),
    ("When was Spelt last baked?", [("2024-05-03",)]),
    ("When was Rye first baked?", [("2024-02-01",)]),
    ("How many bakers are currently active?", [(2,)]),
    ("Which loaves have never been baked?", [("Focaccia",)]),
])
def test_the_verb_of_a_date(session, question, expected):
    assert _rows(session, question) == expected


@pytest.mark.parametrize(("question", "expected"), [
    ("How many different runners have entered a race in Denver?", [(2,)]),
    ("How many runners from Denver have entered a race?", [(1,)]),
    ("What are the 2 races with the longest length?", [("Mile High Run", 42.2), ("Dune Trek", 30.0)]),
    ("What are the 2 longest races?", [("Mile High Run",), ("Dune Trek",)]),
    ("How many station visits had more than 20 docks?", [(2,)]),
])
def test_values_limits_and_counts(races, question, expected):
    assert _rows(races, question) == expected


def _linked(question, tables):
    snapshot = SchemaSnapshot(datasource_id="t", dialect="sqlite", tables=tables)
    return link(tokenize(question), build_index(snapshot), set())


def _refs(linking):
    return [[e.ref for e in m.candidates] for m in linking.mentions]


def test_a_table_by_the_word_that_modifies_its_name():
    fires = Table(name="T_FIRE_INCDT", primary_key=["INCDT_ID"], columns=[
        Column(name="INCDT_ID", type="INTEGER"), Column(name="INCDT_NM", type="TEXT"),
        Column(name="DISC_DT", type="TEXT")])
    assert _refs(_linked("How many fires were there?", [fires]))[0] == ["T_FIRE_INCDT"]


def test_no_table_by_a_modifier_keyed_as_an_entity_of_its_own():
    categories = Table(name="product_categories", primary_key=["category_id"], columns=[
        Column(name="category_id", type="INTEGER"), Column(name="product_id", type="INTEGER"),
        Column(name="category_name", type="TEXT")])
    linking = _linked("How many products are there?", [categories])
    assert not any("product_categories" in refs for refs in _refs(linking))


def test_a_table_by_the_noun_its_date_is_named_after():
    visits = Table(name="MemberVisits", primary_key=["visitId"], columns=[
        Column(name="visitId", type="INTEGER"), Column(name="visitDate", type="TEXT")])
    assert _refs(_linked("How many visits were there?", [visits]))[0][0] == "MemberVisits"


def test_either_values_then_a_condition_is_not_guessed(races):
    result = races.ask("Which races are either in Denver or Austin with a length over 12?")
    assert result.status != "success"
    assert "applies to each of its values" in result.first_error.message
    assert _rows(races, "Which races are in Denver or Boise with a length over 12?") == [
        ("Mile High Run",), ("River Half",), ("Dune Trek",)]
