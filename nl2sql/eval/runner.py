"""The benchmark runner: every question through the real pipeline, scored against its gold result.

Each worker process opens one Session per database it meets (`nl2sql.connect` on the SQLite or
DuckDB file, with a private project folder and the benchmark's own settings, e.g. a reference date) and keeps it for the following questions of that database; a new
Session answers one untimed warm-up question first, so the first timed question of a worker does
not pay for the imports and indexes of the first run. With several workers, each database's
questions go to one worker as a whole (largest first), so a database is opened once, unless it
holds more than an even share of the questions: it is then split among workers. A
question is asked, its result table compared with the gold query's result (`metric.py`); any
failure — of the pipeline, the gold query or the harness — is recorded on that question and the
run goes on.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_all_start_methods, get_context
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from nl2sql.errors import safe_one_line
from nl2sql.eval.metric import order_matters, results_match
from nl2sql.eval.spider import BenchQuestion, database_path, run_gold
from nl2sql.names import AST_PLANNER

if TYPE_CHECKING:
    from nl2sql.session import Session

ROW_CAP = 100_000  # far above any gold result: a capped prediction would be scored as wrong
#: What every worker imports for its first question (2.5 s of CPU, most of a worker's start):
#: imported once by the pool's fork server, which forks each worker with them loaded.
WORKER_PRELOAD = (
    "nl2sql.wiring", "nl2sql.conversation", "nl2sql.pipeline.graph", "nl2sql.pipeline.runtime",
    "nl2sql.retrieval.exact", "nl2sql.reasoning.offline.engine", "nl2sql.eval.runner",
    "nl2sql.eval.metric", "sqlglot.dialects.sqlite",
)
#: The warm-up run's timeout: it imports and builds what every later run reuses, untimed.
WARMUP_TIMEOUT_S = 300.0


class QuestionRecord(BaseModel):
    """The outcome of one benchmark question (one line of `--out`)."""

    id: str
    db_id: str
    question: str
    hardness: str
    gold: str
    predicted: str | None = None
    status: str  # success | error | not_answerable | needs_approval | needs_clarification | harness_error
    error_code: str | None = None
    error_message: str | None = None
    answered: bool = False
    correct: bool = False
    mismatch: str = ""  # why an answered question is wrong
    gold_rows: int | None = None
    predicted_rows: int | None = None
    confidence: float | None = None
    evidence: dict[str, float] = {}  # the planner's evidence behind the confidence
    reasoning: str | None = None
    candidates: int = 0  # readings offered (status needs_clarification)
    clarification_hit: bool = False  # one of them gives the gold result
    seconds: float = 0.0


class Worker:
    """Answers questions of any database, one Session per database, opened on first use."""

    def __init__(
        self,
        databases: str | Path,
        model: str | None = None,
        timeout_s: float = 30.0,
        settings: Mapping[str, Any] | None = None,
        describe: bool = False,
    ):
        self.databases = Path(databases)
        self.model = model
        self.timeout_s = timeout_s
        self.settings = dict(settings or {})
        self.describe = describe  # answer with the layer `nl2sql describe` drafts, unreviewed
        self._sessions: dict[str, Session] = {}
        self._folder = tempfile.TemporaryDirectory(prefix="nl2sql-bench-")

    def session(self, db_id: str, warm_up: str | None = None) -> Session:
        """The Session of `db_id`, opened once; a new one first answers `warm_up` (untimed, the
        answer thrown away), so the first scored question is not the one that warms it."""
        if db_id not in self._sessions:
            from nl2sql.wiring import connect

            path = database_path(self.databases, db_id)
            sources = {db_id: f"{path.suffix.lstrip('.')}:///{path}"}  # sqlite or duckdb
            settings = {
                **self.settings,
                "project_dir": str(Path(self._folder.name) / db_id),
                "row_cap": ROW_CAP,
                "pipeline_timeout_s": self.timeout_s,
            }
            layer = self._described(db_id, sources, settings) if self.describe else None
            session = self._sessions[db_id] = connect(
                sources=sources, models=self.model, settings=settings, semantic=layer)
            if warm_up:
                session.ask(warm_up, timeout_s=max(self.timeout_s, WARMUP_TIMEOUT_S))
        return self._sessions[db_id]

    def _described(self, db_id: str, sources: dict[str, str], settings: dict[str, Any]) -> Path:
        """Draft the database's layer as `nl2sql describe` does; the file, accepted unreviewed."""
        from nl2sql.semantic.describe import draft_file
        from nl2sql.wiring import connect

        plain = connect(sources=sources, settings=settings, semantic={})
        try:
            text, _ = draft_file(plain.context.datasources[db_id], plain.context.schemas.get(db_id))
        finally:
            plain.close()
        path = Path(self._folder.name) / db_id / "semantic.yaml"
        path.write_text(text, encoding="utf-8")
        return path

    def run(self, q: BenchQuestion) -> QuestionRecord:
        """Ask one question and score it; never raises."""
        started = time.perf_counter()
        record = QuestionRecord(
            id=q.id,
            db_id=q.db_id,
            question=q.question,
            hardness=q.hardness,
            gold=q.query,
            status="harness_error",
        )
        try:
            session = self.session(q.db_id, warm_up=q.question)
            started = time.perf_counter()  # the warm-up is not this question's time
            gold = run_gold(database_path(self.databases, q.db_id), q.query, self.timeout_s)
            record.gold_rows = len(gold)
            result = session.ask(q.question, timeout_s=self.timeout_s)
            _fill(record, result, gold, q.query)
            if record.answered and not record.correct and q.alternatives:
                self._match_alternatives(record, result, q)
            if result.status == "needs_clarification":
                self._try_candidates(record, result, gold, q)
        except Exception as exc:  # a harness or gold failure is this question's outcome only
            record.status = "harness_error"
            record.error_code = type(exc).__name__
            record.error_message = safe_one_line(exc, 300)
        record.seconds = round(time.perf_counter() - started, 3)
        return record

    def _match_alternatives(self, record: QuestionRecord, result: Any, q: BenchQuestion) -> None:
        """Any other accepted gold query that the prediction matches makes it correct."""
        rows = _rows(result)
        for sql in q.alternatives:
            gold = run_gold(database_path(self.databases, q.db_id), sql, self.timeout_s)
            if results_match(gold, rows, ordered=order_matters(sql)).correct:
                record.correct, record.mismatch = True, ""
                return

    def _try_candidates(self, record: QuestionRecord, result: Any, gold: list[tuple[Any, ...]],
                        q: BenchQuestion) -> None:
        """Run each offered reading as a user choosing it would: a hit when one gives the gold
        result (or an accepted alternative's)."""
        record.candidates = len(result.candidates)
        golds = [(gold, q.query)] + [
            (run_gold(database_path(self.databases, q.db_id), sql, self.timeout_s), sql)
            for sql in q.alternatives
        ]
        for number in range(1, record.candidates + 1):
            chosen = result.choose(number)
            if chosen.status != "success":
                continue
            rows = _rows(chosen)
            if any(results_match(g, rows, ordered=order_matters(sql)).correct for g, sql in golds):
                record.clarification_hit = True
                return

    def close(self) -> None:
        for session in self._sessions.values():
            session.close()
        self._sessions.clear()
        self._folder.cleanup()


def _fill(record: QuestionRecord, result: Any, gold: list[tuple[Any, ...]], gold_sql: str) -> None:
    record.status = result.status
    record.predicted = result.sql
    planner = [r for r in result.reasoning if r.get("node") == AST_PLANNER]
    if planner:
        record.reasoning = str(planner[-1].get("content", ""))[:500]
        record.confidence = planner[-1].get("confidence")
        record.evidence = dict(planner[-1].get("evidence") or {})
    if result.status != "success":
        first = result.errors[0] if result.errors else None
        record.error_code = str(first.error_code.value) if first else None
        record.error_message = first.message if first else None
        return
    rows = _rows(result)
    record.answered = True
    record.predicted_rows = len(rows)
    match = results_match(gold, rows, ordered=order_matters(gold_sql))
    record.correct, record.mismatch = match.correct, match.reason


def _rows(result: Any) -> list[tuple[Any, ...]]:
    table = result.table()
    return list(zip(*[c.to_pylist() for c in table.columns], strict=True)) if table else []


# --- process pool -------------------------------------------------------------------------------
_WORKER: Worker | None = None  # the worker of this process (set by the pool's initializer)


def _init_process(
    databases: str, model: str | None, timeout_s: float, settings: dict[str, Any], describe: bool
) -> None:
    global _WORKER
    _WORKER = Worker(databases, model, timeout_s, settings, describe)


def _run_in_process(questions: list[BenchQuestion]) -> list[QuestionRecord]:
    assert _WORKER is not None, "the pool initializer did not run"
    return [_WORKER.run(q) for q in questions]


def by_database(questions: Sequence[BenchQuestion], workers: int = 1) -> list[list[int]]:
    """Positions of the questions grouped by database, the largest group first (so the last
    groups handed out are small and the workers finish together).

    With several workers no group is larger than an even share (`len / workers`, rounded up):
    a database holding most of the questions is split, and each worker that gets a part opens
    and warms its own Session for it, rather than one worker answering it alone."""
    groups: dict[str, list[int]] = {}
    for pos, q in enumerate(questions):
        groups.setdefault(q.db_id, []).append(pos)
    share = max(1, -(-len(questions) // max(1, workers)))
    parts = [g[i:i + share] for g in groups.values() for i in range(0, len(g), share)]
    return sorted(parts, key=len, reverse=True)


def run_benchmark(
    questions: Sequence[BenchQuestion],
    databases: str | Path,
    *,
    model: str | None = None,
    workers: int = 1,
    timeout_s: float = 30.0,
    settings: Mapping[str, Any] | None = None,
    on_done: Callable[[QuestionRecord], None] | None = None,
    describe: bool = False,
) -> list[QuestionRecord]:
    """Answer and score every question; records come back in the questions' order.

    `settings` are given to every Session (e.g. the `reference_date` of relative dates); the
    runner's own (project folder, row cap, timeout) win over them.
    """
    notify = on_done or (lambda _r: None)
    if workers <= 1:
        worker = Worker(databases, model, timeout_s, settings, describe)
        try:
            return [_tap(worker.run(q), notify) for q in questions]
        finally:
            worker.close()
    records: dict[int, QuestionRecord] = {}
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=_pool_context(),
        initializer=_init_process,
        initargs=(str(databases), model, timeout_s, dict(settings or {}), describe),
    ) as pool:
        # A database's questions stay on one worker (unless they are more than an even share):
        # its Session is opened and warmed once.
        futures = {pool.submit(_run_in_process, [questions[p] for p in group]): group
                   for group in by_database(questions, workers)}
        for future in as_completed(futures):
            for pos, record in zip(futures[future], future.result(), strict=True):
                records[pos] = _tap(record, notify)
    return [records[pos] for pos in range(len(questions))]


def _pool_context() -> BaseContext:
    """Workers forked by a fork server that imported `WORKER_PRELOAD` (spawn where there is
    none). Never a plain fork of this process: it may run threads (the progress bar) that a
    fork would copy mid-lock; the fork server is a fresh single-threaded process."""
    if "forkserver" not in get_all_start_methods():
        return get_context("spawn")
    context = get_context("forkserver")
    context.set_forkserver_preload(list(WORKER_PRELOAD))
    return context


def _tap(record: QuestionRecord, notify: Callable[[QuestionRecord], None]) -> QuestionRecord:
    notify(record)
    return record
