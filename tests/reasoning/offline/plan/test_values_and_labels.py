"""What a question's values and nouns stand for, read from the schema and its data:

- of two name columns, the one that differs on every row names the row (`fullName`, not the
  `employerName` several mechanics share);
- a stored value right after "how many" is what is counted ("how many vans came in");
- inside a negation, a value goes with the noun its preposition follows ("no jobs in Oslo");
- "spent the most on jobs" is an amount, never a count of the jobs;
- "… with the garage and the date" shows the garage;
- a frame word stored as a value before its column's noun is the value ("a day pass");
- "per day" groups by the date, not the day of the month;
- a coded flag keeping a vowel (`WITHDRN_FLG`) is "withdrawn".

The schemas are built here: camelCase without keys, coded upper case."""

from __future__ import annotations

import pytest

import nl2sql
from nl2sql.reasoning.offline.catalog.segments import abbreviates

_GARAGE = """
    CREATE TABLE garages (garageId INTEGER PRIMARY KEY, garageName TEXT, city TEXT);
    CREATE TABLE mechanics (mechanicId INTEGER PRIMARY KEY, fullName TEXT, employerName TEXT,
        garageId INTEGER, city TEXT, hiredOn TEXT);
    CREATE TABLE jobs (jobId INTEGER PRIMARY KEY, mechanicId INTEGER, garageId INTEGER,
        vehicleKind TEXT, jobDate TEXT, priceUsd REAL);
    CREATE TABLE passes (passId INTEGER PRIMARY KEY, passKind TEXT, priceUsd REAL, soldOn TEXT);
    INSERT INTO garages VALUES (1, 'Fjord Motors', 'Oslo'), (2, 'Tiber Auto', 'Rome'),
        (3, 'Seine Garage', 'Paris');
    INSERT INTO mechanics VALUES (1, 'Ann Lee', 'Volt Group', 1, 'Rome', '2025-02-01'),
        (2, 'Bo Diaz', 'Volt Group', 2, 'Oslo', '2019-05-01'),
        (3, 'Cy Moss', 'Axle Ltd', 3, 'Paris', '2021-07-01');
    INSERT INTO jobs VALUES (1, 1, 1, 'Van', '2025-01-03', 120), (2, 1, 1, 'Car', '2025-01-05', 80),
        (3, 2, 2, 'Van', '2025-02-10', 300), (4, 3, 3, 'Truck', '2025-02-11', 95),
        (5, 2, 2, 'Van', '2025-02-11', 60);
    INSERT INTO passes VALUES (1, 'day', 12, '2025-03-01'), (2, 'season', 300, '2025-03-01'),
        (3, 'day', 14, '2025-03-02'), (4, 'season', 320, '2025-03-02');
"""
_HERBARIUM = """
    CREATE TABLE herbs (herbId INTEGER PRIMARY KEY, commonName TEXT, latinName TEXT, zone TEXT);
    INSERT INTO herbs VALUES (1, 'Sweet Basil', 'Ocimum basilicum', 'south'),
        (2, 'Wild Thyme', 'Thymus serpyllum', 'north'), (3, 'Lemon Balm', 'Melissa officinalis', 'south');
    CREATE TABLE gardeners (gardenerId INTEGER PRIMARY KEY, firstName TEXT, lastName TEXT, zone TEXT);
    INSERT INTO gardeners VALUES (1, 'Ada', 'Moss', 'south'), (2, 'Ben', 'Oak', 'north'),
        (3, 'Cy', 'Fern', 'south');
"""
_LOTS = """
    CREATE TABLE T_ARTST (ARTST_CD TEXT PRIMARY KEY, ARTST_NM TEXT);
    CREATE TABLE T_LOT (LOT_ID INTEGER PRIMARY KEY, LOT_NM TEXT, ARTST_CD TEXT, WITHDRN_FLG TEXT,
        INSURED_FLG TEXT);
    INSERT INTO T_ARTST VALUES ('A1', 'Mira Kol'), ('A2', 'Theo Vance'), ('A3', 'Ines Duarte');
    INSERT INTO T_LOT VALUES (1, 'Harbour', 'A1', 'N', 'Y'), (2, 'Dunes', 'A1', 'Y', 'N'),
        (3, 'Orchard', 'A2', 'N', 'Y'), (4, 'Ferry', 'A3', 'Y', 'Y');
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("garage")
    return nl2sql.connect(sources=sqlite_sources(folder, {"garage": _GARAGE, "lots": _LOTS,
                                                          "herbarium": _HERBARIUM}),
                          settings={"project_dir": str(folder / "p")})


def _rows(result):
    assert result.status == "success", result.first_error
    return sorted(tuple(r) for r in result.to_dict()["rows"])


@pytest.mark.parametrize(("question", "expected"), [
    ("Which mechanics work at Tiber Auto?", [("Bo Diaz",)]),
    ("How many vans came in to the garages?", [(3,)]),
    ("Which garages have no jobs by mechanics in Oslo?", [("Fjord Motors",), ("Seine Garage",)]),
    ("Show Ann Lee's jobs with the garage and the date.",
     [("Fjord Motors", "2025-01-03"), ("Fjord Motors", "2025-01-05")]),
    ("What is the average price of a day pass?", [(13.0,)]),
    ("What is the average price of passes per day?", [("2025-03-01", 156.0), ("2025-03-02", 167.0)]),
    ("Which mechanics live in Rome? Give employer names.", [("Volt Group",)]),
    ("List the mechanics employed by Axle Ltd along with the garage name.",
     [("Cy Moss", "Seine Garage")]),
    # the date of the job named before it, not the mechanics' hiring date
    ("How many different mechanics did a job during February 2025?", [(2,)]),
])
def test_values_and_labels(session, question, expected):
    assert _rows(session.ask(question, datasource="garage")) == expected


def test_of_two_whole_names_one_is_shown_and_name_parts_together(session):
    # a common and a Latin name each name a herb alone; a first and a last name together
    herbs = session.ask("Which herbs are in the south zone?", datasource="herbarium")
    assert _rows(herbs) == [("Lemon Balm",), ("Sweet Basil",)]
    people = session.ask("Which gardeners are in the south zone?", datasource="herbarium")
    assert _rows(people) == [("Ada", "Moss"), ("Cy", "Fern")]


def test_an_average_per_rows_own_group_is_not_read_as_the_overall_one(session):
    result = session.ask("Which jobs cost more than the average price of jobs at their own "
                         "garage?", datasource="garage")
    assert result.status != "success"
    assert "own group" in result.first_error.message


def test_a_ranking_among_rows_with_a_count_condition_is_refused(session):
    # the condition on the count would be dropped from a plain ranking of the mechanics
    result = session.ask("Among mechanics with at least two jobs, who joined most recently?",
                         datasource="garage")
    assert result.status != "success"
    assert "could not rank only the rows with 'at least two'" in result.first_error.message


def test_spent_the_most_on_is_no_count(session):
    result = session.ask("Which mechanic has spent the most on jobs?", datasource="garage")
    assert result.status != "success"


def test_a_coded_flag_keeping_a_vowel(session):
    assert abbreviates("withdrn", "withdrawn") and not abbreviates("wthdrx", "withdrawn")
    result = session.ask("Which artists have never had a lot withdrawn?", datasource="lots")
    assert _rows(result) == [("Theo Vance",)]
    # a participle names the flag its coded name begins with (`INSURED_FLG`)
    assert _rows(session.ask("How many insured lots are there?", datasource="lots")) == [(3,)]
