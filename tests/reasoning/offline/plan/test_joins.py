from __future__ import annotations

import pytest

from nl2sql.reasoning.offline.catalog.index import build_index
from nl2sql.reasoning.offline.plan.joins import JoinError, connect
from nl2sql.schema.models import Table

from ..conftest import col


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
