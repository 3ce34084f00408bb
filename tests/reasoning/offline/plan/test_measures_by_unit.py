"""A measure adjective finds its column by what the column measures when no word of it names
the measure: a unit of that dimension (`distanceKm` is a length, `LOAD_KG` a mass, `FEE_USD` a
price) or a code of the measure's word (`WGT`, `CST`). "Which X <verb> the <superlative> Y"
asks for the X of the top Y. The schemas are built here (camelCase, coded), without keys."""

from __future__ import annotations

import pytest

import nl2sql
from nl2sql.reasoning.offline.words.units import dimension

_TOURS = """
    CREATE TABLE tourLegs (legId INTEGER PRIMARY KEY, legNumber INTEGER, distanceKm REAL, climbM REAL);
    INSERT INTO tourLegs VALUES (1, 1, 180.5, 900), (2, 2, 212.0, 300), (3, 3, 95.2, 2400);
"""

_CARGO = """
    CREATE TABLE HL_CARRIER (CAR_ID INTEGER, CAR_NM TEXT);
    CREATE TABLE HL_LOAD (LD_ID INTEGER, CAR_ID INTEGER, LD_WGT REAL, LD_FEE_USD REAL);
    INSERT INTO HL_CARRIER VALUES (1, 'Northline'), (2, 'Bluewave'), (3, 'Redrock');
    INSERT INTO HL_LOAD VALUES (10, 1, 500, 90), (11, 2, 1500, 40), (12, 3, 800, 300),
        (13, 1, 200, 60), (14, 2, 100, 20);
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("measures")
    return nl2sql.connect(sources=sqlite_sources(folder, {"tours": _TOURS, "cargo": _CARGO}),
                          settings={"project_dir": str(folder / "p")})


@pytest.mark.parametrize(("word", "what"), [
    ("kg", "[mass]"), ("km", "[length]"), ("usd", "currency"), ("kph", "[length] / [time]"),
    ("weight", None), ("m", None),
])
def test_what_a_unit_measures(word, what):
    assert dimension(word) == what


@pytest.mark.parametrize(("question", "source", "expected"), [
    ("Which leg was the longest? Give the leg number.", "tours", [(2,)]),
    ("Which carrier handled the heaviest load?", "cargo", [("Bluewave",)]),
    ("Which carrier carried the most expensive load?", "cargo", [("Redrock",)]),
    ("What is the cheapest load?", "cargo", [(14,)]),
])
def test_a_superlative_ranks_by_the_column_of_its_measure(session, question, source, expected):
    result = session.ask(question, datasource=source)
    assert result.status == "success", result.first_error
    assert [tuple(r)[:1] for r in result.to_dict()["rows"]] == expected
