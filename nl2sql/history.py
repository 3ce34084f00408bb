"""The run history of a project: every run's question, status, SQL, timings and trace id.

`session.history` lists the runs, oldest first, including those of earlier sessions on the same
project folder (`<project>/history.jsonl`, one JSON line per run, appended). An entry keeps what
identifies and explains a run, never its rows (only their count) nor anything secret: the
question, status, datasource, SQL, row count, seconds, trace id, the run it follows and what
changed, the first error, and the plan of a one-query run (so a later session can run it again).

`session.history[i]` is a `HistoryRun`: `.open()` gives its QueryResult (this session's run as it
was; a run of an earlier session is run again on its recorded plan), `.rerun()` runs it again.
Run numbers start at 1 and never repeat: run N is `session.history.run(N)`.
"""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from collections.abc import Iterator
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from nl2sql.errors import mask_url_passwords, safe_one_line
from nl2sql.files import FILE_MODE, private_dir

if TYPE_CHECKING:
    import pandas as pd

    from nl2sql.result import QueryResult
    from nl2sql.session import Session

#: Runs of this session kept in memory for `open()` (older ones run again from their plan) and
#: for follow-ups to follow (each holds its result tables).
KEEP_RESULTS = 20
THREAD_RUNS = KEEP_RESULTS
_COLUMNS = ("run", "question", "status", "rows", "seconds", "follows", "datasource", "trace_id")


class HistoryEntry(BaseModel):
    """One run as recorded (no rows, no secrets)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    number: int
    question: str
    status: str
    datasource: str | None = None
    sql: str | None = None
    row_count: int | None = None
    seconds: float = 0.0
    trace_id: str
    asked_at: str
    executed: bool = True
    follow_up_of: int | None = None
    edits: list[str] = Field(default_factory=list)
    error: str | None = None
    plan: dict[str, Any] | None = None

    @classmethod
    def of(cls, number: int, result: QueryResult) -> HistoryEntry:
        table = result.table() if result.executed and result.status == "success" else None
        first = result.first_error
        plans = [o.plan for o in result.sub_queries if o.plan is not None]
        sources = [o.sub_query.datasource_id for o in result.sub_queries if o.sub_query is not None]
        follow = result.follow_up
        return cls(
            number=number, question=result.question, status=result.status,
            datasource=sources[0] if len(set(sources)) == 1 else result.datasource,
            sql=result.sql, row_count=table.num_rows if table is not None else None,
            seconds=round(result.timings.get("total_s", 0.0), 3), trace_id=result.trace_id,
            asked_at=datetime.now(UTC).isoformat(timespec="seconds"),
            executed=result.executed, follow_up_of=follow.parent if follow else None,
            edits=list(follow.edits) if follow else [],
            error=(mask_url_passwords(f"{first.error_code.value}: {safe_one_line(first.message, 300)}")
                   if first is not None else None),
            plan=plans[0].model_dump(mode="json") if len(plans) == 1 and len(result.sub_queries) == 1
            else None,
        )


class HistoryRun:
    """A history entry of a session, with the two actions on it."""

    def __init__(self, entry: HistoryEntry, session: Session):
        self.entry = entry
        self.session = session

    def __getattr__(self, name: str) -> Any:
        return getattr(self.entry, name)

    def open(self) -> QueryResult:
        """The run's QueryResult: as it was when this session ran it; a run of an earlier session
        runs again on its recorded plan (or its question, when it recorded none)."""
        kept = self.session.history.kept(self.entry.trace_id)
        return kept if kept is not None else self.rerun()

    def rerun(self) -> QueryResult:
        """Run it again: on its recorded plan when it has one, else by asking its question afresh."""
        e = self.entry
        if e.plan is not None:
            return self.session.ask(e.question, datasource=e.datasource, execute=e.executed,
                                    plan=e.plan, follow_up=False)
        return self.session.ask(e.question, datasource=e.datasource, execute=e.executed, follow_up=False)

    def __repr__(self) -> str:
        return f"HistoryRun(run={self.entry.number}, status={self.entry.status!r}, question={self.entry.question!r})"


class History:
    """The project's runs, oldest first; a list of `HistoryRun`s with a table repr."""

    def __init__(self, session: Session, path: Path):
        self.session = session
        self.path = Path(path)
        self._lock = threading.Lock()
        self._results: OrderedDict[str, QueryResult] = OrderedDict()
        # (inode, size, mtime_ns, lines) of the file as this session's last append left it
        self._known: tuple[int, int, int, int] | None = None

    def record(self, result: QueryResult) -> int:
        """Append `result` as the next run; returns its run number. A history file that cannot
        be written never fails the run: the run keeps number 0 (not recorded)."""
        with self._lock:
            number = self._lines() + 1  # a damaged line keeps its number: numbers never repeat
            line = HistoryEntry.of(number, result).model_dump_json()
            try:
                private_dir(self.path.parent)
                # appended, created 0600 like every file of the project folder
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
                with os.fdopen(fd, "a", encoding="utf-8") as out:
                    out.write(line + "\n")
                    out.flush()
                    self._known = _identity(os.fstat(out.fileno()), number)
            except OSError:
                self._known = None
                return 0
            self._results[result.trace_id] = result
            while len(self._results) > KEEP_RESULTS:
                self._results.popitem(last=False)
            return number

    def _lines(self) -> int:
        """Lines in the file, counted without parsing them (this runs before every record).

        The count this session's last append left is reused while the file is exactly as that
        append left it (same inode, size and modification time); a file anyone else wrote,
        replaced or cut is counted again in full."""
        try:
            now = self.path.stat()
        except OSError:
            return 0
        known = self._known
        if known is not None and known[:3] == _identity(now, 0)[:3]:
            return known[3]
        try:
            with self.path.open("rb") as handle:
                return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))
        except OSError:
            return 0

    def kept(self, trace_id: str) -> QueryResult | None:
        """This session's QueryResult of `trace_id`, while it is still kept in memory."""
        return self._results.get(trace_id)

    def _entries(self) -> list[HistoryEntry]:
        return read_history(self.path)

    @property
    def entries(self) -> list[HistoryEntry]:
        with self._lock:
            return self._entries()

    def run(self, number: int) -> HistoryRun:
        """The run numbered `number` (as the table shows it)."""
        for entry in self.entries:
            if entry.number == number:
                return HistoryRun(entry, self.session)
        raise IndexError(f"no run {number} in the history ({len(self)} runs)")

    def __len__(self) -> int:
        return len(self.entries)

    def __getitem__(self, index: int) -> HistoryRun:
        return HistoryRun(self.entries[index], self.session)

    def __iter__(self) -> Iterator[HistoryRun]:
        return (HistoryRun(e, self.session) for e in self.entries)

    def rows(self) -> list[dict[str, Any]]:
        """One dict per run with the table's columns."""
        return [{"run": e.number, "question": e.question, "status": e.status, "rows": e.row_count,
                 "seconds": e.seconds, "follows": e.follow_up_of, "datasource": e.datasource,
                 "trace_id": e.trace_id} for e in self.entries]

    def to_pandas(self) -> pd.DataFrame:
        import pandas as pd

        frame = pd.DataFrame(self.rows(), columns=list(_COLUMNS))
        return frame.astype({"rows": "Int64", "follows": "Int64"})  # counts, with gaps: not floats

    def __repr__(self) -> str:
        rows = self.rows()
        if not rows:
            return "History(no runs yet)"
        lines = [f"{r['run']:>4}  {r['status']:<14} {_count(r['rows']):>7}  "
                 f"{'↳ ' + str(r['follows']) + ' ' if r['follows'] else ''}{r['question']}" for r in rows]
        return "\n".join([f"{'run':>4}  {'status':<14} {'rows':>7}  question", *lines])

    def _repr_html_(self) -> str:
        rows = self.rows()
        if not rows:
            return "<p><i>No runs yet.</i></p>"
        head = "".join(f"<th>{c}</th>" for c in ("run", "question", "status", "rows", "follows"))
        body = "".join(
            f"<tr><td>{r['run']}</td><td style='text-align:left'>{escape(r['question'])}</td>"
            f"<td>{escape(r['status'])}</td><td>{_count(r['rows'])}</td>"
            f"<td>{'run ' + str(r['follows']) if r['follows'] else ''}</td></tr>" for r in rows)
        return f'<table class="nl2sql-history"><tr>{head}</tr>{body}</table>'


def history_file(folder: Path) -> Path:
    """Where the runs of the project folder `folder` are recorded."""
    return Path(folder) / "history.jsonl"


def read_history(path: Path) -> list[HistoryEntry]:
    """The entries of a history file, oldest first (none when it does not exist)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    entries = []
    for line in lines:
        try:
            entries.append(HistoryEntry.model_validate(json.loads(line)))
        except ValueError:
            continue  # a line cut by a crash, or edited by hand: the others still count
    return entries


def _identity(stat: os.stat_result, lines: int) -> tuple[int, int, int, int]:
    return stat.st_ino, stat.st_size, stat.st_mtime_ns, lines


def _count(rows: int | None) -> str:
    return "" if rows is None else f"{rows:,}"
