"""Read-only SQLite connections: `mode=ro` plus an authorizer, pooled for concurrent calls.

`mode=ro` refuses writes to the file, but SQLite would still let a statement ATTACH (and so
create) another file, or VACUUM INTO one; the authorizer therefore allows only reading:
SELECT, table reads, functions, recursive CTEs and a few read-only introspection PRAGMAs.
"""

from __future__ import annotations

import sqlite3
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from nl2sql.datasources.base import ResultError

_ALLOWED_ACTIONS = frozenset(
    {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
)
_READ_PRAGMAS = frozenset(
    {"table_info", "table_xinfo", "foreign_key_list", "index_list", "index_info"}
)


def authorize(
    action: int, arg1: str | None, arg2: str | None, db: str | None, trigger: str | None
) -> int:
    """SQLite authorizer: allow reading, deny everything else (writes, ATTACH, settings)."""
    if action in _ALLOWED_ACTIONS:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_PRAGMA and (arg1 or "").lower() in _READ_PRAGMAS:
        return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


class ReadOnlyPool:
    """Read-only connections to one file; an idle one is reused, a busy one is never shared."""

    def __init__(self, uri: str) -> None:
        self._uri = uri
        self._idle: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._closed = False

    def open(self) -> sqlite3.Connection:
        """A new read-only connection with the authorizer installed."""
        # isolation_level=None: the driver never issues BEGIN on its own.
        con = sqlite3.connect(self._uri, uri=True, check_same_thread=False, isolation_level=None)
        con.set_authorizer(authorize)
        if sys.version_info >= (3, 12):  # Connection.setconfig: "name" is always an identifier
            con.setconfig(sqlite3.SQLITE_DBCONFIG_DQS_DML, False)
            con.setconfig(sqlite3.SQLITE_DBCONFIG_DQS_DDL, False)
        return con

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        """Borrow a connection for one call; it goes back to the pool afterwards."""
        with self._lock:
            if self._closed:
                raise ResultError("the datasource is closed", retryable=False, kind="connection")
            con = self._idle.pop() if self._idle else None
        con = con or self.open()
        try:
            yield con
        finally:
            with self._lock:
                if self._closed:
                    con.close()
                else:
                    self._idle.append(con)

    def close(self) -> None:
        """Close idle connections now and busy ones when they come back."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for con in idle:
            con.close()
