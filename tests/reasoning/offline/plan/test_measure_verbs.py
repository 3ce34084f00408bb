"""A verb that says a measure ("weighs", "earns", "scored", "spent") names the number column
WordNet's definitions tie it to, either way round: the verb defined by the column's noun, or the
noun defined by the verb. A verb whose column the question names already is explained by it; a
verb tied to no number column stays unexplained. The schemas are built here, in two styles."""

from __future__ import annotations

import pytest

import nl2sql
from nl2sql.reasoning.offline.catalog.index import build_index
from nl2sql.reasoning.offline.linking.linker import link
from nl2sql.reasoning.offline.linking.measure_verbs import measure_columns
from nl2sql.reasoning.offline.words.text import tokenize
from nl2sql.schema.models import Column, SchemaSnapshot, Table

_SQUAD = """
    CREATE TABLE tblPlayer (playerId INTEGER PRIMARY KEY, playerName TEXT, salary REAL,
        points INTEGER, weightKg REAL, shirtColour TEXT);
    INSERT INTO tblPlayer VALUES (1, 'Max Ray', 50000, 120, 82.5, 'red'),
        (2, 'Liu Wen', 72000, 98, 70.1, 'blue'), (3, 'Sam Ode', 61000, 143, 90.0, 'red');
"""
_WORKSHOP = """
    CREATE TABLE machines (machine_id INTEGER PRIMARY KEY, machine_name TEXT);
    CREATE TABLE repairs (repair_id INTEGER PRIMARY KEY, machine_id INTEGER
        REFERENCES machines(machine_id), repair_cost REAL, fault_kind TEXT);
    INSERT INTO machines VALUES (1, 'Lathe'), (2, 'Press'), (3, 'Drill');
    INSERT INTO repairs VALUES (1, 1, 120.0, 'motor'), (2, 1, 80.0, 'belt'),
        (3, 2, 300.0, 'motor'), (4, 3, 15.0, 'belt');
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("measure_verbs")
    return nl2sql.connect(sources=sqlite_sources(folder, {"squad": _SQUAD}),
                          settings={"project_dir": str(folder / "p")})


@pytest.fixture(scope="module")
def workshop(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("workshop")
    return nl2sql.connect(sources=sqlite_sources(folder, {"workshop": _WORKSHOP}),
                          settings={"project_dir": str(folder / "p")})


def _index():
    columns = [Column(name="itemId", type="INTEGER", primary_key=True),
               Column(name="itemName", type="TEXT", samples=["Anvil"]),
               Column(name="weightKg", type="REAL"), Column(name="fare", type="REAL"),
               Column(name="salary", type="REAL"), Column(name="colour", type="TEXT")]
    table = Table(name="items", primary_key=["itemId"], columns=columns)
    return build_index(SchemaSnapshot(datasource_id="t", dialect="sqlite", tables=[table]))


@pytest.mark.parametrize(("verb", "columns"), [
    ("weigh", ["weightKg"]),   # "have a certain weight"
    ("earn", ["salary"]),      # "earn as salary or wages"
    ("charge", ["fare"]),      # fare: "the sum charged for riding in a public conveyance"
    ("paint", []),             # a text column is no measure
    ("walk", []),
])
def test_the_columns_a_verb_says(verb, columns):
    assert [e.column for e in measure_columns(_index(), verb)] == columns


def test_a_measure_verb_links_weakly_and_explains_itself():
    linking = link(tokenize("How much does the Anvil weigh?"), _index(), set())
    assert not linking.unexplained
    assert [(e.column, e.form) for m in linking.mentions for e in m.candidates] == [
        ("weightKg", "measure")]


@pytest.mark.parametrize(("question", "expected"), [
    ("How much does Max Ray weigh?", [(82.5,)]),
    ("Which player weighs the most?", [("Sam Ode",)]),
    ("Which player earns the least?", [("Max Ray",)]),
    ("How many points did Sam Ode score?", [(143,)]),
    ("Which player scored the most points?", [("Sam Ode",)]),
])
def test_a_measure_verb_reads_its_column(session, question, expected):
    result = session.ask(question)
    assert result.status == "success", result.first_error
    assert [tuple(r) for r in result.to_dict()["rows"]] == expected


def test_a_verb_the_schema_does_not_measure_is_refused(session):
    result = session.ask("How far did Max Ray run?")
    assert result.status != "success"


def test_money_spent_is_the_cost(workshop):
    # WordNet defines cost as "the total spent for goods or services"
    result = workshop.ask("How much was spent on the Lathe?")
    assert result.status == "success", result.first_error
    assert [tuple(r) for r in result.to_dict()["rows"]] == [(200.0,)]


def test_a_flag_or_a_key_measures_nothing():
    columns = [Column(name="shopId", type="INTEGER", primary_key=True),
               Column(name="isOpen", type="INTEGER", distinct_count=2, min_value=0, max_value=1),
               Column(name="openingHours", type="INTEGER")]
    table = Table(name="shops", primary_key=["shopId"], columns=columns)
    idx = build_index(SchemaSnapshot(datasource_id="t", dialect="sqlite", tables=[table]))
    # "close": "move so that an opening or passage is obstructed" — the hours, never the flag
    assert [e.column for e in measure_columns(idx, "close")] == ["openingHours"]


def test_a_noun_after_an_article_is_no_measure_verb():
    linking = link(tokenize("Which items have a charge?"), _index(), set())
    assert [t.text for t in linking.unexplained] == ["charge"]
