from __future__ import annotations

import pytest

from nl2sql.dag import build_dag
from nl2sql.decomposition import sub_query_id
from nl2sql.reasoning.base import DecomposeRequest
from nl2sql.reasoning.offline.engine import OfflineEngine
from nl2sql.reasoning.offline.split import split_question


@pytest.mark.parametrize(
    "text, left, right, op, group",
    [
        (
            "For each district, compare the number of loans with the number of events",
            "number of loans",
            "number of events",
            "compare",
            "district",
        ),
        (
            "Compare the total fee to the number of events per district",
            "total fee",
            "number of events",
            "compare",
            "district",
        ),
        (
            "Show the number of loans along with the number of events by district",
            "number of loans",
            "number of events",
            "join",
            "district",
        ),
        (
            "the number of loans and the number of events",
            "number of loans",
            "number of events",
            "join",
            None,
        ),
    ],
)
def test_two_part_questions_split(text, left, right, op, group):
    assert split_question(text) == type(split_question(text))(left, right, op, group)


def test_one_part_questions_do_not_split():
    assert split_question("How many loans and members are there?") is None
    assert split_question("How many books are there per genre?") is None


def test_two_datasources_compare_on_the_shared_attribute(library, events):
    request = DecomposeRequest(
        "For each district, compare the number of loans with the number of events",
        {"library": library, "events": events},
    )
    response = OfflineEngine().decompose(request)
    left, right = response.sub_queries
    assert (left.datasource_id, left.intent) == ("library", "number of loans per district")
    assert (right.datasource_id, right.intent) == ("events", "number of events per district")
    assert left.id == sub_query_id("library", left.intent, 0)
    assert right.id == sub_query_id("events", right.intent, 1)
    assert left.expected_schema == ["district_name", "count_loans"]
    assert right.expected_schema == ["district", "count_events"]
    (group,) = response.combine_groups
    assert group.operation == "compare"
    assert [(k.left, k.right) for k in group.join_keys] == [("district_name", "district")]
    assert [i.role for i in group.inputs] == ["left", "right"]
    build_dag(response)  # a valid DAG


def test_join_wording_makes_a_join_group(library, events):
    response = OfflineEngine().decompose(
        DecomposeRequest(
            "Show the number of loans along with the number of events per district",
            {"library": library, "events": events},
        )
    )
    assert response.combine_groups[0].operation == "join"
    build_dag(response)


def test_single_source_question_is_one_standalone_sub_query(library, events):
    question = "How many books are there per genre?"
    response = OfflineEngine().decompose(
        DecomposeRequest(question, {"events": events, "library": library})
    )
    (sq,) = response.sub_queries
    assert (sq.datasource_id, sq.intent) == ("library", question)
    assert response.combine_groups[0].operation == "standalone"
    assert len(build_dag(response).scan_nodes) == 1


def test_a_part_no_datasource_answers_is_unmapped(library):
    response = OfflineEngine().decompose(
        DecomposeRequest(
            "For each district, compare the number of loans with the number of parking tickets",
            {"library": library},
        )
    )
    assert [sq.intent for sq in response.sub_queries] == ["number of loans per district"]
    assert response.unmapped_subqueries == ["number of parking tickets per district"]


def test_nothing_linked_leaves_the_question_unmapped(library):
    response = OfflineEngine().decompose(
        DecomposeRequest("What is the capital of France?", {"library": library})
    )
    assert response.sub_queries == [] and response.unmapped_subqueries
