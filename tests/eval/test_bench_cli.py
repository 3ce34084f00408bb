"""`nl2sql bench spider` on a tiny hand-made Spider-format folder, and the runner behind it."""

from __future__ import annotations

import json

from nl2sql.cli.main import main
from nl2sql.eval.runner import run_benchmark
from nl2sql.eval.spider import BenchQuestion, load_questions


def test_bench_spider_scores_each_question_and_writes_records(tiny_spider, tmp_path, capsys):
    questions, databases = tiny_spider
    out = tmp_path / "records.jsonl"
    code = main(
        ["bench", "spider", "--questions", str(questions), "--databases", str(databases),
         "--out", str(out)]
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0
    assert "execution accuracy" in printed and "100.0%" in printed
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in records] == ["tiny-0", "q1"]
    for r in records:
        assert r["status"] == "success" and r["answered"] and r["correct"]
        assert r["gold"] and r["predicted"].startswith("SELECT") and r["error_code"] is None
    assert records[1]["gold_rows"] == records[1]["predicted_rows"] == 2


def test_a_failing_question_does_not_stop_the_run(tiny_spider):
    questions, databases = tiny_spider
    items = load_questions(questions)
    broken = BenchQuestion(
        id="x", db_id="nowhere", question="How many books?", query="SELECT 1", hardness="easy"
    )
    refused = items[0].model_copy(update={"id": "r", "question": "Frobnicate the books sideways"})
    records = run_benchmark([broken, refused, *items], databases)
    by_id = {r.id: r for r in records}
    assert by_id["x"].status == "harness_error" and by_id["x"].error_code == "FileNotFoundError"
    assert not by_id["r"].answered and by_id["r"].error_code == "PLANNING_FAILURE"
    assert "Frobnicate" in by_id["r"].error_message
    assert by_id["tiny-0"].correct and by_id["q1"].correct


def test_worker_processes_give_the_same_records_in_question_order(tiny_spider):
    questions, databases = tiny_spider
    items = load_questions(questions)
    records = run_benchmark(items, databases, workers=2)
    assert [r.id for r in records] == ["tiny-0", "q1"] and all(r.correct for r in records)
