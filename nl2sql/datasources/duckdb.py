"""DuckDBAdapter: a DuckDB database file, opened read-only with external access disabled.

Read-only by construction: the file is attached `read_only`, file/network access and extension
loading are disabled, and the configuration is locked so a `SET` cannot undo any of it. Each
call runs on its own cursor (DuckDB's thread-safe way to share one database between threads),
with a timer that interrupts that cursor when the timeout passes (the process's one watchdog
thread, `watchdog.py`, not a thread per query).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
import pyarrow as pa

from nl2sql.datasources.arrow_util import read_capped
from nl2sql.datasources.base import ResultError, ResultFrame
from nl2sql.datasources.duckdb_catalog import catalog_fingerprint, read_catalog
from nl2sql.datasources.sql_adapter import SQLAdapter
from nl2sql.datasources.watchdog import WATCHDOG
from nl2sql.errors import ConfigError, safe_one_line

if TYPE_CHECKING:
    from nl2sql.schema.models import SchemaSnapshot

#: Applied when the database is opened; `lock_configuration` stops a later SET from re-enabling
#: file access or extension loading.
_CONFIG: dict[str, Any] = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "lock_configuration": True,
}
_INTROSPECTION_TIMEOUT_S = 10.0
_CLOSE_WAIT_S = 2.0  # how long close() waits for interrupted calls to end
_MAX_BATCH = 65_536

# Exception class name -> kind, for queries the database rejected as wrong (the agent may re-plan).
_RETRYABLE = {
    "ParserException": "syntax",
    "SyntaxException": "syntax",
    "CatalogException": "undefined",
    "BinderException": "undefined",
    "ConversionException": "type",
    "TypeMismatchException": "type",
    "OutOfRangeException": "type",
    "InvalidTypeException": "type",
    "NotImplementedException": "error",
    "InvalidInputException": "error",
}
# Refusals and failures that asking again cannot fix.
_FATAL = {
    "InterruptException": "timeout",
    "PermissionException": "permission",
    "TransactionException": "read_only",
    "ConstraintException": "read_only",
    "DependencyException": "read_only",
    "IOException": "connection",
    "HTTPException": "connection",
    "ConnectionException": "connection",
}
_TYPE_HINTS = ("candidate function", "no function matches", "cannot compare", "cannot mix", "cast")
_HINT_PREFIXES = ("Did you mean", "Candidate bindings")


class DuckDBAdapter(SQLAdapter):
    """A read-only DuckDB datasource (dialect "duckdb")."""

    dialect = "duckdb"

    def __init__(
        self,
        id: str,
        path: str | Path,
        *,
        description: str | None = None,
        row_cap: int = 10_000,
        timeout_s: float = 30.0,
        sample_values: int = 20,
    ) -> None:
        self._init_settings(id, description=description, row_cap=row_cap, timeout_s=timeout_s,
                            sample_values=sample_values)
        self.path = Path(path).expanduser()
        if not self.path.is_file():
            raise ConfigError(f"datasource {id!r}: DuckDB file not found: {self.path}")
        try:
            self._con: duckdb.DuckDBPyConnection | None = duckdb.connect(
                str(self.path), read_only=True, config=dict(_CONFIG)
            )
        except duckdb.Error as exc:
            raise ConfigError(
                f"datasource {id!r}: cannot open {self.path}: {safe_one_line(exc)}"
            ) from exc
        self._lock = threading.Lock()
        self._running: set[duckdb.DuckDBPyConnection] = set()  # cursors with a call in progress

    def __repr__(self) -> str:
        return f"DuckDBAdapter(id={self.id!r}, path={str(self.path)!r})"

    def execute(
        self, sql: str, *, row_cap: int | None = None, timeout_s: float | None = None
    ) -> ResultFrame:
        """Run one read query; at most `row_cap` rows come back, `truncated` if more existed."""
        cap = self.row_cap if row_cap is None else row_cap
        started = time.perf_counter()
        with self._cursor(self.timeout_s if timeout_s is None else timeout_s, sql) as cur:
            relation = cur.sql(sql)
            if relation is None:  # a statement without a result set
                return ResultFrame(
                    pa.table({}), truncated=False, elapsed_s=time.perf_counter() - started
                )
            reader = relation.to_arrow_reader(min(max(cap + 1, 1), _MAX_BATCH))
            try:
                table, truncated = read_capped(reader, cap)
            finally:
                reader.close()
        return ResultFrame(table, truncated=truncated, elapsed_s=time.perf_counter() - started)

    def fetch_schema(self) -> SchemaSnapshot:
        """Tables and views with columns, keys, row estimates, distinct counts and samples."""
        tables = read_catalog(self._rows)
        return self._snapshot(tables)

    def catalog_fingerprint(self) -> str:
        """The file's size and modification time and its columns' names and types."""
        return catalog_fingerprint(self._rows, self.path)

    def close(self) -> None:
        """Close the connection; later calls fail with a non-retryable ResultError.

        A call of a timed-out run may still be running on a cursor (its thread was abandoned):
        DuckDB then refuses to close ("connection is busy"). So every open cursor is interrupted
        first and given a moment to end; closing never raises.
        """
        with self._lock:
            con, self._con = self._con, None
            running = list(self._running)
        if con is None:
            return
        for cur in running:
            with suppress(duckdb.Error):
                cur.interrupt()
        deadline = time.monotonic() + _CLOSE_WAIT_S
        while self._running and time.monotonic() < deadline:
            time.sleep(0.01)
        with suppress(duckdb.Error):  # still busy after the wait: it is released when the call ends
            con.close()

    def _rows(self, sql: str, timeout_s: float = _INTROSPECTION_TIMEOUT_S) -> list[tuple[Any, ...]]:
        with self._cursor(timeout_s, sql) as cur:
            return cur.execute(sql).fetchall()

    @contextmanager
    def _cursor(self, timeout_s: float, sql: str) -> Iterator[duckdb.DuckDBPyConnection]:
        """A fresh cursor, interrupted by a timer after `timeout_s`; errors become ResultError."""
        with self._lock:
            if self._con is None:
                raise ResultError("the datasource is closed", retryable=False, kind="connection")
            cur = self._con.cursor()
            self._running.add(cur)
        fired = threading.Event()

        def interrupt() -> None:
            fired.set()
            with suppress(duckdb.Error):  # the query may have just finished and closed
                cur.interrupt()

        timer = WATCHDOG.after(timeout_s, interrupt)  # one shared thread, not a thread per query
        try:
            yield cur
        except duckdb.Error as exc:
            raise classify_error(exc, sql, timed_out=fired.is_set(), timeout_s=timeout_s) from exc
        except Exception as exc:  # Arrow can surface an interrupt as its own error type
            if fired.is_set():
                raise classify_error(exc, sql, timed_out=True, timeout_s=timeout_s) from exc
            raise
        finally:
            timer.cancel()
            with suppress(duckdb.Error):  # close() may have closed the connection under it
                cur.close()
            with self._lock:
                self._running.discard(cur)


def classify_error(
    exc: BaseException, sql: str, *, timed_out: bool, timeout_s: float
) -> ResultError:
    """Map a DuckDB exception to a ResultError with a one-line, SQL-free message."""
    if timed_out:
        return ResultError(
            f"the query ran longer than the {timeout_s:g} s timeout and was stopped",
            retryable=False,
            kind="timeout",
        )
    name = type(exc).__name__
    message = safe_message(str(exc), sql)
    if name == "InvalidInputException" and ("read-only" in message or "locked" in message):
        kind = "read_only" if "read-only" in message else "permission"
        return ResultError(message, retryable=False, kind=kind)
    if name in _RETRYABLE:
        kind = _RETRYABLE[name]
        if name == "BinderException" and any(h in message.lower() for h in _TYPE_HINTS):
            kind = "type"
        return ResultError(message, retryable=True, kind=kind)
    return ResultError(message, retryable=False, kind=_FATAL.get(name, "error"))


def safe_message(text: str, sql: str) -> str:
    """The error's first line plus DuckDB's name hints; no "LINE 1:" SQL echo or caret lines."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return "the database reported an error"
    kept: Sequence[str] = [lines[0], *(ln for ln in lines[1:] if ln.startswith(_HINT_PREFIXES))]
    message = " ".join(kept)
    statement = sql.strip()
    if statement and statement in message:
        message = message.replace(statement, "<query>")
    return safe_one_line(message)
