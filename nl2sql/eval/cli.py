"""`nl2sql bench spider` / `nl2sql bench demo`: run a Spider-format question set (a downloaded
benchmark, or the demo's questions laid out as one) through the pipeline and score it."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the runner imports pydantic and sqlglot: only when a benchmark runs
    from rich.console import Console

    from nl2sql.eval.runner import QuestionRecord
    from nl2sql.eval.spider import BenchQuestion


def add_bench_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `bench spider` and `bench demo` on the `nl2sql` command's sub-parsers."""
    bench = sub.add_parser("bench", help="measure the pipeline on a benchmark")
    kinds = bench.add_subparsers(dest="benchmark", required=True)
    spider = kinds.add_parser(
        "spider",
        help="Spider-format questions, scored with execution accuracy",
        description="Each question is asked through the pipeline on its SQLite database and "
        "its result compared with the gold query's (multiset of rows; order only when the gold "
        "has ORDER BY; column order and names ignored).",
    )
    spider.add_argument(
        "--questions", required=True, help="JSON list of {id, db_id, question, query}"
    )
    spider.add_argument(
        "--databases", required=True, help="folder of <db_id>/<db_id>.sqlite (or .duckdb)"
    )
    _add_run_options(spider)
    spider.add_argument("--db", action="append", help="only questions of this db_id (repeatable)")
    spider.add_argument("--limit", type=int, help="only the first N questions")
    spider.add_argument(
        "--folds", type=int, help="also score leave-databases-out: K groups of databases, each "
        "scored with the confidence threshold fitted on the others"
    )
    spider.add_argument(
        "--describe", action="store_true", help="draft a semantic layer for each database as "
        "`nl2sql describe` does, accept it unreviewed, and answer with it"
    )
    spider.add_argument(
        "--target-precision", type=float, default=0.9,
        help="precision the fitted confidence threshold aims at (default 0.9)",
    )
    demo = kinds.add_parser(
        "demo",
        help="the demo's questions as a Spider-format set, scored with execution accuracy",
        description="Writes the demo build as a Spider-format folder (questions.json and "
        "database/<db_id>/...) beside the demo cache, then scores it as `bench spider` does.",
    )
    demo.add_argument("--scale", type=float, default=1.0, help="demo data scale (default 1.0)")
    _add_run_options(demo)
    calibrate = kinds.add_parser(
        "calibrate",
        help="fit the offline planner's confidence on benchmark records (from --out)",
        description="Fits a logistic model of 'the answer is right' over the planner's evidence, "
        "reports held-out precision and coverage per record file at each threshold "
        "(leave-databases-out), and with --write stores the model fitted on every record as "
        "the package's calibration file. Records must come from runs with --min-confidence 0.",
    )
    calibrate.add_argument("records", nargs="+", help="JSON-lines record files (bench --out)")
    calibrate.add_argument("--folds", type=int, default=4, help="database groups (default 4)")
    calibrate.add_argument("--target-precision", type=float, default=0.9)
    calibrate.add_argument("--curve", metavar="SVG",
                           help="also draw the held-out calibration curve into this SVG file")
    calibrate.add_argument("--write", action="store_true",
                           help="store the fitted model in nl2sql/reasoning/offline/calibration.json")


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    """The options of how questions are asked, common to every benchmark."""
    parser.add_argument("--model", help="model spec for every node (default: offline)")
    parser.add_argument(
        "--out", help="write one JSON record per question to this file (JSON lines)"
    )
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--timeout", type=float, default=30.0, help="per-question timeout (s)")
    parser.add_argument(
        "--min-confidence", type=float,
        help="the min_confidence setting of the runs (default: the setting's own; 0 answers "
        "every planned question, which is what calibration records need)",
    )


def run_bench(console: Console, args: argparse.Namespace) -> int:
    """Run the benchmark the arguments describe; 0 once every question is scored (a question's
    own failure is part of the figures, not of the exit code)."""
    from nl2sql.eval.spider import load_questions

    if args.benchmark == "calibrate":
        from nl2sql.eval.calibration import run_calibrate

        return run_calibrate(console, args.records, args.folds, args.target_precision, args.write,
                             args.curve)
    if args.benchmark == "demo":
        from nl2sql.eval.demo import build_demo_benchmark

        bench = build_demo_benchmark(scale=args.scale)
        console.print(f"the demo as a Spider-format benchmark: {bench.questions.parent}")
        questions = load_questions(bench.questions)
        _score(console, questions, bench.databases, args, str(bench.questions), bench.settings)
    else:
        questions = load_questions(args.questions)
        if args.db:
            questions = [q for q in questions if q.db_id in set(args.db)]
        if args.limit is not None:
            questions = questions[: args.limit]
        if not Path(args.databases).is_dir():
            raise ValueError(f"--databases {args.databases} is not a folder")
        if args.folds:
            from nl2sql.eval.folds import split

            split([q.db_id for q in questions], args.folds)  # a bad K before any question runs
        records = _score(console, questions, Path(args.databases), args, args.questions)
        if args.folds:
            from nl2sql.eval.folds import render_folds

            render_folds(console, records, args.folds, args.target_precision)
    if args.out:
        console.print(f"per-question records: {args.out}")
    return 0


def _score(
    console: Console,
    questions: list[BenchQuestion],
    databases: Path,
    args: argparse.Namespace,
    title: str,
    settings: dict[str, Any] | None = None,
) -> list[QuestionRecord]:
    """Ask and score the questions, write the records (`--out`) and print the figures."""
    from nl2sql.eval.report import render

    started = time.perf_counter()
    records = _run_with_progress(console, questions, databases, args, settings)
    seconds = time.perf_counter() - started
    if args.out:
        _write(Path(args.out), records)
    render(console, records, seconds, title=f"execution accuracy — {title}")
    return records


def _run_with_progress(
    console: Console,
    questions: list[BenchQuestion],
    databases: Path,
    args: argparse.Namespace,
    settings: dict[str, Any] | None,
) -> list[QuestionRecord]:
    """Run the questions with a progress bar showing the running counts."""
    from rich.progress import MofNCompleteColumn, Progress, TimeElapsedColumn

    from nl2sql.eval.runner import run_benchmark

    counts = {"correct": 0, "answered": 0}
    columns = (*Progress.get_default_columns()[:2], MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task("questions", total=len(questions))

        def done(record: QuestionRecord) -> None:
            counts["correct"] += record.correct
            counts["answered"] += record.answered
            progress.update(
                task,
                advance=1,
                description=f"correct {counts['correct']} · answered {counts['answered']}",
            )

        if args.min_confidence is not None:
            settings = {**(settings or {}), "min_confidence": args.min_confidence}
        return run_benchmark(
            questions,
            databases,
            model=args.model,
            workers=max(1, args.workers),
            timeout_s=args.timeout,
            settings=settings,
            on_done=done,
            describe=getattr(args, "describe", False),  # `bench spider` only
        )


def _write(path: Path, records: list[QuestionRecord]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for r in records:
            fh.write(r.model_dump_json() + "\n")
