"""Relative dates resolve against one reference date into [start, end) days."""

from __future__ import annotations

from datetime import date

import pytest

from nl2sql.reasoning.offline.words.scan import scan

REF = date(2026, 12, 1)  # a Tuesday


@pytest.mark.parametrize(
    "question, start, end",
    [
        ("orders in the last 30 days", date(2026, 11, 2), date(2026, 12, 2)),
        ("orders last month", date(2026, 11, 1), date(2026, 12, 1)),
        ("orders this year", date(2026, 1, 1), date(2026, 12, 2)),
        ("orders year to date", date(2026, 1, 1), date(2026, 12, 2)),
        ("orders ytd", date(2026, 1, 1), date(2026, 12, 2)),
        ("orders today", date(2026, 12, 1), date(2026, 12, 2)),
        ("orders yesterday", date(2026, 11, 30), date(2026, 12, 1)),
        ("orders last week", date(2026, 11, 23), date(2026, 11, 30)),
        ("orders in the past 6 months", date(2026, 6, 2), date(2026, 12, 2)),
        ("orders in the past year", date(2025, 12, 2), date(2026, 12, 2)),
        ("orders last year", date(2025, 1, 1), date(2026, 1, 1)),
        ("orders last quarter", date(2026, 7, 1), date(2026, 10, 1)),
        ("orders this quarter", date(2026, 10, 1), date(2026, 12, 2)),
        ("orders 3 days ago", date(2026, 11, 28), date(2026, 11, 29)),
        ("last year's orders", date(2025, 1, 1), date(2026, 1, 1)),
    ],
)
def test_a_relative_phrase_becomes_days_ending_with_the_reference(question, start, end):
    s = scan(question, REF)
    assert [(d.start, d.end) for d in s.dates] == [(start, end)]
    assert s.resolved == s.dates and s.relative == []
    assert all(i in s.taken for d in s.dates for i in d.tokens)


def test_without_a_reference_relative_phrases_are_only_reported():
    s = scan("orders last month", None)
    assert s.dates == [] and s.relative == ["last month"]


@pytest.mark.parametrize("question", ["orders next week", "orders recently", "orders tomorrow"])
def test_future_and_vague_words_stay_unresolved(question):
    s = scan(question, REF)
    assert s.resolved == [] and s.relative


def test_since_a_year_and_most_recent_are_not_relative_to_the_reference():
    assert [(d.start, d.end) for d in scan("orders since 2024", REF).dates] == [
        (date(2024, 1, 1), None)
    ]
    s = scan("the most recent order", REF)
    assert s.dates == [] and s.relative == []


def test_last_n_rows_is_still_a_limit():
    assert scan("the last 5 orders", REF).limit[0] == 5
