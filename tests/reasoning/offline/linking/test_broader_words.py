"""A question noun with no name and no synonym in the schema, linked through WordNet's
hierarchy: a kind of what a table is called ("planes" over `aircraft`, "donations" over `gift`)
or the kind a table's noun belongs to ("visitors" over `guests`), weaker than a synonym and
offered as a reading rather than answered; never
when the nearest such words name two things, when the word is a verb after its subject, or when the word is the
schema's own in another role. A "most" before a quantity's noun ranks by its total. The schemas
are built here, snake_case with keys and camelCase without."""

from __future__ import annotations

import pytest

import nl2sql
from nl2sql.reasoning.offline.catalog.index import build_index
from nl2sql.reasoning.offline.linking.synonyms import SCORE, SPECIFIC, broader_elements
from nl2sql.reasoning.offline.words import wordnet

_HANGAR = """
    CREATE TABLE aircraft (aircraft_id INTEGER PRIMARY KEY, model TEXT, seats INTEGER);
    CREATE TABLE gift (gift_id INTEGER PRIMARY KEY, donor TEXT, amount REAL);
    INSERT INTO aircraft VALUES (1, 'A320', 180), (2, 'B737', 160), (3, 'E190', 100);
    INSERT INTO gift VALUES (1, 'Ada', 50), (2, 'Bo', 20);
"""
_INN = """
    CREATE TABLE hosts (hostId INTEGER, hostName TEXT);
    CREATE TABLE guests (guestId INTEGER, guestName TEXT, hostId INTEGER, category TEXT);
    CREATE TABLE scans (scanId INTEGER, guestId INTEGER, scrapQty INTEGER);
    INSERT INTO hosts VALUES (1, 'Lee'), (2, 'Kim');
    INSERT INTO guests VALUES (1, 'Rex', 1, 'solo'), (2, 'Tom', 1, 'pair'),
        (3, 'Kit', 2, 'pair');
    INSERT INTO scans VALUES (1, 1, 9), (2, 2, 4), (3, 2, 6), (4, 3, 8);
"""
_ZOO = """
    CREATE TABLE animal (animal_id INTEGER PRIMARY KEY, name TEXT);
    CREATE TABLE creature (creature_id INTEGER PRIMARY KEY, name TEXT);
    INSERT INTO animal VALUES (1, 'Rex'); INSERT INTO creature VALUES (1, 'Nessie'), (2, 'Yeti');
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("broader")
    sources = sqlite_sources(folder, {"hangar": _HANGAR, "inn": _INN, "zoo": _ZOO})
    return nl2sql.connect(sources=sources, settings={"project_dir": str(folder / "p")})


def test_the_kinds_above_a_noun_come_nearest_first():
    above = {words: (step, height) for words, step, height in wordnet.broader("plane", 1, 2)}
    assert above[("heavier-than-air", "craft")][0] == 1 and above[("aircraft",)][0] == 2
    # "status" is only four steps below the top of WordNet: too general to stand for "priority"
    assert {w: h for w, _, h in wordnet.broader("priority", 1, 2)}[("status",)] < SPECIFIC
    assert wordnet.broader("qwxz") == ()


@pytest.mark.parametrize(("question", "source", "rows"), [
    ("How many planes have more than 150 seats?", "hangar", [(2,)]),
    ("What is the total amount of the donations?", "hangar", [(70.0,)]),
    ("How many visitors does Lee host?", "inn", [(2,)]),
])
def test_a_narrower_or_broader_noun_is_offered_as_a_reading(session, question, source, rows):
    # a kind of thing is a guess: the reading is offered, not stated, and choosing it runs it
    result = session.ask(question, datasource=source)
    assert result.status == "needs_clarification", result.first_error
    chosen = result.choose(1)
    assert chosen.status == "success", chosen.first_error
    assert [tuple(r) for r in chosen.to_dict()["rows"]] == rows


def _index(session, source):
    return build_index(session.context.schemas.get(source))


def test_two_things_of_the_nearest_kind_are_no_reading(session):
    # a herbivore is an animal, and WordNet's animal is also a creature: over an `animal` and
    # a `creature` table the nearest kind names both
    assert broader_elements(_index(session, "zoo"), "herbivores") == []
    assert session.ask("How many herbivores are there?", datasource="zoo").status != "success"


def test_a_broader_link_is_weaker_than_a_synonym(session):
    (plane,) = broader_elements(_index(session, "hangar"), "planes")
    assert plane.table == "aircraft" and plane.form == "broader" and plane.score < SCORE


def test_a_verb_after_its_subject_is_no_broader_noun(session):
    # "makes" is no "make" (a brand), which WordNet puts under a category
    assert broader_elements(_index(session, "inn"), "make")
    result = session.ask("Which host makes the most scans?", datasource="inn")
    assert "category" not in (result.sql or "")


def test_most_before_a_quantity_noun_ranks_by_its_total(session):
    # Tom (4 + 6) beats Rex's single largest scan (9) on the total
    result = session.ask("Which guest has produced the most scrap?", datasource="inn")
    assert result.status == "success", result.first_error
    assert [tuple(r) for r in result.to_dict()["rows"]] == [("Tom",)]
    assert "SUM(" in result.sql.upper()
