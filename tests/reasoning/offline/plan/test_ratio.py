"""Ratios of two aggregates ("the ratio of A to B", "what percentage of X are Y") answered
end to end on schemas built here (snake_case and camelCase, no declared keys), each checked
against the same ratio computed by direct SQL; a ratio whose sides cannot be read is refused."""

from __future__ import annotations

import sqlite3

import pytest

import nl2sql
from nl2sql.reasoning.offline.plan.ratio import ratio_question

_SNAKE = """
    CREATE TABLE shops (shop_id INTEGER, shop_name TEXT, city TEXT, rating REAL);
    INSERT INTO shops VALUES (1, 'North', 'Oslo', 4.8), (2, 'South', 'Oslo', 3.9),
        (3, 'East', 'Rome', 4.6), (4, 'West', 'Lima', 2.5), (5, 'Dock', 'Rome', 4.1);
    CREATE TABLE clerks (clerk_id INTEGER, clerk_name TEXT, salary INTEGER);
    INSERT INTO clerks VALUES (1, 'Ann', 300), (2, 'Bob', 500);
"""
_CAMEL = """
    CREATE TABLE tripLog (tripId INTEGER, tripCity TEXT, distanceKm INTEGER, fareAmount INTEGER);
    INSERT INTO tripLog VALUES (1, 'Oslo', 10, 30), (2, 'Rome', 4, 12), (3, 'Oslo', 7, 15),
        (4, 'Lima', 20, 41);
"""


@pytest.fixture(scope="module")
def sources(tmp_path_factory, sqlite_sources):
    return sqlite_sources(tmp_path_factory.mktemp("ratio"), {"snake": _SNAKE, "camel": _CAMEL})


@pytest.fixture(scope="module")
def session(sources, tmp_path_factory):
    project = tmp_path_factory.mktemp("project")
    return nl2sql.connect(sources=sources, settings={"project_dir": str(project)})


def _value(session, question: str, datasource: str) -> float:
    result = session.ask(question, datasource=datasource)
    assert result.status == "success", result.first_error
    rows = result.to_dict()["rows"]
    assert len(rows) == 1 and len(rows[0]) == 1, rows
    return float(rows[0][0])


def _direct(sources, datasource: str, sql: str) -> float:
    with sqlite3.connect(sources[datasource]) as con:
        return float(con.execute(sql).fetchone()[0])


# (question, datasource, the same ratio by direct SQL, its value worked out by hand)
_RATIOS = [
    pytest.param("What is the ratio of shops to clerks?", "snake",
                 "SELECT CAST((SELECT COUNT(*) FROM shops) AS REAL) / (SELECT COUNT(*) FROM clerks)",
                 2.5, id="two-table-counts"),
    pytest.param("What is the ratio of shops in Oslo to shops in Rome?", "snake",
                 "SELECT CAST(SUM(city = 'Oslo') AS REAL) / SUM(city = 'Rome') FROM shops",
                 1.0, id="each-side-its-own-condition"),
    pytest.param("What is the ratio of shops with a rating above 4.5 to shops with a rating "
                 "below 4.5 in Oslo?", "snake",
                 "SELECT CAST(SUM(rating > 4.5) AS REAL) / SUM(rating < 4.5) FROM shops"
                 " WHERE city = 'Oslo'", 1.0, id="closing-phrase-applies-to-both"),
    pytest.param("What is the ratio of shops in Rome to the total number of shops in the "
                 "database?", "snake", "SELECT AVG(city = 'Rome') FROM shops", 0.4,
                 id="whole-database-is-no-condition"),
    pytest.param("What is the ratio of the total fare amount to the total distance km?", "camel",
                 'SELECT CAST(SUM("fareAmount") AS REAL) / SUM("distanceKm") FROM "tripLog"',
                 98 / 41, id="sums-not-integer-division"),
    pytest.param("What percentage of trip logs have a distance km above 8?", "camel",
                 'SELECT 100.0 * SUM("distanceKm" > 8) / COUNT(*) FROM "tripLog"',
                 50.0, id="percentage"),
    pytest.param("What fraction of shops are in Oslo?", "snake",
                 "SELECT CAST(SUM(city = 'Oslo') AS REAL) / COUNT(*) FROM shops", 0.4,
                 id="fraction"),
]


@pytest.mark.parametrize(("question", "datasource", "sql", "by_hand"), _RATIOS)
def test_ratio_matches_direct_sql(session, sources, question, datasource, sql, by_hand):
    got = _value(session, question, datasource)
    assert got == pytest.approx(_direct(sources, datasource, sql))
    assert got == pytest.approx(by_hand)


def test_a_side_that_cannot_be_read_is_refused(session):
    result = session.ask("What is the ratio of shops to zebras?", datasource="snake")
    assert result.status != "success"


def test_a_ratio_per_group_is_refused(session):
    result = session.ask("What is the ratio of shops to clerks for each city?", datasource="snake")
    assert result.status != "success"


def test_the_split_word_must_be_unique():
    assert ratio_question("ratio of flights to Rome to flights to Oslo") == ratio_question("ratio of x")
    assert ratio_question("how many shops are in Oslo") is None
    parts = ratio_question("What share of shops are in Oslo?")
    assert parts is not None and parts.numerator == "how many shops are in Oslo"
    assert parts.denominator == "how many shops" and parts.factor == 1.0
