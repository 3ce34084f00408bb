"""SparkAdapter: Spark SQL through pyspark — `local[N]`, a `spark://` master or Spark Connect.

Read-only by construction: Spark has no read-only session, so the adapter itself is the gate —
every text sent to `spark.sql` first passes the SQL guard (one statement, a query at the root,
allow-listed functions: no DDL, INSERT, CACHE or SET ever reaches Spark). The one other
statement is the catalog's `DESCRIBE TABLE EXTENDED`, built from quoted catalog names by
`spark_catalog`. The row cap runs in Spark (`LIMIT cap + 1` on the query's plan) and the rows come
back as Arrow. Each statement runs under its own job group (Spark Connect: an operation tag);
the process's watchdog cancels it when its timeout passes or the run it belongs to is cancelled,
which stops its Spark jobs and interrupts their tasks. A task notices the interrupt between two
rows it reads: generated code that loops long inside one row (a nested-loop join of small
broadcast tables with nothing large streamed through it) runs on until that row is done, though
its job is already cancelled.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any

from nl2sql.datasources.base import ResultError, ResultFrame
from nl2sql.datasources.spark_catalog import (
    catalog_fingerprint,
    databases,
    describe_sql,
    read_catalog,
)
from nl2sql.datasources.spark_session import (
    acquire,
    is_connect,
    quiet_query_errors,
    release,
    shown_master,
)
from nl2sql.datasources.sql_adapter import SQLAdapter
from nl2sql.datasources.watchdog import WATCHDOG
from nl2sql.errors import ConfigError, safe_one_line
from nl2sql.security.sql_guard import GuardCode, check_sql

if TYPE_CHECKING:
    import pyarrow as pa

    from nl2sql.schema.models import SchemaSnapshot

_INTROSPECTION_TIMEOUT_S = 30.0
#: The thread-local properties `setJobGroup` sets (cleared after each statement).
_JOB_GROUP_PROPERTIES = ("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel")
#: A value lookup's budget: Spark starts a job for each query (about a second, more on a busy
#: cluster), so the 3 s other engines get would drop most lookups.
LOOKUP_TIMEOUT_S = 15.0
#: Seconds between two looks at the run's cancel token while a statement runs.
_CANCEL_POLL_S = 0.25

# Spark error conditions (their prefix before any ".SUBCLASS") -> kind; all may be re-planned.
_RETRYABLE = {
    "PARSE_SYNTAX_ERROR": "syntax",
    "PARSE_EMPTY_STATEMENT": "syntax",
    "TABLE_OR_VIEW_NOT_FOUND": "undefined",
    "UNRESOLVED_COLUMN": "undefined",
    "UNRESOLVED_ROUTINE": "undefined",
    "UNRESOLVED_FIELD": "undefined",
    "SCHEMA_NOT_FOUND": "undefined",
    "AMBIGUOUS_REFERENCE": "undefined",
    "AMBIGUOUS_COLUMN_OR_FIELD": "undefined",
    "DATATYPE_MISMATCH": "type",
    "CAST_INVALID_INPUT": "type",
    "INVALID_PARAMETER_VALUE": "type",
    "WRONG_NUM_ARGS": "type",
    "MISSING_AGGREGATION": "error",
    "MISSING_GROUP_BY": "error",
    "GROUP_BY_POS_OUT_OF_RANGE": "error",
}


class SparkAdapter(SQLAdapter):
    """A read-only Spark SQL datasource (dialect "spark")."""

    dialect = "spark"
    #: Each statistics query is a Spark job (a second or more; many on a busy cluster): a
    #: table gets a minute, so a loaded server still returns its samples.
    table_stats_budget_s = 60.0

    def __init__(
        self,
        id: str,
        master: str,
        *,
        database: str | None = None,
        conf: dict[str, str] | None = None,
        description: str | None = None,
        row_cap: int = 10_000,
        timeout_s: float = 30.0,
        sample_values: int = 20,
    ) -> None:
        """Open (or join) the Spark session of `master`: `local[N]`, `spark://host:port` or
        `sc://host:port` (Spark Connect). `database` limits the source to one database of the
        catalog (default: all of them); `conf` is applied when this adapter starts the session.
        """
        self._init_settings(id, description=description, row_cap=row_cap, timeout_s=timeout_s,
                            sample_values=sample_values)
        self.master = master
        self.database = database
        self._connect = is_connect(master)
        self._base = acquire(id, master, conf)
        try:
            self._spark: Any | None = _own_session(self._base, self._connect, id, database)
        except BaseException:
            release(master, self._base)
            raise
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return (f"SparkAdapter(id={self.id!r}, master={shown_master(self.master)!r}, "
                f"database={self.database!r})")

    def execute(
        self, sql: str, *, row_cap: int | None = None, timeout_s: float | None = None
    ) -> ResultFrame:
        """Run one guarded read query; at most `row_cap` rows come back, `truncated` if more."""
        cap = self.row_cap if row_cap is None else row_cap
        started = time.perf_counter()
        self._guard(sql)
        with self._statement(self.timeout_s if timeout_s is None else timeout_s) as spark:
            table: pa.Table = spark.sql(sql).limit(cap + 1).toArrow()
        truncated = table.num_rows > cap
        if truncated:
            table = table.slice(0, cap)
        return ResultFrame(table, truncated=truncated, elapsed_s=time.perf_counter() - started)

    def fetch_schema(self) -> SchemaSnapshot:
        """Tables and views of the catalog with columns, row counts, distinct counts, samples."""
        spark = self._session()
        tables = read_catalog(spark, databases(spark, self.database), self._describe)
        return self._snapshot(tables)

    def catalog_fingerprint(self) -> str:
        """Every table's and column's name and type, from the catalog (no data is read)."""
        spark = self._session()
        return catalog_fingerprint(spark, databases(spark, self.database))

    def close(self) -> None:
        """Leave the shared session (the last adapter stops it); later calls fail."""
        with self._lock:
            spark, self._spark = self._spark, None
        if spark is not None:
            release(self.master, self._base)

    def lookup_values(self, table_key: str, column: str, needle: str, limit: int = 10) -> list[str]:
        """As SQLAdapter's, with the longer budget of a Spark job (`LOOKUP_TIMEOUT_S`)."""
        from nl2sql.datasources.introspection import bounded_lookup

        return bounded_lookup(self._rows, table_key, column, needle, limit, self.dialect,
                              min(self.timeout_s, LOOKUP_TIMEOUT_S))

    @property
    def spark(self) -> Any:
        """This source's own SparkSession (its current database), on the Spark context the
        sources of its master share."""
        return self._session()

    def _rows(self, sql: str, timeout_s: float = _INTROSPECTION_TIMEOUT_S) -> list[Any]:
        """Every row of a guarded query (statistics, samples, value lookups: small by design)."""
        self._guard(sql)
        with self._statement(timeout_s) as spark:
            return [tuple(row) for row in spark.sql(sql).collect()]

    def _describe(self, database: str, table: str) -> list[Any]:
        """The catalog's `DESCRIBE TABLE EXTENDED` of one table (metadata, no scan)."""
        with self._statement(_INTROSPECTION_TIMEOUT_S) as spark:
            return [tuple(row) for row in spark.sql(describe_sql(database, table)).collect()]

    def _guard(self, sql: str) -> None:
        """Raise ResultError unless the SQL guard calls `sql` one read-only query."""
        verdict = check_sql(sql, self.dialect)
        if verdict.allowed:
            return
        if verdict.code == GuardCode.PARSE_ERROR:
            raise ResultError("the query is not valid Spark SQL (it could not be parsed)",
                              retryable=True, kind="syntax")
        raise ResultError(f"refused by the read-only Spark source: {verdict.message}",
                          retryable=False, kind="read_only")

    def _session(self) -> Any:
        with self._lock:
            if self._spark is None:
                raise ResultError("the datasource is closed", retryable=False, kind="connection")
            return self._spark

    @contextmanager
    def _statement(self, timeout_s: float) -> Iterator[Any]:
        """The session, with this thread's jobs in a group of their own that is cancelled when
        `timeout_s` passes or the current run is cancelled; errors become ResultError."""
        spark = self._session()
        stop = _Stop(self, spark, timeout_s)
        try:
            with quiet_query_errors():
                yield spark
        except Exception as exc:  # noqa: BLE001 - pyspark, py4j and gRPC errors alike
            raise classify_error(exc, stop.reason, timeout_s=timeout_s) from exc
        finally:
            stop.done()

    def _mark(self, spark: Any, group: str) -> None:
        if self._connect:
            spark.addTag(group)
        else:
            spark.sparkContext.setJobGroup(group, "nl2sql query", interruptOnCancel=True)

    def _unmark(self, spark: Any, group: str) -> None:
        if self._connect:
            spark.removeTag(group)
            return
        context = spark.sparkContext
        for key in _JOB_GROUP_PROPERTIES:  # pyspark has no clearJobGroup(): unset them
            context.setLocalProperty(key, None)

    def _cancel(self, spark: Any, group: str) -> None:
        if self._connect:
            spark.interruptTag(group)
        else:
            spark.sparkContext.cancelJobGroup(group)


class _Stop:
    """Cancels one statement's job group by its timeout or the run's cancel token (whichever is
    first), on the watchdog thread; `reason` says which fired."""

    def __init__(self, adapter: SparkAdapter, spark: Any, timeout_s: float) -> None:
        self._adapter, self._spark = adapter, spark
        self._group = f"nl2sql-{uuid.uuid4().hex}"
        self._token = _run_cancel_token()
        self._finished = False
        self.reason: str | None = None
        adapter._mark(spark, self._group)
        self._alarms = [WATCHDOG.after(timeout_s, lambda: self._fire("timeout"))]
        if self._token is not None:
            self._alarms.append(WATCHDOG.after(_CANCEL_POLL_S, self._poll))

    def _poll(self) -> None:
        if self._finished:
            return
        if self.reason is not None:
            return
        if self._token is not None and self._token.cancelled:
            self._fire("cancelled")
        else:
            self._alarms.append(WATCHDOG.after(_CANCEL_POLL_S, self._poll))

    def _fire(self, reason: str) -> None:
        """Cancel the group, and again every poll until the statement ends: a query's later
        stages (adaptive execution) start as jobs of their own after the first cancel."""
        if self._finished:
            return
        self.reason = self.reason or reason
        with suppress(Exception):  # the session may have been stopped under it
            self._adapter._cancel(self._spark, self._group)
        self._alarms.append(WATCHDOG.after(_CANCEL_POLL_S, lambda: self._fire(reason)))

    def done(self) -> None:
        self._finished = True
        for alarm in self._alarms:
            alarm.cancel()
        with suppress(Exception):
            self._adapter._unmark(self._spark, self._group)


def _own_session(base: Any, connect: bool, id: str, database: str | None) -> Any:
    """A session of this source's own on the shared one, its current database `database`."""
    spark = base if connect else base.newSession()
    if database is not None:
        if not spark.catalog.databaseExists(database):
            raise ConfigError(f"datasource {id!r}: Spark has no database {database!r}")
        spark.catalog.setCurrentDatabase(database)
    return spark


def _run_cancel_token() -> Any | None:
    """The cancel token of the graph run this thread works for, or None outside a run."""
    try:
        from langgraph.runtime import get_runtime

        return getattr(get_runtime().context, "cancel_token", None)
    except (RuntimeError, KeyError, AttributeError, ImportError):
        return None


def classify_error(exc: BaseException, stopped: str | None, *, timeout_s: float) -> ResultError:
    """Map a pyspark exception to a ResultError with a one-line, SQL-free message."""
    if isinstance(exc, ResultError):
        return exc
    if stopped == "timeout":
        return ResultError(
            f"the query ran longer than the {timeout_s:g} s timeout and was stopped",
            retryable=False, kind="timeout",
        )
    if stopped == "cancelled":
        return ResultError("the run was cancelled and its Spark job was stopped",
                           retryable=False, kind="timeout")
    condition = _condition(exc)
    message = safe_message(exc)
    kind = _RETRYABLE.get(condition.split(".", 1)[0])
    if kind is not None:
        return ResultError(message, retryable=True, kind=kind)
    if type(exc).__name__ in ("ParseException", "AnalysisException"):
        return ResultError(message, retryable=True, kind="error")
    connection = "connection" if "Py4J" in type(exc).__name__ or "Grpc" in type(exc).__name__ else "error"
    return ResultError(message, retryable=False, kind=connection)


def _condition(exc: BaseException) -> str:
    """Spark's error condition (`UNRESOLVED_COLUMN.WITH_SUGGESTION`), or ""."""
    for getter in ("getCondition", "getErrorClass"):
        method = getattr(exc, getter, None)
        if method is not None:
            with suppress(Exception):
                value = method()
                if value:
                    return str(value)
    return ""


def safe_message(exc: BaseException) -> str:
    """The error's first line without Spark's SQLSTATE and position suffixes or the query."""
    text = str(exc).strip()
    first = safe_one_line(text) or type(exc).__name__
    for marker in (" SQLSTATE:", "; line ", "== SQL"):
        cut = first.find(marker)
        if cut > 0:
            first = first[:cut].rstrip(" .;")
    return first or "Spark reported an error"
