"""SQLiteAdapter: a SQLite database file behind read-only connections (see `sqlite_pool`).

Connections come from a small pool, one per concurrent call, so parallel scans of one source
never share a connection; a progress handler stops a query once its timeout has passed.
SQLite reads a double-quoted name that matches no column as a string literal (switched off on
Python 3.12+ only), so `lookup_values` checks its column itself before it runs.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nl2sql.datasources.arrow_util import table_from_rows
from nl2sql.datasources.base import ResultError, ResultFrame
from nl2sql.datasources.fingerprint import file_states, rows_digest
from nl2sql.datasources.sql_adapter import SQLAdapter
from nl2sql.datasources.sqlite_catalog import pragma_sql, read_catalog
from nl2sql.datasources.sqlite_pool import ReadOnlyPool
from nl2sql.errors import ConfigError, safe_one_line

if TYPE_CHECKING:
    from nl2sql.schema.models import SchemaSnapshot

_INTROSPECTION_TIMEOUT_S = 10.0
_PROGRESS_STEPS = 1_000  # VM instructions between deadline checks (microseconds of work)

_SYNTAX = ("syntax error", "incomplete input", "unrecognized token")
_UNDEFINED = ("no such ", "ambiguous column")
_TYPE = ("mismatch", "malformed", "wrong number of arguments")
_CONNECTION = (
    "SQLITE_CANTOPEN",
    "SQLITE_IOERR",
    "SQLITE_BUSY",
    "SQLITE_LOCKED",
    "SQLITE_CORRUPT",
    "SQLITE_NOTADB",
    "SQLITE_FULL",
    "SQLITE_PERM",
    "SQLITE_PROTOCOL",
)


class SQLiteAdapter(SQLAdapter):
    """A read-only SQLite datasource (dialect "sqlite")."""

    dialect = "sqlite"

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
        self.path = Path(path).expanduser().resolve()
        if not self.path.is_file():
            raise ConfigError(f"datasource {id!r}: SQLite file not found: {self.path}")
        self._pool = ReadOnlyPool(self.path.as_uri() + "?mode=ro")
        try:  # fail now, not at the first question, when the file is not a database
            with self._pool.connection() as con:
                con.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as exc:
            self._pool.close()
            raise ConfigError(
                f"datasource {id!r}: cannot open {self.path}: {safe_one_line(exc)}"
            ) from exc

    def __repr__(self) -> str:
        return f"SQLiteAdapter(id={self.id!r}, path={str(self.path)!r})"

    def execute(
        self, sql: str, *, row_cap: int | None = None, timeout_s: float | None = None
    ) -> ResultFrame:
        """Run one read query; at most `row_cap` rows come back, `truncated` if more existed."""
        cap = self.row_cap if row_cap is None else row_cap
        started = time.perf_counter()
        with self._connection(self.timeout_s if timeout_s is None else timeout_s, sql) as con:
            cur = con.execute(sql)
            names = [d[0] for d in cur.description or ()]
            rows = cur.fetchmany(cap + 1) if names else []
            cur.close()
        truncated = len(rows) > cap
        table = table_from_rows(names, rows[:cap])
        return ResultFrame(table, truncated=truncated, elapsed_s=time.perf_counter() - started)

    def fetch_schema(self) -> SchemaSnapshot:
        """Tables and views with columns, keys, row counts, distinct counts and samples."""
        tables = read_catalog(self._rows)
        return self._snapshot(tables)

    def catalog_fingerprint(self) -> str:
        """The file's (and its journal's) size and modification time, and its schema's DDL."""
        ddl = self._rows("SELECT type, name, sql FROM sqlite_master ORDER BY type, name")
        journals = [self.path.with_name(self.path.name + suffix) for suffix in ("-wal", "-journal")]
        return rows_digest(ddl, file_states([self.path, *journals]))

    def lookup_values(self, table_key: str, column: str, needle: str, limit: int = 10) -> list[str]:
        """As SQLAdapter's, after checking the column exists (see the module note on quoting)."""
        if needle and limit > 0:
            self._check_column(table_key, column)
        return super().lookup_values(table_key, column, needle, limit)

    def _check_column(self, table_key: str, column: str) -> None:
        """Raise ResultError unless the table has the column (see the module note on quoting)."""
        info = self._rows(pragma_sql("table_info", table_key))
        if not info:
            raise ResultError(f"no such table: {table_key}", retryable=True, kind="undefined")
        if column.lower() not in {str(row[1]).lower() for row in info}:
            raise ResultError(
                f"no such column: {table_key}.{column}", retryable=True, kind="undefined"
            )

    def close(self) -> None:
        """Close the connections; later calls fail with a non-retryable ResultError."""
        self._pool.close()

    def _rows(self, sql: str, timeout_s: float = _INTROSPECTION_TIMEOUT_S) -> list[Any]:
        with self._connection(timeout_s, sql) as con:
            return con.execute(sql).fetchall()

    @contextmanager
    def _connection(self, timeout_s: float, sql: str) -> Iterator[sqlite3.Connection]:
        """A pooled connection that aborts work after `timeout_s`; errors become ResultError."""
        deadline = time.monotonic() + timeout_s
        fired = threading.Event()

        def past_deadline() -> int:
            if time.monotonic() > deadline:
                fired.set()
                return 1
            return 0

        with self._pool.connection() as con:
            con.set_progress_handler(past_deadline, _PROGRESS_STEPS)
            try:
                yield con
            except sqlite3.Error as exc:
                raise classify_error(
                    exc, sql, timed_out=fired.is_set(), timeout_s=timeout_s
                ) from exc
            finally:
                con.set_progress_handler(None, 0)


def classify_error(
    exc: sqlite3.Error, sql: str, *, timed_out: bool, timeout_s: float
) -> ResultError:
    """Map a sqlite3 exception to a ResultError with a one-line, SQL-free message."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    if timed_out or name == "SQLITE_INTERRUPT":
        return ResultError(
            f"the query ran longer than the {timeout_s:g} s timeout and was stopped",
            retryable=False,
            kind="timeout",
        )
    message = _safe_message(str(exc), sql)
    lowered = message.lower()
    if name.startswith("SQLITE_READONLY") or "readonly database" in lowered:
        return ResultError(message, retryable=False, kind="read_only")
    if name == "SQLITE_AUTH" or "not authorized" in lowered:
        return ResultError(
            f"{message} (the datasource is read-only)", retryable=False, kind="permission"
        )
    if name.startswith(_CONNECTION):
        return ResultError(message, retryable=False, kind="connection")
    if name in ("SQLITE_ERROR", "SQLITE_MISMATCH", "SQLITE_RANGE") or isinstance(
        exc, sqlite3.ProgrammingError
    ):
        return ResultError(message, retryable=True, kind=_kind(lowered))
    return ResultError(message, retryable=False, kind="error")


def _kind(message: str) -> str:
    for kind, markers in (("syntax", _SYNTAX), ("undefined", _UNDEFINED), ("type", _TYPE)):
        if any(marker in message for marker in markers):
            return kind
    return "error"


def _safe_message(text: str, sql: str) -> str:
    message = safe_one_line(text) or "the database reported an error"
    statement = sql.strip()
    return message.replace(statement, "<query>") if statement and statement in message else message
