"""Execution accuracy on hand-made results: order, column permutations, duplicates, floats."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from nl2sql.eval.metric import normalize, order_matters, results_match


def test_row_order_counts_only_when_the_gold_orders():
    gold, pred = [(1,), (2,)], [(2,), (1,)]
    assert results_match(gold, pred, ordered=False).correct
    miss = results_match(gold, pred, ordered=True)
    assert not miss.correct and miss.reason == "same rows in another order"


def test_columns_may_come_in_any_order_and_under_any_name():
    gold = [("Ann", 31, "France"), ("Ben", 24, "Spain")]
    pred = [(31, "France", "Ann"), (24, "Spain", "Ben")]
    assert results_match(gold, pred, ordered=True).correct


def test_a_permutation_must_keep_rows_together():
    # each column holds the gold values, but the rows pair them differently
    gold, pred = [("a", 1), ("b", 2)], [("a", 2), ("b", 1)]
    assert not results_match(gold, pred, ordered=False).correct


def test_rows_are_a_multiset_duplicates_count():
    assert not results_match([(1,), (1,)], [(1,)], ordered=False).correct
    assert not results_match([(1,), (2,)], [(1,), (1,)], ordered=False).correct
    assert results_match([(1,), (1,), (2,)], [(2,), (1,), (1,)], ordered=False).correct


def test_numbers_compare_with_a_float_tolerance_and_across_types():
    assert results_match([(34.5,)], [(34.50000000001,)], ordered=False).correct
    assert results_match([(3,)], [(3.0,)], ordered=False).correct
    assert results_match([(Decimal("2.5"),)], [(2.5,)], ordered=False).correct
    assert results_match([("150",)], [(150,)], ordered=False).correct  # SQLite text vs number
    assert not results_match([(34.5,)], [(34.6,)], ordered=False).correct


def test_empty_gold_matches_only_an_empty_prediction():
    assert results_match([], [], ordered=False).correct
    assert results_match([], [(1,)], ordered=False).reason == "row count 1, expected 0"
    assert not results_match([(1,)], [], ordered=False).correct


def test_a_different_number_of_columns_is_wrong():
    miss = results_match([(1, 2)], [(1,)], ordered=False)
    assert not miss.correct and miss.reason == "1 column(s), expected 2"


@pytest.mark.parametrize(
    "value, expected",
    [
        (None, None),
        (True, 1),
        (2.0, 2),
        (dt.date(2024, 3, 1), "2024-03-01"),
        ("Hey Jude", "Hey Jude"),
        (b"\x01\x02", "0102"),
    ],
)
def test_normalize(value, expected):
    assert normalize(value) == expected


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("SELECT a FROM t ORDER BY a DESC", True),
        ("SELECT a FROM t", False),
        ("SELECT a FROM (SELECT a FROM t ORDER BY a LIMIT 3)", False),  # only the outer query
        ("SELECT a FROM t UNION SELECT b FROM u ORDER BY a", True),
    ],
)
def test_order_matters_only_for_the_outer_order_by(sql, expected):
    assert order_matters(sql) is expected
