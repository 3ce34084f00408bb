"""Questions that name identifiers other than word for word, answered end to end on schemas
built here (snake_case with unit suffixes, camelCase behind a coded prefix, glued words, no
declared keys): a unit suffix dropped (`range_km` asked as "range"), a unit after a number
("over 2000 kg"), a question word glued ("workload" / `work_load`), and a
noun that only modifies column names ("which genres" / `genre_description`), which stays
ambiguous when several tables carry it."""

from __future__ import annotations

import pytest

import nl2sql

_SNAKE = """
    CREATE TABLE vehicles (vehicle_id INTEGER, vehicle_name TEXT, weight_kg REAL,
        range_km INTEGER, work_load INTEGER, speed INTEGER);
    INSERT INTO vehicles VALUES (1, 'Heron', 1800.0, 420, 900, 180),
        (2, 'Osprey', 2600.0, 310, 1500, 240), (3, 'Kestrel', 950.0, 150, 300, 210),
        (4, 'Condor', 4100.0, 600, 2200, 150);
    CREATE TABLE catalog_entries (genre_code TEXT, genre_description TEXT, shelf TEXT);
    INSERT INTO catalog_entries VALUES ('P', 'poetry', 'attic'), ('H', 'history', 'attic'),
        ('C', 'cooking', 'cellar');
"""
_CAMEL = """
    CREATE TABLE tblTrip (tripId INTEGER, tripCity TEXT, durationMin INTEGER, priceUsd REAL,
        zipCode TEXT);
    INSERT INTO tblTrip VALUES (1, 'Oslo', 40, 30.0, '0150'), (2, 'Rome', 25, 12.5, '0150'),
        (3, 'Lima', 90, 41.0, '0270'), (4, 'Oslo', 15, 8.0, '0150');
"""
_CODED = """
    CREATE TABLE cust_shops (shop_id INTEGER, shop_name TEXT, region_name TEXT);
    INSERT INTO cust_shops VALUES (1, 'Alpha', 'North'), (2, 'Beta', 'South'), (3, 'Gamma', 'North');
    CREATE TABLE cust_depots (depot_id INTEGER, depot_name TEXT, region_name TEXT);
    INSERT INTO cust_depots VALUES (1, 'Dock', 'East'), (2, 'Yard', 'West');
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("segments")
    sources = sqlite_sources(folder, {"snake": _SNAKE, "camel": _CAMEL, "coded": _CODED})
    project = tmp_path_factory.mktemp("project")
    return nl2sql.connect(sources=sources, settings={"project_dir": str(project)})


def _rows(session, question: str, datasource: str) -> list[list[object]]:
    result = session.ask(question, datasource=datasource)
    assert result.status == "success", result.first_error
    return [list(r) for r in result.to_dict()["rows"]]


@pytest.mark.parametrize(
    ("question", "datasource", "expected"),
    [
        pytest.param(
            "Which vehicles have a range over 400?",
            "snake",
            [["Condor"], ["Heron"]],
            id="unit-suffix-dropped",
        ),
        pytest.param(
            "Which vehicles have a speed of over 200 kph?",
            "snake",
            [["Kestrel"], ["Osprey"]],
            id="unit-after-number",
        ),
        pytest.param(
            "Which vehicles have a weight of more than 2000 kg?",
            "snake",
            [["Condor"], ["Osprey"]],
            id="unit-suffix-and-unit-word",
        ),
        pytest.param(
            "What is the highest workload of the vehicles?",
            "snake",
            [[2200]],
            id="glued-question-word",
        ),
        pytest.param(
            "Which genres are on the cellar shelf?",
            "snake",
            [["cooking"]],
            id="modifier-noun-one-table",
        ),
        pytest.param(
            "What is the average duration of trips in Oslo?",
            "camel",
            [[27.5]],
            id="camel-unit-suffix",
        ),
        pytest.param(
            "How many trips have a price of more than 20 USD?",
            "camel",
            [[2]],
            id="currency-after-number",
        ),
        pytest.param(
            "How many trips are there in each zipcode?",
            "camel",
            [["0150", 3], ["0270", 1]],
            id="glued-question-word-camel",
        ),
        pytest.param(
            "How many shops are there in each region?",
            "coded",
            [["North", 2], ["South", 1]],
            id="modifier-noun-in-context-table",
        ),
    ],
)
def test_identifier_named_another_way(session, question, datasource, expected):
    rows = _rows(session, question, datasource)
    assert sorted(rows, key=repr) == sorted(expected, key=repr)


def test_modifier_noun_of_several_tables_is_not_guessed(session):
    result = session.ask("List all the regions.", datasource="coded")
    assert result.status in ("error", "needs_clarification"), result.to_dict()["rows"]
    if result.status == "error":
        assert "cust_depots.region_name" in result.first_error.message
        assert "cust_shops.region_name" in result.first_error.message
