"""A private in-memory DuckDB session over Arrow tables, and the SQL helpers the engine shares.

The database has external access disabled: the SQL here is built from sqlglot expressions over
registered Arrow tables and must never read a file. A Session keeps one database (`DuckPool`);
each combine works on its own cursor of it, so the names one run registers are invisible to a
concurrent run and go away with the cursor. Arrow tables are registered, not copied: DuckDB
scans them in place.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from types import TracebackType
from typing import TYPE_CHECKING, cast

import pyarrow as pa
from sqlglot import exp

from nl2sql.errors import safe_one_line

if TYPE_CHECKING:
    import duckdb


class AggregationError(ValueError):
    """A combine or post-combine step failed; the message is one line a user can act on."""


def _open_memory() -> duckdb.DuckDBPyConnection:
    import duckdb  # lazy: the aggregator is imported on the pipeline's hot path

    return duckdb.connect(":memory:", config={"enable_external_access": False})


class DuckPool:
    """One in-memory DuckDB for a Session's combines, opened on first use; a cursor per combine."""

    def __init__(self) -> None:
        self._con: duckdb.DuckDBPyConnection | None = None
        self._lock = threading.Lock()
        self.opened = 0  # how many databases this pool has opened (1 for a session's life)

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A new cursor: its own connection to the shared database, with its own temp names."""
        with self._lock:
            if self._con is None:
                self._con = _open_memory()
                self.opened += 1
            return self._con.cursor()

    def close(self) -> None:
        with self._lock:
            con, self._con = self._con, None
        if con is not None:
            con.close()


class DuckSession:
    """A DuckDB connection that registers Arrow tables under generated names: a cursor of the
    session's `pool`, or (without one) a private in-memory database."""

    def __init__(self, pool: DuckPool | None = None) -> None:
        import duckdb

        self._error = duckdb.Error
        self._pool = pool
        self._connection: duckdb.DuckDBPyConnection | None = None  # opened on first use: a standalone-only DAG never needs it
        self._count = 0

    @property
    def _con(self) -> duckdb.DuckDBPyConnection:
        if self._connection is None:
            self._connection = self._pool.cursor() if self._pool is not None else _open_memory()
        return self._connection

    def register(self, table: pa.Table) -> exp.Table:
        """Register `table` under a fresh name and return a quoted table expression for it."""
        name = f"t{self._count}"
        self._count += 1
        self._con.register(name, table)
        return exp.Table(this=exp.to_identifier(name, quoted=True))

    def query(self, expression: exp.Query) -> pa.Table:
        """Run a sqlglot query and return its rows as Arrow; AggregationError on failure."""
        try:
            # built for this one statement: the generator need not copy it first
            return self._con.sql(expression.sql(dialect="duckdb", copy=False)).to_arrow_table()
        except self._error as exc:
            raise AggregationError(safe_one_line(exc)) from exc

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()

    def __enter__(self) -> DuckSession:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def column(name: str, table: exp.Table | None = None) -> exp.Column:
    """A quoted column reference, optionally qualified by a registered table."""
    return exp.column(name, table=table.name if table is not None else None, quoted=True)


def alias(expression: exp.Expr, name: str) -> exp.Alias:
    # alias_ is typed as returning any expression; with a column alias it builds an exp.Alias
    return cast(exp.Alias, exp.alias_(expression, name, quoted=True))


def order_column(tables: Iterable[pa.Table]) -> str:
    """A helper column name free in every table (compared case-insensitively, as DuckDB does)."""
    taken = {name.lower() for table in tables for name in table.column_names}
    candidate, n = "__nl2sql_row", 0
    while candidate.lower() in taken:
        n += 1
        candidate = f"__nl2sql_row{n}"
    return candidate


def with_row_number(table: pa.Table, name: str) -> pa.Table:
    """`table` plus a 0-based row number column, so results can keep their input order."""
    return table.append_column(name, pa.array(range(table.num_rows), type=pa.int64()))


def unique_names(names: list[str]) -> list[str]:
    """Make output names unique (case-insensitively) by numbering later repeats."""
    seen: set[str] = set()
    out: list[str] = []
    for name in names:
        candidate, n = name, 1
        while candidate.lower() in seen:
            n += 1
            candidate = f"{name}_{n}"
        seen.add(candidate.lower())
        out.append(candidate)
    return out
