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


def test_workers_start_with_the_pipeline_already_imported():
    # forked by a fork server that imported it once, not importing it again each (2.5 s of CPU)
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_all_start_methods

    from nl2sql.eval.runner import WORKER_PRELOAD, _pool_context

    context = _pool_context()
    if "forkserver" not in get_all_start_methods():
        assert context.get_start_method() == "spawn"
        return
    assert context.get_start_method() == "forkserver"
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        # a builtin runs in the worker (a function of this test module would need it importable)
        loaded = f"[m for m in {list(WORKER_PRELOAD)!r} if m in __import__('sys').modules]"
        assert pool.submit(eval, loaded).result() == list(WORKER_PRELOAD)


def _two_databases(tiny_spider):
    """The tiny questions over two copies of the database, interleaved: shelf, other, shelf, …"""
    import shutil

    questions, databases = tiny_spider
    other = databases / "other"
    other.mkdir()
    shutil.copy(databases / "shelf" / "shelf.sqlite", other / "other.sqlite")
    items = load_questions(questions)
    mixed = []
    for n, q in enumerate(items * 2):
        db = "other" if n % 2 else "shelf"
        mixed.append(q.model_copy(update={"id": f"{db}-{n}", "db_id": db}))
    return mixed, databases


def test_two_workers_keep_each_database_on_one_worker_and_the_question_order(tiny_spider):
    from nl2sql.eval.runner import by_database

    items, databases = _two_databases(tiny_spider)
    assert sorted(map(sorted, by_database(items))) == [[0, 2], [1, 3]]
    records = run_benchmark(items, databases, workers=2)
    assert [r.id for r in records] == [q.id for q in items]
    assert all(r.correct for r in records)


def test_a_database_with_more_than_an_even_share_is_split_among_workers(tiny_spider):
    from nl2sql.eval.runner import by_database

    [q] = load_questions(tiny_spider[0])[:1]
    dbs = ["bigDb"] * 7 + ["tbl_small"] * 2 + ["MidDB"] * 3
    items = [q.model_copy(update={"id": f"{db}-{n}", "db_id": db}) for n, db in enumerate(dbs)]
    two = by_database(items, workers=2)
    assert [len(g) for g in two] == [6, 3, 2, 1]  # an even share of 12 is 6
    assert sorted(p for g in two for p in g) == list(range(12))
    assert all(len({items[p].db_id for p in g}) == 1 for g in two)
    assert [len(g) for g in by_database(items)] == [7, 3, 2]  # one worker: whole databases


def test_a_new_session_is_warmed_up_before_its_first_timed_question(tiny_spider, monkeypatch):
    from nl2sql.eval.runner import WARMUP_TIMEOUT_S, Worker
    from nl2sql.session import Session

    questions, databases = tiny_spider
    items = load_questions(questions)
    timeouts = []
    ask = Session.ask
    monkeypatch.setattr(Session, "ask", lambda self, q, **kw: timeouts.append(kw["timeout_s"]) or ask(self, q, **kw))
    worker = Worker(databases, timeout_s=5.0)
    try:
        records = [worker.run(q) for q in items]
    finally:
        worker.close()
    assert timeouts == [WARMUP_TIMEOUT_S, 5.0, 5.0]  # one untimed warm-up, then each question
    assert all(r.correct for r in records)


def test_describe_answers_with_the_drafted_layer(tmp_path):
    import sqlite3

    folder = tmp_path / "database" / "yard"
    folder.mkdir(parents=True)
    con = sqlite3.connect(folder / "yard.sqlite")
    con.executescript(
        """
        CREATE TABLE owners (id INTEGER, full_name TEXT);
        CREATE TABLE boats (boat_id INTEGER, ownRef INTEGER, length_m REAL);
        INSERT INTO owners VALUES (1, 'Ann Lee'), (2, 'Bo Diaz'), (3, 'Cy Ng');
        INSERT INTO boats VALUES (10, 1, 7.5), (11, 1, 9.0), (12, 2, 6.0), (13, 3, 12.0);
        """
    )
    con.commit()
    con.close()
    questions = tmp_path / "questions.json"
    questions.write_text(json.dumps([{
        "id": "j", "db_id": "yard", "question": "How many boats does Ann Lee own?",
        "query": "SELECT count(*) FROM boats JOIN owners ON boats.ownRef = owners.id "
                 "WHERE owners.full_name = 'Ann Lee'"}]), encoding="utf-8")
    items = load_questions(questions)
    plain = run_benchmark(items, tmp_path / "database")
    described = run_benchmark(items, tmp_path / "database", describe=True)
    assert not plain[0].correct and plain[0].error_code == "PLANNING_FAILURE"
    assert described[0].correct, described[0]
