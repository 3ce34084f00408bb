"""Follow-ups on the demo, as the issue checks them: "And in 2023?" after a question about 2024
gives the rows of the full 2023 question and says which run it follows; the other edits too."""

from __future__ import annotations

import pytest

import nl2sql
from nl2sql.demo import DEMO_SETTINGS, demo_sources


@pytest.fixture
def session(demo_paths, tmp_path):
    s = nl2sql.connect(sources=demo_sources(demo_paths), settings={"project_dir": tmp_path, **DEMO_SETTINGS})
    yield s
    s.close()


def _rows(result) -> list[tuple]:
    return [tuple(r.values()) for r in result.table().to_pylist()]


def _note(result) -> str:
    return " ".join(r["content"] for r in result.reasoning if r["node"] == "conversation")


def test_and_in_2023_equals_the_full_question(session):
    first = session.ask("How many orders were placed in 2024?")
    follow = session.ask("And in 2023?")
    fresh = session.ask("How many orders were placed in 2023?")
    assert first.status == follow.status == fresh.status == "success"
    assert _rows(follow) == _rows(fresh) and _rows(follow) != _rows(first)
    assert f"follow-up of run {first.run_number}" in _note(follow) and "2024 → 2023" in _note(follow)
    assert fresh.follow_up is None


def test_grouping_top_drill_down_and_columns_on_the_demo(session):
    session.ask("How many orders were placed in 2023?")
    by_region = session.ask("by region instead")
    full = session.ask("Number of orders per region in 2023", follow_up=False)
    assert sorted(_rows(by_region)) == sorted(_rows(full))
    top = session.ask("only the top 2")
    assert _rows(top) == sorted(_rows(full), key=lambda r: -r[1])[:2]
    region = _rows(top)[0][0]
    drill = session.ask(f"why is {region} so high?")
    assert _rows(drill) == [r for r in _rows(full) if r[0] == region]
    assert f"drill-down: region_name = {region}" in _note(drill)

    listing = session.ask("List the customers in California")
    texas = session.ask("what about Texas?")
    # the listing shows the customers' names; the follow-up swaps the state it filters on
    assert "'Texas'" in texas.sql and "state California → Texas" in _note(texas)
    assert texas.table().num_rows != listing.table().num_rows


def test_what_about_the_other_source_asks_the_question_there(session):
    asked = session.ask("How many accounts are there?")
    assert asked.status == "success"
    moved = session.ask("what about the warehouse?")
    # the warehouse has no accounts: the move is made and said, and the run fails there honestly
    assert f"follow-up of run {asked.run_number}: datasource crm → warehouse" in _note(moved)
    assert moved.status in ("error", "not_answerable") and moved.table() is None
