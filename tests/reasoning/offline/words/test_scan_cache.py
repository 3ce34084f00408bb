"""The question scan is kept per (text, reference): callers get equal findings, never shared ones."""

from __future__ import annotations

from datetime import date

from nl2sql.reasoning.offline.words.scan import scan


def test_a_caller_changing_its_scan_changes_no_other_caller() -> None:
    question = "Top 5 invoices over 300 dollars from last month"
    first = scan(question, date(2024, 6, 15))
    first.taken.add(99)
    first.tokens.clear()
    first.nums.clear()
    again = scan(question, date(2024, 6, 15))
    assert 99 not in again.taken
    assert [t.text for t in again.tokens][:3] == ["Top", "5", "invoices"]
    assert [(n.op, n.value) for n in again.nums] == [(">", 300)]
    assert again.limit[0] == 5


def test_the_reference_date_is_part_of_the_key() -> None:
    question = "orders placed last month"
    june = scan(question, date(2024, 6, 15)).resolved
    march = scan(question, date(2024, 3, 2)).resolved
    assert [(d.start, d.end) for d in june] == [(date(2024, 5, 1), date(2024, 6, 1))]
    assert [(d.start, d.end) for d in march] == [(date(2024, 2, 1), date(2024, 3, 1))]
    assert scan(question).resolved == [] and scan(question).relative
