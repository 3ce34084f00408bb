"""Verbs no column names, read as the schema path between the entities around them, end to end.

Each schema is built here in its own naming style: camelCase with a bridge table and no declared
keys, snake_case with declared keys, and coded prefixes. The verbs read through the schema are
ones the generic lexicon does not list.
"""

from __future__ import annotations

import pytest

import nl2sql

_CAMEL = """
    CREATE TABLE Chefs (chefId INTEGER, chefName TEXT);
    INSERT INTO Chefs VALUES (1, 'Amara'), (2, 'Bruno'), (3, 'Chen'), (4, 'Dalia');
    CREATE TABLE Festivals (festivalId INTEGER, festivalName TEXT, festivalCity TEXT);
    INSERT INTO Festivals VALUES (10, 'Spring Feast', 'Lyon'), (11, 'Harvest Days', 'Porto'),
        (12, 'Winter Table', 'Lyon');
    CREATE TABLE ChefFestivals (chefId INTEGER, festivalId INTEGER);
    INSERT INTO ChefFestivals VALUES (1, 10), (2, 11), (3, 12), (3, 10), (4, 11);
"""
_SNAKE = """
    CREATE TABLE venues (venue_id INTEGER PRIMARY KEY, venue_name TEXT);
    INSERT INTO venues VALUES (1, 'Main Hall'), (2, 'Garden Room'), (3, 'Loft');
    CREATE TABLE talks (talk_id INTEGER PRIMARY KEY, title TEXT,
        venue_id INTEGER REFERENCES venues(venue_id));
    INSERT INTO talks VALUES (1, 'Graphs', 1), (2, 'Caches', 1), (3, 'Queues', 2), (4, 'Locks', 1);
"""
_CODED = """
    CREATE TABLE tblCarriers (crrId INTEGER PRIMARY KEY, crrName TEXT);
    INSERT INTO tblCarriers VALUES (1, 'Nordwind'), (2, 'Sudair'), (3, 'Westjet');
    CREATE TABLE tblRoutes (rtNo INTEGER PRIMARY KEY, rtFromPort TEXT, rtToPort TEXT,
        crrId INTEGER REFERENCES tblCarriers(crrId));
    INSERT INTO tblRoutes VALUES (100, 'Oslo', 'Rome', 1), (101, 'Rome', 'Oslo', 2),
        (102, 'Oslo', 'Rome', 3), (103, 'Oslo', 'Lima', 2);
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("relations")
    sources = sqlite_sources(folder, {"camel": _CAMEL, "snake": _SNAKE, "coded": _CODED})
    # the rows of the engine's reading are checked whatever its confidence
    return nl2sql.connect(
        sources=sources, settings={"project_dir": str(folder / "p"), "min_confidence": 0}
    )


def _rows(result) -> list:
    assert result.status == "success", result.first_error
    return sorted(tuple(r) for r in result.to_dict()["rows"])


def _planner_reasoning(result) -> str:
    return next(s["content"] for s in result.reasoning if s["node"] == "ast_planner")


def test_a_verb_reads_as_the_bridge_table_between_two_entities(session):
    result = session.ask("Which chefs cooked at festivals in Lyon?", datasource="camel")
    assert _rows(result) == [("Amara",), ("Chen",)]
    reasoning = _planner_reasoning(result)
    assert "'cooked' read as the link Chefs → Festivals through ChefFestivals" in reasoning


def test_a_verb_reads_as_the_declared_key_between_two_entities(session):
    result = session.ask("How many talks were staged in each venue?", datasource="snake")
    assert _rows(result) == [("Garden Room", 1), ("Main Hall", 3)]
    assert "talks.venue_id = venues.venue_id" in _planner_reasoning(result)


@pytest.mark.parametrize(
    ("question", "word"),
    [
        # no second table: the verb names no relationship the schema holds
        ("Which festivals sparkled in Lyon?", "sparkled"),
        # "part" after "are" is the noun, not the verb "to part"
        ("Which chefs are part of festivals in Lyon?", "part"),
    ],
)
def test_a_word_that_reads_no_relation_stays_unexplained(session, question, word):
    result = session.ask(question, datasource="camel")
    assert result.status != "success" and result.sql is None
    assert f"'{word}'" in result.first_error.message


def test_the_preposition_before_a_value_picks_the_column_named_with_it(session):
    # both ports hold both cities: "from" and "to" pick `rtFromPort` and `rtToPort`
    result = session.ask("Which carriers run routes from Oslo to Rome?", datasource="coded")
    assert _rows(result) == [("Nordwind",), ("Westjet",)]
