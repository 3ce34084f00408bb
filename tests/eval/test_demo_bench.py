"""The demo's questions as a Spider-format benchmark: `build_demo_benchmark` and `nl2sql bench demo`."""

from __future__ import annotations

import json

import pytest

from nl2sql.cli.main import main
from nl2sql.demo.questions import DEMO_QUESTIONS
from nl2sql.eval.demo import build_demo_benchmark
from nl2sql.eval.runner import run_benchmark
from nl2sql.eval.spider import database_path, load_questions, run_gold

SMALL = 0.05  # builds in a fraction of a second


@pytest.fixture
def demo_cache(tmp_path, monkeypatch):
    """A demo cache folder of this test's own."""
    monkeypatch.setenv("NL2SQL_DEMO_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_the_single_source_demo_questions_are_written_in_spiders_layout(demo_cache):
    bench = build_demo_benchmark(scale=SMALL)
    assert bench.questions == demo_cache / "benchmark-scale-0.05" / "questions.json"
    assert bench.settings == {"reference_date": "2025-06-30"}
    questions = load_questions(bench.questions)
    single = [q for q in DEMO_QUESTIONS if q.expect_status == "success" and len(q.references) == 1]
    assert [q.question for q in questions] == [q.question for q in single]
    assert len(questions) == len(DEMO_QUESTIONS) - 2  # the compare and the refusal stay out
    assert {q.db_id for q in questions} == {"warehouse", "crm"}
    assert database_path(bench.databases, "warehouse").suffix == ".duckdb"
    assert database_path(bench.databases, "crm").suffix == ".sqlite"
    for q in questions:  # every gold query runs on its own database and finds rows
        assert run_gold(database_path(bench.databases, q.db_id), q.query), q.query


def test_building_again_rewrites_the_same_folder(demo_cache, tmp_path):
    first = build_demo_benchmark(tmp_path / "mine", scale=SMALL)
    text = first.questions.read_text(encoding="utf-8")
    first.questions.write_text("[]", encoding="utf-8")
    again = build_demo_benchmark(tmp_path / "mine", scale=SMALL)
    assert again == first and again.questions.read_text(encoding="utf-8") == text
    assert sorted(p.name for p in (tmp_path / "mine").rglob("*") if p.is_file()) == [
        "crm.sqlite", "questions.json", "warehouse.duckdb",
    ]  # fmt: skip


def test_relative_dates_are_scored_at_the_demos_reference_date(demo_cache):
    bench = build_demo_benchmark(scale=SMALL)
    [relative] = [q for q in load_questions(bench.questions) if "last 30 days" in q.question]
    [pinned] = run_benchmark([relative], bench.databases, settings=bench.settings)
    assert pinned.correct
    [today] = run_benchmark([relative], bench.databases)  # today is past the demo's last order
    assert today.answered and not today.correct


def test_bench_demo_scores_every_question_and_writes_records(demo_cache, tmp_path, capsys):
    out = tmp_path / "records.jsonl"
    assert main(["bench", "demo", "--scale", str(SMALL), "--out", str(out)]) == 0
    printed = "".join(capsys.readouterr().out.split())  # rich wraps long paths
    assert str(demo_cache / "benchmark-scale-0.05") in printed and "executionaccuracy" in printed
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(records) == len(DEMO_QUESTIONS) - 2
    assert all(r["correct"] for r in records), [r for r in records if not r["correct"]]


def test_bench_demo_refuses_a_bad_scale_in_one_line(demo_cache, capsys):
    assert main(["bench", "demo", "--scale", "0"]) != 0
    err = capsys.readouterr().err
    assert "scale must be a positive number" in err and len(err.strip().splitlines()) == 1
