"""Follow-up questions: recognized by their form, resolved as edits of the previous plan, and
refused when there is nothing to follow or nothing they can change. On a small schema of our
own (CamelCase names, SQLite), with every answer checked against SQL run directly."""

from __future__ import annotations

import random
import sqlite3
from datetime import date, timedelta
from pathlib import Path

import pytest

import nl2sql
from nl2sql.conversation import looks_like_follow_up


def _build(path: Path, *, rows: int = 600, seed: int = 7) -> Path:
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE Depots (DepotId INTEGER PRIMARY KEY, DepotName TEXT, Country TEXT);
        CREATE TABLE Carriers (CarrierId INTEGER PRIMARY KEY, CarrierName TEXT, ContactEmail TEXT);
        CREATE TABLE Shipments (ShipmentId INTEGER PRIMARY KEY, ShippedOn DATE, WeightKg REAL,
            DepotId INTEGER REFERENCES Depots(DepotId), CarrierId INTEGER REFERENCES Carriers(CarrierId));
    """)
    con.executemany("INSERT INTO Depots VALUES (?,?,?)",
                    [(1, "Harbor", "Norway"), (2, "Valley", "Chile"), (3, "Summit", "Norway"), (4, "Delta", "Kenya")])
    con.executemany("INSERT INTO Carriers VALUES (?,?,?)", [(1, "Swiftline", "ops@swiftline.test"),
                    (2, "Bluewave", "desk@bluewave.test"), (3, "Ironroad", "hello@ironroad.test")])
    rng = random.Random(seed)
    con.executemany("INSERT INTO Shipments VALUES (?,?,?,?,?)", [
        (i, (date(2021, 1, 1) + timedelta(days=rng.randrange(730))).isoformat(), round(rng.uniform(1, 90), 1),
         rng.choice([1, 1, 2, 3, 4]), rng.choice([1, 2, 2, 3])) for i in range(1, rows + 1)])
    con.commit()
    con.close()
    return path


@pytest.fixture(scope="module")
def logistics(tmp_path_factory) -> Path:
    return _build(tmp_path_factory.mktemp("conv") / "logistics.sqlite")


@pytest.fixture
def session(logistics, tmp_path):
    s = nl2sql.connect(sources={"logistics": str(logistics)}, settings={"project_dir": tmp_path})
    yield s
    s.close()


def _sql(path: Path, sql: str) -> list[tuple]:
    con = sqlite3.connect(path)
    try:
        return [tuple(r) for r in con.execute(sql).fetchall()]
    finally:
        con.close()


def _rows(result) -> list[tuple]:
    return [tuple(r.values()) for r in result.table().to_pylist()]


def _note(result) -> str:
    return " ".join(r["content"] for r in result.reasoning if r["node"] == "conversation")


@pytest.mark.parametrize("question", [
    "And in 2023?", "and by region?", "What about Texas?", "only the top 5", "just the first 3",
    "by depot instead", "show their emails too", "Why is South so high?", "how about the crm?",
    "How many of them are in Norway?", "now per carrier", "List their emails",
])
def test_follow_up_forms_are_recognized(question):
    assert looks_like_follow_up(question)


@pytest.mark.parametrize("question", [
    "How many orders were placed in 2023?", "List the customers in California",
    "List the customers and their emails", "Number of shipments per carrier",
    "And how many customers are in Texas?", "Which depot shipped the most in 2022?", "",
    "And what is the total weight of all the shipments that left each depot in every year?",
])
def test_questions_of_their_own_are_not_follow_ups(question):
    assert not looks_like_follow_up(question)


def test_a_changed_year_gives_the_rows_of_the_full_question(session, logistics):
    first = session.ask("How many shipments were shipped in 2022?")
    follow = session.ask("And in 2021?")
    fresh = session.ask("How many shipments were shipped in 2021?", follow_up=False)
    assert follow.status == fresh.status == "success"
    assert _rows(follow) == _rows(fresh) == _sql(
        logistics, "SELECT COUNT(*) FROM Shipments WHERE ShippedOn BETWEEN '2021-01-01' AND '2021-12-31'")
    assert _rows(first) != _rows(follow)
    assert _note(follow) == f"follow-up of run {first.run_number}: year 2022 → 2021"
    assert follow.follow_up is not None and follow.follow_up.parent == first.run_number
    assert _note(fresh) == ""


def test_grouping_limit_drill_down_and_projection_edits_chain(session, logistics):
    session.ask("How many shipments were shipped in 2021?")
    by_depot = session.ask("by depot instead")
    per_depot = ("SELECT d.DepotName, COUNT(*) FROM Shipments s JOIN Depots d USING (DepotId) "
                 "WHERE s.ShippedOn BETWEEN '2021-01-01' AND '2021-12-31' GROUP BY d.DepotName")
    assert sorted(_rows(by_depot)) == sorted(_sql(logistics, per_depot))
    assert "grouped by DepotName" in _note(by_depot)
    bottom = session.ask("only the bottom 1")
    assert _rows(bottom) == sorted(_sql(logistics, per_depot), key=lambda r: r[1])[:1]
    assert "bottom 1" in _note(bottom)
    session.ask("How many shipments were shipped in 2021?")
    session.ask("by depot instead")
    top = session.ask("only the top 2")
    expected_top = sorted(_sql(logistics, per_depot), key=lambda r: -r[1])[:2]
    assert _rows(top) == expected_top and "top 2" in _note(top)
    leader = expected_top[0][0]
    drill = session.ask(f"why is {leader} so high?")
    assert _rows(drill) == [r for r in _sql(logistics, per_depot) if r[0] == leader]
    assert f"drill-down: DepotName = {leader}" in _note(drill)
    shown = session.ask("show their country too")
    assert shown.table().column_names[-1] == "Country"
    assert _rows(shown)[0][-1] == _sql(logistics, f"SELECT Country FROM Depots WHERE DepotName = '{leader}'")[0][0]
    assert f"follow-up of run {drill.run_number}" in _note(shown)


def test_a_value_becomes_a_filter_joined_along_the_foreign_keys(session, logistics):
    session.ask("Number of shipments per carrier")
    norway = session.ask("what about Norway?")
    expected = _sql(logistics, "SELECT c.CarrierName, COUNT(*) FROM Shipments s JOIN Carriers c USING (CarrierId) "
                               "JOIN Depots d USING (DepotId) WHERE d.Country = 'Norway' GROUP BY c.CarrierName")
    assert sorted(_rows(norway)) == sorted(expected)
    assert "filter Country = Norway added" in _note(norway)
    chile = session.ask("And Chile?")
    assert "Country Norway → Chile" in _note(chile)


def test_another_datasource_asks_the_previous_question_there(logistics, tmp_path):
    other = _build(tmp_path / "archive.sqlite", rows=200, seed=11)
    s = nl2sql.connect(sources={"logistics": str(logistics), "archive": str(other)},
                       settings={"project_dir": tmp_path / "p"})
    try:
        first = s.ask("How many shipments were shipped in 2022?", datasource="logistics")
        moved = s.ask("what about the archive?")
        assert moved.status == "success", moved.errors
        assert _rows(moved) == _sql(other, "SELECT COUNT(*) FROM Shipments WHERE ShippedOn "
                                           "BETWEEN '2022-01-01' AND '2022-12-31'")
        assert _note(moved) == f"follow-up of run {first.run_number}: datasource logistics → archive"
        assert moved.question == "what about the archive?"
        mixed = s.ask("what about the logistics in 2021?")  # two changes at once: not guessed
        assert mixed.status == "not_answerable" and "'2021' too" in mixed.first_error.message
        named = s.ask("And in 2021?", datasource="logistics")  # run 2 was answered from the archive
        assert named.status == "not_answerable" and "answered from archive" in named.first_error.message
    finally:
        s.close()


def test_a_follow_up_with_nothing_to_follow_is_refused_saying_so(session):
    result = session.ask("And in 2023?")
    assert result.status == "not_answerable"
    assert "no earlier answered question" in result.first_error.message
    assert "empty" not in result.first_error.message


def test_a_follow_up_the_plan_cannot_take_is_refused_not_guessed(session):
    session.ask("How many shipments were shipped in 2022?")
    result = session.ask("And the weather?")
    assert result.status == "not_answerable" and result.sql is None
    assert "'weather'" in result.first_error.message and "run 1" in result.first_error.message
    unranked = session.ask("only the top 3")  # a count is one number: nothing to rank
    assert unranked.status == "not_answerable" and "one number" in unranked.first_error.message


def test_follow_up_false_asks_the_question_as_it_is(session):
    session.ask("How many shipments were shipped in 2022?")
    result = session.ask("And in 2021?", follow_up=False)
    assert result.follow_up is None and _note(result) == ""


def test_a_full_question_after_another_is_not_merged(session, logistics):
    session.ask("How many shipments were shipped in 2022?")
    result = session.ask("Number of shipments per carrier")
    assert result.follow_up is None
    assert sorted(_rows(result)) == sorted(_sql(
        logistics, "SELECT c.CarrierName, COUNT(*) FROM Shipments s JOIN Carriers c USING (CarrierId) GROUP BY 1"))


def test_rerun_of_a_follow_up_repeats_its_edit(session):
    session.ask("How many shipments were shipped in 2022?")
    follow = session.ask("And in 2021?")
    session.ask("Number of shipments per carrier")  # the thread moves on; the rerun does not
    again = follow.rerun()
    assert _rows(again) == _rows(follow) and again.follow_up is follow.follow_up


def test_a_year_column_takes_the_new_year(tmp_path):
    path = tmp_path / "films.sqlite"
    con = sqlite3.connect(path)
    con.executescript("CREATE TABLE film (film_id INTEGER PRIMARY KEY, title TEXT, release_year INTEGER);")
    con.executemany("INSERT INTO film VALUES (?,?,?)", [(i, f"Film {i}", 1990 + i % 5) for i in range(1, 51)])
    con.commit()
    con.close()
    with nl2sql.connect(sources={"films": str(path)}, settings={"project_dir": tmp_path / "p"}) as s:
        first = s.ask("How many films were released in 1992?")
        follow = s.ask("and in 1994?")
        assert _rows(first) == _sql(path, "SELECT COUNT(*) FROM film WHERE release_year = 1992")
        assert _rows(follow) == _sql(path, "SELECT COUNT(*) FROM film WHERE release_year = 1994")
        assert _note(follow) == f"follow-up of run {first.run_number}: year 1992 → 1994"


def test_the_docstring_examples():
    import doctest

    import nl2sql.conversation

    result = doctest.testmod(nl2sql.conversation)
    assert result.attempted > 0 and result.failed == 0


def test_the_subject_named_again_is_no_edit_and_another_subject_is_refused(session, logistics):
    session.ask("Number of shipments per carrier")
    again = session.ask("what about Norway shipments?")
    assert "filter Country = Norway added" in _note(again) and again.table().column_names == [
        "CarrierName", "count_shipments"]
    named = session.ask("and the depots?")  # joined for the filter, but no change of it
    assert named.status == "not_answerable" and "names no date, value" in named.first_error.message
    session.ask("How many shipments were shipped in 2022?")
    other = session.ask("and the carriers?")  # another subject than this count
    assert other.status == "not_answerable"
    assert "'carriers' is not part of the previous answer" in other.first_error.message
