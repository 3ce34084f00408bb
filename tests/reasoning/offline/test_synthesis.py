from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from nl2sql.reasoning.base import ResultPreview
from nl2sql.reasoning.offline.synthesis import fmt, synthesize


def one(question, columns, rows, row_count=None, compare=False, truncated=False):
    r = ResultPreview(
        "result", columns, rows, len(rows) if row_count is None else row_count, truncated
    )
    return synthesize(question, [r], compare).answer


@pytest.mark.parametrize(
    "value, text",
    [
        (12345, "12,345"),
        (3.14159, "3.14"),
        (2.0, "2"),
        (Decimal("1234.5"), "1,234.50"),
        (None, "none"),
        (dt.date(2024, 3, 1), "2024-03-01"),
        (True, "yes"),
    ],
)
def test_numbers_and_dates_are_formatted(value, text):
    assert fmt(value) == text


def test_single_count_reads_as_a_sentence():
    assert (
        one("How many loans were made in 2024?", ["count_loans"], [(12345,)])
        == "12,345 loans were made in 2024."
    )
    assert (
        one("How many overdue loans are there?", ["count_loans"], [(2,)])
        == "There are 2 overdue loans."
    )


def test_single_value_of_a_what_question_and_fallback():
    assert (
        one("What is the average price of books?", ["avg_price"], [(17.1234,)])
        == "The average price of books is 17.12."
    )
    assert (
        one("Count loans by members, please", ["n"], [(7,)]) == "The answer is 7."
    )


def test_grouped_counts_name_the_top_and_the_bottom_not_every_row():
    answer = one(
        "How many books per genre?",
        ["genre", "count_books"],
        [("Fantasy", 2), ("History", 2), ("Science Fiction", 1)],
    )
    assert answer == "Fantasy and History have the most books (2) and Science Fiction the fewest (1), of 3 genres."


def test_label_columns_read_as_one_name():
    answer = one(
        "Top 2 members by number of loans",
        ["first_name", "last_name", "count_loans"],
        [("Ann", "Lee", 3), ("Bob", "Ray", 2)],
    )
    assert answer == "Ann Lee has the most loans (3) and Bob Ray the fewest (2), of 2 rows."


def test_long_or_truncated_results_say_so_without_listing_rows():
    rows = [(f"t{i}", i) for i in range(8)]
    answer = one("books", ["title", "pages"], rows, row_count=800, truncated=True)
    assert answer == "The table shows pages for 800+ titles."


def test_compare_result_mentions_the_largest_difference_by_label():
    rows = [("North", 4, 1, 3), ("South", 3, 9, -6)]
    answer = one("compare", ["district_name", "count_loans", "count_events", "difference"], rows)
    assert answer == "Of 2 districts, South differs most: Loans 3 vs Events 9 (difference -6)."


def test_compare_without_a_difference_column_computes_it():
    answer = one(
        "compare", ["district", "a", "b"], [("North", 10, 1), ("South", 3, 4)], compare=True
    )
    # second minus first, as the aggregator's difference columns
    assert "North differs most: A 10 vs B 1 (difference -9)" in answer


def test_empty_result():
    assert one("How many loans in 1990?", ["n"], []) == "No rows matched."


def test_several_results_are_labelled():
    a = ResultPreview("loans", ["n"], [(1,)], 1)
    b = ResultPreview("events", ["n"], [(2,)], 1)
    assert synthesize("How many?", [a, b]).answer.splitlines()[1].startswith("events: ")
