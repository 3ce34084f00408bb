"""Capped, streaming reads: at most row_cap + 1 rows ever leave the database's buffers.

PostgreSQL (psycopg 3): a query runs behind a server-side cursor (`DECLARE ... CURSOR FOR`,
then `FETCH FORWARD n`), so the server keeps the rest of the result and closing the cursor
discards it; any other statement goes through `Cursor.stream()`. Both use the extended
protocol, which accepts exactly one statement, so `COMMIT; ...` cannot end the read-only
transaction. Other engines use SQLAlchemy's `stream_results` (an unbuffered cursor) with
`fetchmany`; for MySQL, a result with rows still unread after the cap is dropped with its
connection, because an unbuffered cursor would otherwise read every remaining row to close.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import closing, suppress
from typing import TYPE_CHECKING, Any

from sqlglot import TokenType
from sqlglot.dialects.dialect import Dialect

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

#: Rows per round trip.
BATCH = 2_000
_CURSOR = "nl2sql_cursor"
_QUERY_STARTS = {TokenType.SELECT, TokenType.WITH, TokenType.VALUES, TokenType.TABLE}

Rows = list[Sequence[Any]]
Check = Callable[[], None]


def is_query(sql: str, dialect: str) -> bool:
    """True unless the statement plainly starts with something other than a query keyword."""
    try:
        tokens = Dialect.get_or_raise(dialect).tokenize(sql)
    except Exception:  # noqa: BLE001 - untokenizable text: let the database say what is wrong
        return True
    first = next((t for t in tokens if t.token_type != TokenType.L_PAREN), None)
    return first is None or first.token_type in _QUERY_STARTS


def fetch_postgres(conn: Connection, sql: str, cap: int, check: Check) -> tuple[list[str], Rows]:
    """(column names, at most cap + 1 rows) through psycopg, streaming."""
    raw: Any = conn.connection.driver_connection  # a psycopg connection (untyped here)
    if is_query(sql, "postgres"):
        with raw.cursor(name=_CURSOR) as cur:
            cur.execute(sql)
            names = [d.name for d in cur.description or ()]
            rows: Rows = []
            while len(rows) <= cap:
                batch = cur.fetchmany(min(cap + 1 - len(rows), BATCH))
                if not batch:
                    break
                rows.extend(batch)
                check()
            return names, rows
    return _stream_postgres(raw, sql, cap, check)


def _stream_postgres(raw: Any, sql: str, cap: int, check: Check) -> tuple[list[str], Rows]:
    import psycopg

    size = BATCH if psycopg.capabilities.has_stream_chunked() else 1
    cur = raw.cursor()
    rows: Rows = []
    try:
        # Leaving the generator early cancels the statement (psycopg's documented behaviour).
        with closing(cur.stream(sql, size=size)) as stream:
            for row in stream:
                rows.append(row)
                if len(rows) > cap:
                    break
                if len(rows) % BATCH == 0:
                    check()
    except psycopg.ProgrammingError as exc:
        if getattr(exc, "sqlstate", None) or "didn't produce a result" not in str(exc):
            raise
        return [], []  # a statement without a result set (SET, LISTEN, ...)
    names = [d.name for d in cur.description or ()]
    cur.close()
    return names, rows


def fetch_streaming(
    conn: Connection, sql: str, cap: int, check: Check, *, drop_unread: bool
) -> tuple[list[str], Rows]:
    """(column names, at most cap + 1 rows) through SQLAlchemy's unbuffered results."""
    options = {"stream_results": True, "no_parameters": True, "max_row_buffer": BATCH}
    result = conn.exec_driver_sql(sql, execution_options=options)
    if not result.returns_rows:
        result.close()
        return [], []
    names = list(result.keys())
    rows: Rows = []
    while len(rows) <= cap:
        batch = result.fetchmany(min(cap + 1 - len(rows), BATCH))
        if not batch:
            break
        rows.extend(tuple(r) for r in batch)
        check()
    if drop_unread and len(rows) > cap and result.fetchone() is not None:
        _drop_connection(conn, result)
    else:
        result.close()
    return names, rows


def _drop_connection(conn: Connection, result: Any) -> None:
    """Close the connection under an unread result instead of reading the rest of it.

    PyMySQL's unbuffered cursor reads every remaining row when it closes; marking its result
    finished skips that, and invalidating the connection closes the socket, which stops the
    server's query. The pool opens a fresh connection for the next call.
    """
    pending = getattr(result.cursor, "_result", None)  # PyMySQL's MySQLResult
    if pending is not None and hasattr(pending, "unbuffered_active"):
        pending.unbuffered_active = False
    with suppress(Exception):
        result.close()
    conn.invalidate()


def deadline_check(timeout_s: float, on_timeout: Callable[[], Exception]) -> Check:
    """A callable that raises `on_timeout()` once `timeout_s` has passed since its creation."""
    deadline = time.monotonic() + timeout_s

    def check() -> None:
        if time.monotonic() > deadline:
            raise on_timeout()

    return check


def all_rows(conn: Connection, sql: str) -> Rows:
    """Every row of a small, bounded query of our own (statistics, lookups, counts)."""
    result = conn.exec_driver_sql(sql, execution_options={"no_parameters": True})
    return [tuple(r) for r in result.fetchall()]
