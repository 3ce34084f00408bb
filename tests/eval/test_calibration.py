"""Fitting the offline confidence: the logistic model, its sign guards, out-of-fold scores, the
threshold choice, the `bench calibrate` command, and the clarification hit rate of `bench spider`."""

from __future__ import annotations

import json
import sqlite3

import pytest

from nl2sql.cli.main import main
from nl2sql.eval import calibration as C
from nl2sql.eval.runner import QuestionRecord
from nl2sql.reasoning.offline import confidence


def record(db: str, n: int, evidence: dict[str, float], correct: bool) -> QuestionRecord:
    return QuestionRecord(id=f"{db}-{n}", db_id=db, question="q", hardness="easy", gold="SELECT 1",
                          status="success", answered=True, correct=correct, confidence=0.9,
                          evidence=evidence)


def _records() -> list[QuestionRecord]:
    """Four databases where a weak link makes an answer wrong twice as often as not."""
    out = []
    for db in ("a", "b", "c", "d"):
        for n in range(12):
            weak = float(n % 2)
            correct = not weak or n % 6 == 1  # weak: right 2 times of 6; strong: always right
            out.append(record(db, n, {"heuristic": 0.95, "weak_links": weak, "margin": 1.0}, correct))
    return out


def test_the_fitted_model_lowers_the_odds_of_the_weak_evidence():
    model = C.fit(_records())
    strong = confidence.score(model, {"heuristic": 0.95, "weak_links": 0.0, "margin": 1.0})
    weak = confidence.score(model, {"heuristic": 0.95, "weak_links": 1.0, "margin": 1.0})
    assert weak < 0.5 < strong <= 0.95  # never above the rule-based score


def test_evidence_fitted_with_the_sign_its_meaning_forbids_is_left_out():
    # here an ambiguous join path happens to come with right answers: noise, not knowledge
    records = [record("a", n, {"ambiguous_join": float(n % 2), "weak_links": float(n % 3 == 0)},
                      correct=bool(n % 2) or n % 3 != 0) for n in range(30)]
    model = C.fit(records)
    assert "ambiguous_join" not in model["features"] and "weak_links" in model["features"]
    assert "values_close" not in C.fit([r.model_copy(update={"evidence": {
        **r.evidence, "values_close": 1.0}}) for r in records])["features"]


def test_too_few_or_one_sided_records_are_refused_in_one_line():
    with pytest.raises(ValueError, match="at least 10 answered records"):
        C.fit(_records()[:5])
    with pytest.raises(ValueError, match="right and wrong"):
        C.fit([record("a", n, {"margin": 1.0}, True) for n in range(20)])


def test_out_of_fold_scores_come_from_models_fitted_without_the_records_databases(monkeypatch):
    fitted_on: list[set[str]] = []
    real_fit = C.fit

    def spy(records):
        fitted_on.append({r.db_id for r in records})
        return real_fit(records)

    monkeypatch.setattr(C, "fit", spy)
    records = _records()
    scored = C.out_of_fold(records, 2)
    assert [r.id for r in scored] == [r.id for r in records]
    assert fitted_on == [{"b", "d"}, {"a", "c"}]  # split() deals sorted ids round-robin
    assert all(0 < r.confidence < 1 for r in scored)


def test_out_of_fold_keeps_records_of_two_files_that_share_question_ids():
    # a reworded copy of a set keeps its question ids: each record keeps its own place
    originals = _records()
    copies = [r.model_copy(update={"correct": not r.correct, "question": "reworded"})
              for r in originals]
    scored = C.out_of_fold(originals + copies, 2)
    assert [r.question for r in scored] == ["q"] * len(originals) + ["reworded"] * len(copies)
    assert [r.correct for r in scored] == [r.correct for r in originals + copies]


def test_the_threshold_is_the_lowest_that_reaches_the_target_on_every_set():
    one = [record("a", n, {}, correct=n > 1).model_copy(update={"confidence": n / 10})
           for n in range(10)]
    assert C.precision_at(one, 0.2) == (1.0, 0.8)
    assert C.choose_min_confidence([one], 0.9) == 0.15  # 0.10 keeps a wrong one: 8 of 9
    assert C.choose_min_confidence([one, [record("b", 0, {}, False)]], 0.9) == 0.95  # never met


def test_bench_calibrate_reports_held_out_figures_and_writes_the_model(tmp_path, capsys,
                                                                        monkeypatch):
    files = []
    for half, dbs in (("one", ("a", "b")), ("two", ("c", "d"))):
        path = tmp_path / f"{half}.jsonl"
        path.write_text("".join(r.model_dump_json() + "\n" for r in _records()
                                if r.db_id in dbs), encoding="utf-8")
        files.append(str(path))
    svg = tmp_path / "curve.svg"
    assert main(["bench", "calibrate", *files, "--folds", "2", "--curve", str(svg)]) == 0
    printed = capsys.readouterr().out
    assert "one.jsonl" in printed and "two.jsonl" in printed and "min_confidence" in printed
    assert svg.read_text(encoding="utf-8").startswith("<svg") and "<circle" in svg.read_text()
    monkeypatch.setattr(confidence, "__file__", str(tmp_path / "confidence.py"))
    assert main(["bench", "calibrate", *files, "--folds", "2", "--write"]) == 0
    stored = json.loads((tmp_path / confidence.CALIBRATION_FILE).read_text(encoding="utf-8"))
    assert stored["records"] == 48 and "weak_links" in stored["features"]


def test_bench_counts_a_clarification_as_not_answered_and_measures_its_hit_rate(tmp_path, capsys):
    folder = tmp_path / "database" / "till"
    folder.mkdir(parents=True)
    with sqlite3.connect(folder / "till.sqlite") as con:
        con.executescript("""
            CREATE TABLE products (product_id INTEGER PRIMARY KEY, title TEXT, price REAL);
            CREATE TABLE sales (sale_id INTEGER PRIMARY KEY,
                product_id INTEGER REFERENCES products(product_id), price REAL);
            INSERT INTO products VALUES (1, 'pen', 2), (2, 'ink', 4);
            INSERT INTO sales VALUES (1, 1, 1), (2, 2, 3), (3, 2, 3.5);
        """)
    questions = tmp_path / "q.json"
    questions.write_text(json.dumps([{"db_id": "till", "question": "What is the average price?",
                                      "query": "SELECT avg(price) FROM products"}]))
    out = tmp_path / "records.jsonl"
    assert main(["bench", "spider", "--questions", str(questions), "--databases",
                 str(tmp_path / "database"), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    (rec,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert rec["status"] == "needs_clarification" and not rec["answered"]
    assert rec["candidates"] == 2 and rec["clarification_hit"] is True
    assert "clarification hit rate 100.0%" in printed
