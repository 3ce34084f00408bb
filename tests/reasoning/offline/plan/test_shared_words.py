"""Words a reading must not drop: modifiers coordinated before one head noun ("first and last
names"), a stored value written as the noun of a phrase ("each rabbit", "all the cats") or with
a possessive, and a part of the question no datasource answers (the rest is then no answer to
the whole). Schemas are built here: snake_case with declared keys, PascalCase without."""

from __future__ import annotations

import pytest

import nl2sql

_SNAKE = """
    CREATE TABLE owners (owner_id INTEGER PRIMARY KEY, first_name TEXT, last_name TEXT,
        city TEXT);
    INSERT INTO owners VALUES (1, 'Ada', 'Moss', 'Leeds'), (2, 'Ben', 'Hart', 'York'),
        (3, 'Cleo', 'Ng', 'Leeds');
    CREATE TABLE pets (pet_id INTEGER PRIMARY KEY, pet_name TEXT, species TEXT,
        owner_id INTEGER REFERENCES owners(owner_id));
    INSERT INTO pets VALUES (1, 'Bun', 'Rabbit', 1), (2, 'Rex', 'Dog', 2), (3, 'Tom', 'Cat', 3),
        (4, 'Hop', 'Rabbit', 3), (5, 'Kit', 'Cat', 1);
    CREATE TABLE treatments (treatment_id INTEGER PRIMARY KEY, treatment_name TEXT);
    INSERT INTO treatments VALUES (1, 'Vaccine'), (2, 'Dental');
"""
_PASCAL = """
    CREATE TABLE Student (StudentId INTEGER PRIMARY KEY, FirstName TEXT, LastName TEXT,
        Major TEXT);
    INSERT INTO Student VALUES (1, 'Ivy', 'Stone', 'Physics'), (2, 'Jon', 'Reed', 'History'),
        (3, 'Kai', 'Lund', 'Physics');
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("shared_words")
    return nl2sql.connect(
        sources=sqlite_sources(folder, {"snake": _SNAKE, "pascal": _PASCAL}),
        settings={"project_dir": str(folder / "p")},
    )


def _rows(result) -> list:
    assert result.status == "success", result.first_error
    return sorted(tuple(r) for r in result.to_dict()["rows"])


@pytest.mark.parametrize(("question", "source", "expected"), [
    ("Which owners live in Leeds? Give their first and last names.", "snake",
     [("Ada", "Moss"), ("Cleo", "Ng")]),
    ("List the first and last names of the students majoring in Physics.", "pascal",
     [("Ivy", "Stone"), ("Kai", "Lund")]),
])
def test_modifiers_before_one_head_noun_name_a_column_each(session, question, source, expected):
    # was the last name alone: "first" read as a frame word
    assert _rows(session.ask(question, datasource=source)) == expected


def test_a_value_written_as_a_noun_names_its_table(session):
    # "names" alone could be a pet's or a treatment's: the cats are pets
    result = session.ask("List the names of all the cats.", datasource="snake")
    assert _rows(result) == [("Kit",), ("Tom",)]


def test_a_possessive_value_with_its_owner(session):
    result = session.ask("Show each rabbit's name together with its owner's last name.",
                         datasource="snake")
    assert _rows(result) == [("Bun", "Moss"), ("Hop", "Ng")]


def test_an_answer_to_part_of_the_question_is_refused(session):
    # "the weather" names nothing here: the owners' last names alone are no answer to both
    result = session.ask("Show the last name of each owner together with the weather forecast.",
                         datasource="snake")
    assert result.status == "not_answerable"
    assert "only part of the question" in result.first_error.message


@pytest.mark.parametrize(("question", "expected"), [
    # were refused: "could not tell what to count" (no table named after "how many")
    ("How many cats are there?", [(2,)]),
    ("How many rabbits do we have?", [(2,)]),
])
def test_a_counted_value_counts_the_rows_that_hold_it(session, question, expected):
    assert _rows(session.ask(question, datasource="snake")) == expected
