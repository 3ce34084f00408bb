"""The reading rules one at a time, on the sports-club schema of `test_shapes.py`: each rule run
alone writes only its part of the state, and leaving one out of `RULES` changes exactly what it
is responsible for (and reads the question wrongly, which is why it is there)."""

from __future__ import annotations

import dataclasses

import pytest

from nl2sql.reasoning.offline.catalog.index import SchemaIndex, build_index
from nl2sql.reasoning.offline.linking.linker import Linking, link
from nl2sql.reasoning.offline.shapes.analyze import RULES, Rule, analyze
from nl2sql.reasoning.offline.shapes.checks import (
    check_alternatives,
    check_columns_read,
    check_negations,
)
from nl2sql.reasoning.offline.shapes.dependent import dependent_columns
from nl2sql.reasoning.offline.shapes.existence import existence_joins
from nl2sql.reasoning.offline.shapes.intersect import intersect_both
from nl2sql.reasoning.offline.shapes.measures import read_measure
from nl2sql.reasoning.offline.shapes.negation import reserve_negated_tables
from nl2sql.reasoning.offline.shapes.spec import Agg, Col, Query, Unclear
from nl2sql.reasoning.offline.shapes.state import Analysis, start
from nl2sql.reasoning.offline.words.scan import Scan, scan
from tests.reasoning.offline.shapes.test_shapes import club_snapshot

IDX = build_index(club_snapshot())


def _inputs(text: str) -> tuple[Scan, Linking, SchemaIndex]:
    s = scan(text)
    return s, link(s.tokens, IDX, s.taken), IDX


def _read(text: str, rules: tuple[Rule, ...] | list[Rule] = RULES) -> Analysis:
    return analyze(*_inputs(text), {}, rules)


def _without(rule: Rule) -> tuple[Rule, ...]:
    assert rule in RULES
    return tuple(r for r in RULES if r is not rule)


def test_read_measure_alone_finds_the_aggregate_and_writes_no_query():
    a = _read("What is the average age of players?", [read_measure])
    assert a.measure == Agg("avg", "players", Col("players", "age"))
    assert a.measure_mention is not None and a.measure_mention.start in a.used
    assert a.query is None
    with pytest.raises(RuntimeError, match="shape rule"):
        a.result()


def test_without_read_measure_an_average_is_read_as_a_listing_of_the_column():
    question = "What is the average age of players?"
    assert _read(question).result().select == [(Agg("avg", "players", Col("players", "age")), None)]
    bare = _read(question, _without(read_measure)).result()
    assert bare.shape == "listing" and bare.select == [(Col("players", "age"), None)]


def test_reserve_negated_tables_alone_sets_the_negated_table_aside():
    a = _read("Which teams have no players?", [reserve_negated_tables])
    (players,) = [m for m in a.question.mentions if a.res.table(m) == "players"]
    (teams,) = [m for m in a.question.mentions if a.res.table(m) == "teams"]
    assert a.used == {players.start} and set(a.negated_mentions) == {players.start}
    assert teams.start not in a.used


def test_existence_joins_joins_a_named_table_and_changes_nothing_else():
    question = "List the teams that have awards."
    full = _read(question)
    without = _read(question, _without(existence_joins))
    assert full.result().joined == ["awards"]
    assert full.notes == ["joined awards for 'awards': only rows with a matching awards row count"]
    assert without.result().joined == [] and without.notes == []
    assert dataclasses.replace(full.result(), joined=[]) == without.result()


def test_existence_joins_reports_an_unused_table_beside_an_aggregate():
    question = "What is the average age of players who have awards?"
    full = _read(question)
    without = _read(question, _without(existence_joins))
    assert full.result().joined == []  # only listings and counts join for existence
    assert full.notes == ["'awards' (awards) was not used"] and without.notes == []
    assert full.penalty == pytest.approx(without.penalty + 0.1)


def test_dependent_columns_groups_the_other_columns_of_a_grouped_entity():
    question = "What are the name and city of the team with the most players?"
    full = _read(question).result()
    without = _read(question, _without(dependent_columns)).result()
    grouped = [Col("teams", "team_id"), Col("teams", "team_name")]
    assert without.group == grouped
    assert full.group == grouped + [Col("teams", "city")]
    assert dataclasses.replace(full, group=grouped) == without


def test_dependent_columns_alone_groups_only_columns_of_a_table_grouped_by_its_key():
    a = start(*_inputs("List the teams."), {})
    a.query = Query(
        root="players",
        select=[(Col("teams", "city"), None), (Col("players", "age"), None)],
        group=[Col("teams", "team_id")],
    )
    dependent_columns(a)
    assert a.query.group == [Col("teams", "team_id"), Col("teams", "city")]


def test_a_rule_that_completes_the_query_does_not_run_before_the_shape():
    a = start(*_inputs("List the teams that have awards."), {})
    with pytest.raises(RuntimeError, match="shape rule"):
        existence_joins(a)


def test_intersect_both_adds_the_second_condition_as_an_intersected_query():
    question = "Which teams have both a player from France and a player from Spain?"
    full = _read(question).result()
    without = _read(question, _without(intersect_both)).result()
    # the shape kept only the first of the two conditions; without the rule Spain is lost
    assert [c.values for c in without.where] == [["France"]] and without.set_op is None
    assert full.set_op is not None and full.set_op[0] == "intersect"
    assert [c.values for c in full.set_op[1].where] == [["Spain"]]


def test_intersect_both_refuses_a_both_with_no_pair_of_conditions():
    question = "Which players have both awards?"
    with pytest.raises(Unclear, match="'both … and …'"):
        _read(question)
    assert _read(question, _without(intersect_both)).result().shape == "listing"


def test_check_negations_refuses_a_negation_no_condition_took():
    question = "Which players are not tall?"
    with pytest.raises(Unclear, match="could not apply 'not'"):
        _read(question)
    # without the check, "not" is silently dropped: every player is listed
    dropped = _read(question, _without(check_negations)).result()
    assert dropped.where == [] and dropped.anti == []


def test_check_negations_accepts_the_negation_an_anti_join_took():
    question = "Which teams have no players?"
    assert len(_read(question).result().anti) == 1
    fresh = start(*_inputs(question), {})  # no anti-join has taken the "no" yet
    with pytest.raises(Unclear, match="could not apply 'no'"):
        check_negations(fresh)


def test_check_alternatives_refuses_an_or_no_condition_took():
    question = "How many players are from Spain or have awards?"
    with pytest.raises(Unclear, match="'or' between different conditions"):
        _read(question)
    dropped = _read(question, _without(check_alternatives)).result()
    assert [c.values for c in dropped.where] == [["Spain"]]  # "or have awards" was lost


def test_check_alternatives_accepts_the_or_a_merged_condition_took():
    question = "How many players are from Spain or younger than 25?"
    (merged,) = _read(question).result().where
    assert merged.op == "or"
    with pytest.raises(Unclear, match="'or' between different conditions"):
        check_alternatives(start(*_inputs(question), {}))


def test_check_columns_read_refuses_a_query_that_never_reads_a_named_quantity():
    a = _read("What is the average height of players from Spain?")
    check_columns_read(a)  # the reading averages the height it names
    # a reading that lost the height (counted the players instead) is refused, not shown
    a.query = dataclasses.replace(a.result(), select=[(Agg("count", "players"), None)])
    with pytest.raises(Unclear, match="could not tell how 'height' applies"):
        check_columns_read(a)


def test_check_columns_read_accepts_a_named_quantity_read_in_a_condition():
    a = _read("Which players are taller than 1.9 height?")
    assert [c.target for c in a.result().where] == [Col("players", "height")]
    check_columns_read(a)
