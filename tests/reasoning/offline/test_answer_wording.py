"""The answer says what the SQL did, checked against the SQL actually run on schemas built here
(snake_case stores, camelCase order lines without declared keys): "distinct" only with DISTINCT,
"average" / "total" only with AVG / SUM, ties at the top said with their noun, and the plain
line saying what was computed when the sentence alone would not."""

from __future__ import annotations

import re

import pytest

import nl2sql
from nl2sql.plan import Aggregate, ColumnRef, PlanModel, SelectItem, TableRef
from nl2sql.reasoning.base import ResultPreview
from nl2sql.reasoning.offline.synthesis import synthesize

_SHOP = """
    CREATE TABLE stores (store_id INTEGER PRIMARY KEY, store_name TEXT, city TEXT,
        revenue INTEGER);
    INSERT INTO stores VALUES (1, 'Alpha', 'Oslo', 500), (2, 'Beta', 'Rome', 200),
        (3, 'Gamma', 'Oslo', 300), (4, 'Delta', 'Rome', 400), (5, 'Omega', 'Lima', 100);
    CREATE TABLE orderLines (lineId INTEGER, orderId INTEGER, productName TEXT,
        storeId INTEGER, quantity INTEGER);
    INSERT INTO orderLines VALUES (1, 10, 'pen', 1, 2), (2, 10, 'ink', 1, 1),
        (3, 11, 'pen', 2, 5), (4, 12, 'pad', 3, 3), (5, 12, 'pen', 3, 1);
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("wording")
    sources = sqlite_sources(folder, {"shop": _SHOP})
    return nl2sql.connect(sources=sources, settings={"project_dir": str(folder / "project")})


def _run(session, question: str) -> tuple[str, list, str]:
    result = session.ask(question, datasource="shop")
    assert result.status == "success", result.first_error
    return result.sql or "", result.to_dict()["rows"], result.answer or ""


_QUESTIONS = [
    "How many order lines are there?",
    "How many different order lines are there?",
    "How many distinct product names are there?",
    "What is the average revenue of stores?",
    "What is the total revenue of stores?",
    "What is the total quantity of order lines?",
    "What is the total number of stores?",
    "What is the average quantity?",
]


@pytest.mark.parametrize("question", _QUESTIONS)
def test_aggregate_words_in_the_answer_are_borne_out_by_the_sql(session, question):
    sql, rows, text = _run(session, question)
    said = text.lower()
    assert bool(re.search(r"\b(?:distinct|different|unique)\b", said)) == ("DISTINCT" in sql)
    if "average" in said:
        assert "AVG(" in sql
    if re.search(r"\btotal\b(?! number)", said):
        assert "SUM(" in sql
    assert f"{rows[0][0]:,}".removesuffix(".0") in text.replace(".00", "")


def test_a_count_of_distinct_values_says_distinct_and_what_it_counted(session):
    sql, rows, text = _run(session, "How many distinct product names are there?")
    assert "COUNT(DISTINCT" in sql and rows == [[3]]
    assert text == (
        "There are 3 distinct product names. Counted distinct values of orderLines.productName."
    )


def test_distinct_asked_of_rows_counted_plainly_is_not_said(session):
    sql, rows, text = _run(session, "How many different order lines are there?")
    assert "DISTINCT" not in sql and rows == [[5]]
    assert text == "There are 5 order lines."


def test_ties_at_the_top_are_said_with_their_noun(session):
    sql, rows, text = _run(session, "How many stores per city?")
    assert "ORDER BY COUNT(*) DESC" in sql
    assert sorted(rows[:2]) == [["Oslo", 2], ["Rome", 2]]
    first, second = rows[0][0], rows[1][0]
    assert text == f"2 cities tie for the most stores: {first} and {second} (2)."


def _one_value(question: str, func: str, value: float) -> str:
    arg = ColumnRef(table="s", name="revenue")
    plan = PlanModel(
        tables=[TableRef(name="stores", alias="s")],
        select=[SelectItem(expr=Aggregate(func=func, arg=arg), alias="value")],
    )
    preview = ResultPreview("result", ["value"], [(value,)], 1, plan=plan)
    return synthesize(question, [preview]).answer


@pytest.mark.parametrize(
    ("question", "func", "answer"),
    [
        (
            "What is the average revenue of stores?",
            "sum",
            "The answer is 1,500. Sum of stores.revenue.",
        ),
        (
            "What is the total revenue of stores?",
            "avg",
            "The answer is 300. Average of stores.revenue.",
        ),
        ("What is the total revenue of stores?", "sum", "The total revenue of stores is 1,500."),
        (
            "What is the average score of stores?",
            "avg",
            "The average score of stores is 300. Average of stores.revenue.",
        ),
        ("How many units were sold?", "avg", "The answer is 300. Average of stores.revenue."),
    ],
)
def test_an_aggregate_word_the_plan_does_not_compute_is_not_repeated(question, func, answer):
    value = 1500 if func == "sum" else 300
    assert _one_value(question, func, value) == answer


@pytest.mark.parametrize(
    "question",
    [
        "What is the average revenue of stores with a revenue above 1000?",
        "What is the total quantity of order lines with a quantity above 50?",
    ],
)
def test_an_aggregate_over_no_values_is_said_to_have_none(session, question):
    sql, rows, text = _run(session, question)
    assert rows == [[None]] and ("AVG(" in sql or "SUM(" in sql)
    assert text.startswith("There is no value: no matching row has one.")
    assert "none" not in text
