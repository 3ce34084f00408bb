"""What a question says of the rows it counts or lists: a capitalized name that spells a
function word ("the IT department"), and a predicate after the counted noun ("how many tickets
are open"), which is a condition, never a column to group by.

Schemas in two naming styles without declared keys; the rows of each answer are checked.
"""

from __future__ import annotations

import pytest

import nl2sql
from nl2sql.reasoning.offline.words.text import tokenize

_SNAKE = """
    CREATE TABLE departments (department_id INTEGER PRIMARY KEY, department_name TEXT);
    INSERT INTO departments VALUES (1, 'IT'), (2, 'Sales'), (3, 'OR');
    CREATE TABLE employees (employee_id INTEGER PRIMARY KEY, full_name TEXT,
        department_id INTEGER);
    INSERT INTO employees VALUES (1, 'Ada', 1), (2, 'Ben', 2), (3, 'Cleo', 1), (4, 'Dee', 3);
    CREATE TABLE tickets (ticket_id INTEGER PRIMARY KEY, status TEXT, opened_on TEXT,
        closed_on TEXT);
    INSERT INTO tickets VALUES (1, 'open', '2024-01-02', NULL), (2, 'closed', '2024-01-03',
        '2024-01-05'), (3, 'open', '2024-02-01', NULL);
"""
_CAMEL = """
    CREATE TABLE tblDepartment (deptId INTEGER PRIMARY KEY, deptName TEXT);
    INSERT INTO tblDepartment VALUES (1, 'IT'), (2, 'Sales');
    CREATE TABLE tblEmployee (empId INTEGER PRIMARY KEY, empName TEXT, empDeptId INTEGER);
    INSERT INTO tblEmployee VALUES (1, 'Ada', 1), (2, 'Ben', 2), (3, 'Cleo', 1);
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("predicates")
    sources = sqlite_sources(folder, {"snake": _SNAKE, "camel": _CAMEL})
    return nl2sql.connect(
        sources=sources, settings={"project_dir": str(folder / "p"), "min_confidence": 0}
    )


def _rows(result) -> list:
    assert result.status == "success", result.first_error
    return sorted(tuple(r) for r in result.to_dict()["rows"])


@pytest.mark.parametrize("source", ["snake", "camel"])
def test_a_capitalized_function_word_is_a_name(session, source):
    result = session.ask("Which employees work in the IT department?", datasource=source)
    assert [r[-1] for r in _rows(result)] == ["Ada", "Cleo"]


def test_capitals_for_emphasis_stay_words():
    kinds = {t.text: t.kind for t in tokenize("Show ALL employees in the IT or OR department")}
    assert kinds["ALL"] == "word"  # not a noun: emphasis
    assert kinds["IT"] == kinds["OR"] == "quoted"
    assert kinds["or"] == "word"
    # a question written in capitals throughout has no names to tell apart
    assert all(t.kind == "word" for t in tokenize("SHOW THE IT DEPARTMENT"))


def test_a_stored_value_beats_another_verb_form_of_a_column_name(session):
    # 'open' is stored in the status column; `opened_on` holds the word only as "opened"
    result = session.ask("How many tickets are open?", datasource="snake")
    assert _rows(result) == [(2,)]
    assert "'open'" in result.sql


def test_a_predicate_after_the_counted_rows_is_no_group(session):
    # "closed" is a stored status and the column `closed_on` alike: either reading, or a
    # refusal, but never one count per closing date
    result = session.ask("How many tickets are closed?", datasource="snake")
    assert "GROUP BY" not in (result.sql or "").upper()
    if result.status == "success":
        assert len(result.to_dict()["rows"]) == 1


def test_a_column_after_what_are_is_still_asked_for(session):
    result = session.ask("What are the statuses and the number of tickets?", datasource="snake")
    assert _rows(result) == [("closed", 1), ("open", 2)]
