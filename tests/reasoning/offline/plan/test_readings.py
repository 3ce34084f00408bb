"""The planner's evidence, its calibrated confidence, and the other readings it can offer."""

from __future__ import annotations

from nl2sql.reasoning.offline import confidence
from nl2sql.reasoning.offline.catalog.index import build_index
from nl2sql.reasoning.offline.plan.planner import plan_question
from nl2sql.reasoning.offline.plan.readings import MAX_CANDIDATES, readings

from ..conftest import library_snapshot

IDX = build_index(library_snapshot())


def test_evidence_names_how_the_words_were_read():
    out = plan_question("How many books are there?", IDX)
    assert out.evidence["tables"] == 1 and out.evidence["shape_count"] == 1
    assert out.evidence["margin"] == 1.0 and out.evidence["inferred_joins"] == 0
    joined = plan_question("What is the total fee of loans per district?", IDX)
    assert joined.evidence["tables"] > 1 and joined.evidence["fan_out"] in (0.0, 1.0)
    for o in (out, joined):
        assert 0 < o.confidence <= o.evidence["heuristic"]  # never above the rule-based score


def test_without_a_calibration_file_the_rule_based_score_is_the_confidence(monkeypatch):
    monkeypatch.setattr(confidence, "_model", lambda: None)
    out = plan_question("How many books are there?", IDX)
    assert out.confidence == out.evidence["heuristic"]


def test_a_word_two_tables_could_mean_is_refused_with_a_reading_for_each():
    text = "Which names are there?"  # authors.name … or the name of another table
    base = plan_question(text, IDX)
    found = readings(text, base, IDX, {}, None)
    if base.plan is None:
        assert "could mean" in base.reasoning
    assert 2 <= len(found) <= MAX_CANDIDATES
    assert len({r.plan.model_dump_json() for r in found}) == len(found)  # each plan once
    assert all(r.description and 0 < r.confidence <= 0.95 for r in found)


def test_the_planners_own_reading_comes_first_and_says_what_it_computes():
    text = "How many books are there per genre?"
    base = plan_question(text, IDX)
    (first, *_) = readings(text, base, IDX, {}, None)
    assert first.plan == base.plan and first.confidence == base.confidence
    assert first.description == "count of books per books.genre, highest count of books first"


def test_a_bare_number_is_read_once_by_every_reading():
    # each reading of the question starts from the scan as it was: the bare number "320" is one
    # cue of each, not one more per reading (which refused every reading after the first)
    text = "Which books have pages 320?"
    base = plan_question(text, IDX)
    assert base.plan is not None
    found = readings(text, base, IDX, {}, None)
    assert found and found[0].plan == base.plan
    again = plan_question(text, IDX)
    assert again.plan == base.plan and again.confidence == base.confidence
    assert [c.value for c in base.scan.nums] == []  # the scan kept is the one scanned
