"""Leave-databases-out scoring and accepted alternative gold queries."""

from __future__ import annotations

import pytest

from nl2sql.eval.folds import NEVER, fit_threshold, in_sample, leave_databases_out, split, withheld
from nl2sql.eval.runner import QuestionRecord, run_benchmark
from nl2sql.eval.spider import load_questions


def record(db: str, confidence: float | None, correct: bool, answered: bool = True) -> QuestionRecord:
    return QuestionRecord(id=f"{db}-{confidence}-{correct}", db_id=db, question="q", hardness="easy",
                          gold="SELECT 1", status="success" if answered else "error",
                          answered=answered, correct=correct and answered, confidence=confidence)


def test_databases_are_split_reproducibly_and_a_bad_k_is_refused():
    assert split(["b", "a", "c", "a"], 3) == [["a"], ["b"], ["c"]]
    with pytest.raises(ValueError, match="between 2 and the number of databases"):
        split(["a", "b"], 3)


def test_the_threshold_is_the_lowest_that_reaches_the_target_precision():
    records = [record("a", 0.3, False), record("a", 0.5, False), record("a", 0.5, True),
               record("a", 0.9, True), record("a", 0.9, True), record("a", None, True)]
    assert fit_threshold(records, 0.75) == 0.5  # 4 right of 5 at ≥ 0.5
    assert fit_threshold(records, 0.9) == 0.9
    assert fit_threshold([record("a", 0.9, False)], 0.9) == NEVER
    left = withheld(records, 0.9)
    assert sum(r.answered for r in left) == 3 and sum(r.correct for r in left) == 3


def test_each_fold_is_scored_with_the_threshold_fitted_on_the_other_databases():
    # database "a": confident answers are right; "b": confident answers are wrong.
    records = [record("a", 0.9, True), record("a", 0.4, False), record("b", 0.9, False),
               record("b", 0.4, False), record("b", 0.2, True, answered=False)]
    fold_a, fold_b = leave_databases_out(records, 2, target=0.9)
    assert fold_a.databases == ("a",) and fold_a.threshold == NEVER  # fitted on b alone
    assert fold_a.withheld.answered == 0
    assert fold_b.threshold == 0.9  # fitted on a alone
    assert (fold_b.withheld.answered, fold_b.withheld.correct) == (1, 0)
    whole = in_sample(records, 0.9)
    assert whole.threshold == NEVER and whole.answered.answered == 4


def test_an_alternative_gold_query_counts_as_correct(tiny_spider, tmp_path):
    questions, databases = tiny_spider
    item = load_questions(questions)[1]  # titles and pages of books with more than 300 pages
    wrong_gold = item.model_copy(update={"query": "SELECT title FROM books WHERE pages > 300"})
    accepted = wrong_gold.model_copy(update={"id": "alt", "alternatives": (item.query,)})
    by_id = {r.id: r for r in run_benchmark([wrong_gold, accepted], databases)}
    assert by_id[item.id].answered and not by_id[item.id].correct
    assert by_id["alt"].correct and by_id["alt"].mismatch == ""


def test_query_alternatives_are_read_without_repeating_the_gold(tmp_path):
    path = tmp_path / "q.json"
    path.write_text('[{"db_id": "d", "question": "q", "query": "SELECT 1", '
                    '"query_alternatives": ["SELECT 1", "SELECT 1.0", "SELECT 1.0"]}]', encoding="utf-8")
    assert load_questions(path)[0].alternatives == ("SELECT 1.0",)
