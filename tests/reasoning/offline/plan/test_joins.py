from __future__ import annotations

import pytest

from nl2sql.reasoning.offline.catalog.index import build_index
from nl2sql.reasoning.offline.plan.joins import JoinError, connect
from nl2sql.schema.models import SchemaSnapshot, Table

from ..conftest import col, fk


def test_direct_foreign_key_join(library):
    tree = connect(build_index(library), "books", ["authors"])
    (step,) = tree.steps
    assert step.pairs() == [("books", "author_id", "authors", "author_id")]
    assert not tree.fans_out and not tree.ambiguous


def test_equal_paths_prefer_a_table_the_question_mentions(library):
    idx = build_index(library)
    via_copies = connect(idx, "loans", ["districts"], preferred={"copies"})
    assert via_copies.tables == ["loans", "copies", "branches", "districts"]
    assert not via_copies.ambiguous


def test_equal_paths_without_preference_follow_declaration_order_and_say_so(library):
    tree = connect(build_index(library), "loans", ["districts"])
    assert tree.tables == ["loans", "members", "branches", "districts"]
    assert tree.ambiguous
    assert "copies" in tree.notes[0] and "members" in tree.notes[0]


def test_fk_column_words_in_the_question_break_ties(library):
    tree = connect(build_index(library), "loans", ["districts"], words={"copy"})
    assert "copies" in tree.tables


def test_joining_from_the_referenced_side_is_flagged_as_fan_out(library):
    tree = connect(build_index(library), "members", ["loans"])
    assert tree.fans_out


def test_unconnected_tables_raise(library):
    snap = library.model_copy(
        update={"tables": library.tables + [Table(name="island", columns=[col("x")])]}
    )
    with pytest.raises(JoinError, match="island"):
        connect(build_index(snap), "books", ["island"])


def test_tree_reaches_every_required_table(library):
    tree = connect(build_index(library), "loans", ["books", "members", "authors"])
    assert set(tree.tables) >= {"loans", "books", "members", "authors", "copies"}
    assert len(tree.tables) == len(set(tree.tables))


def _staffing() -> SchemaSnapshot:
    """Employees and projects both belong to an office, and a later table links them; the
    office path comes first in declaration order."""
    return SchemaSnapshot(datasource_id="staff", dialect="sqlite", tables=[
        Table(name="projects", primary_key=["project_id"], foreign_keys=[fk("office_id", "offices")],
              columns=[col("project_id", pk=True), col("title", "TEXT"), col("office_id")]),
        Table(name="employees", primary_key=["employee_id"],
              foreign_keys=[fk("office_id", "offices")],
              columns=[col("employee_id", pk=True), col("full_name", "TEXT"), col("office_id")]),
        Table(name="offices", primary_key=["office_id"],
              columns=[col("office_id", pk=True), col("city", "TEXT")]),
        Table(name="timesheets", foreign_keys=[fk("employee_id", "employees"),
                                               fk("project_id", "projects")],
              columns=[col("employee_id"), col("project_id"), col("hours", "REAL")]),
    ])


def test_a_table_linking_both_rows_beats_a_table_both_refer_to():
    # projects → offices ← employees only says they share an office
    tree = connect(build_index(_staffing()), "projects", ["employees"])
    assert tree.tables == ["projects", "timesheets", "employees"]
    assert not tree.ambiguous


def _routes() -> SchemaSnapshot:
    return SchemaSnapshot(datasource_id="routes", dialect="sqlite", tables=[
        Table(name="airports", primary_key=["airport_id"],
              columns=[col("airport_id", pk=True), col("city", "TEXT")]),
        Table(name="flights", primary_key=["flight_id"],
              foreign_keys=[fk("origin_airport_id", "airports", "airport_id"),
                            fk("destination_airport_id", "airports", "airport_id")],
              columns=[col("flight_id", pk=True), col("origin_airport_id"),
                       col("destination_airport_id")]),
    ])


def test_two_keys_between_the_same_tables_are_a_role_tie_unless_a_word_names_one():
    idx = build_index(_routes())
    tree = connect(idx, "flights", ["airports"])
    (tie,) = tree.ties
    assert tie.roles and tie.chosen == ("flights.origin_airport_id",)
    assert tie.other == ("flights.destination_airport_id",)
    assert "destin" in " ".join(tie.other_words)
    assert "say which" in tree.notes[0]
    # the other path's words, said, decide it
    taken = connect(idx, "flights", ["airports"], words=set(tie.other_words))
    assert not taken.ties
    assert taken.steps[0].edge.src_cols == ("destination_airport_id",)
