"""Benchmark figures: accuracy, coverage and precision, overall, per level and non-empty gold."""

from __future__ import annotations

from rich.console import Console

from nl2sql.eval.report import by_level, reason_of, render, top_reasons
from nl2sql.eval.runner import QuestionRecord


def _record(i, hardness, answered, correct, gold_rows=1, **kw):
    return QuestionRecord(
        id=f"q{i}", db_id="d", question="?", hardness=hardness, gold="SELECT 1",
        status="success" if answered else "error", answered=answered, correct=correct,
        gold_rows=gold_rows, **kw,
    )  # fmt: skip


RECORDS = [
    _record(0, "easy", True, True),
    _record(1, "easy", True, False, mismatch="row count 3, expected 1"),
    _record(2, "medium", False, False, error_code="PLANNING_FAILURE",
            error_message="could not plan: 'frob' matches no table, column or stored value"),
    _record(3, "medium", True, True, gold_rows=0),
]  # fmt: skip


def test_accuracy_coverage_and_precision_per_level():
    figures = by_level(RECORDS)
    assert list(figures) == ["easy", "medium", "all"]
    overall = figures["all"]
    assert (overall.accuracy, overall.coverage, overall.precision) == (0.5, 0.75, 2 / 3)
    assert figures["medium"].precision == 1.0 and figures["medium"].coverage == 0.5


def test_non_empty_gold_figures_leave_out_empty_gold_results():
    overall = by_level(RECORDS, non_empty=True)["all"]
    assert (overall.total, overall.correct, overall.answered) == (3, 1, 2)


def test_reasons_group_refusals_and_wrong_answers():
    assert reason_of(RECORDS[2]) == (
        "PLANNING_FAILURE: could not plan: '…' matches no table, column or stored value"
    )
    refused, wrong = top_reasons(RECORDS)
    assert refused == [(reason_of(RECORDS[2]), 1)] and wrong == [("row count N, expected N", 1)]


def test_render_prints_the_table_and_the_reasons():
    console = Console(record=True, width=120)
    render(console, RECORDS, 2.0, title="tiny")
    text = console.export_text()
    assert "tiny" in text and "50.0%" in text and "66.7%" in text
    assert "most common reasons for not answering" in text and "row count N, expected N" in text
