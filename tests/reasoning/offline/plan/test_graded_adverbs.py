"""A superlative's adverb ("hired most recently", "the most recently hired") ranks by the date
as "most recent" does; the adjective comes from WordNet's adverb pointers. "recently" alone is
still a period the engine cannot date. The schema is built here, camelCase without keys."""

from __future__ import annotations

import pytest

import nl2sql
from nl2sql.reasoning.offline.words.cues import adjective_of

_STAFF = """
    CREATE TABLE employees (employeeId INTEGER, fullName TEXT, shiftCode TEXT, hiredOn TEXT);
    INSERT INTO employees VALUES (1, 'Ann Lee', 'DAY', '2019-04-01'),
        (2, 'Bo Chen', 'NIGHT', '2022-08-15'), (3, 'Cy Diaz', 'NIGHT', '2021-01-10'),
        (4, 'Di Ruiz', 'DAY', '2023-02-01');
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("adverbs")
    return nl2sql.connect(sources=sqlite_sources(folder, {"staff": _STAFF}),
                          settings={"project_dir": str(folder / "p")})


@pytest.mark.parametrize(("word", "adjective"), [
    ("recently", "recent"), ("frequently", "frequent"), ("cheaply", "cheap"), ("newly", None),
    ("recent", None),
])
def test_the_adjective_of_an_adverb(word, adjective):
    assert adjective_of(word) == adjective


@pytest.mark.parametrize(("question", "expected"), [
    ("Who was hired most recently?", [("Di Ruiz",)]),
    ("Which employee on the NIGHT shift was hired most recently?", [("Bo Chen",)]),
    ("Who is the most recently hired employee?", [("Di Ruiz",)]),
    ("Who was hired least recently?", [("Ann Lee",)]),
])
def test_a_graded_adverb_ranks_by_the_date(session, question, expected):
    result = session.ask(question)
    assert result.status == "success", result.first_error
    assert [tuple(r) for r in result.to_dict()["rows"]] == expected


def test_recently_alone_is_no_period_the_engine_dates(session):
    result = session.ask("Who was hired recently?")
    assert result.status != "success"
    assert "recently" in result.first_error.message
