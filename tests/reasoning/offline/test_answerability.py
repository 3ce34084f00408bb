from __future__ import annotations

import pytest

from nl2sql.reasoning.base import AnswerabilityRequest
from nl2sql.reasoning.offline.engine import OfflineEngine


def check(question, **sources):
    return OfflineEngine().check_answerability(AnswerabilityRequest(question, sources))


def test_question_about_the_schema_is_answerable_by_the_datasources_that_link_it(library, events):
    r = check("How many loans were made in 2024?", library=library, events=events)
    assert r.answerable and r.datasource_ids == ["library"]
    assert "'loans' → loans" in r.reason


def test_both_datasources_are_listed_when_both_link(library, events):
    r = check(
        "For each district, compare the number of loans with the number of events",
        events=events,
        library=library,
    )
    assert r.answerable and set(r.datasource_ids) == {"library", "events"}


def test_sample_value_alone_links(library):
    assert check("Anything in Science Fiction?", library=library).answerable


@pytest.mark.parametrize(
    "question, reason",
    [
        (
            "What is the capital of France?",
            "no table or column matches 'capital'",
        ),  # France: a stored country
        ("What is the weather today?", "no table or column matches 'weather'"),
        ("hello!", "not a question about the data"),
        ("   ", "empty"),
    ],
)
def test_unrelated_greeting_or_empty_is_refused_with_a_reason(library, question, reason):
    r = check(question, library=library)
    assert not r.answerable and r.datasource_ids == []
    assert reason in r.reason
