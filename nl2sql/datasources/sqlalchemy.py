"""SQLAlchemyAdapter: PostgreSQL, MySQL/MariaDB and any SQLAlchemy dialect sqlglot can write.

Read-only by construction (see `sqlalchemy_engines`): every call checks a connection out of
the engine's pool, opens a read-only transaction with the statement timeout, runs one
statement, reads at most row_cap + 1 rows as a stream (see `sqlalchemy_fetch`) and rolls back.
Errors become ResultError by SQLSTATE / error number (see `sqlalchemy_errors`). The URL's
password never appears in a repr, a log line or an error message.

Which schemas are read: PostgreSQL's search path (`current_schemas(false)`; set it in the URL
with `?options=-csearch_path%3Dsales,hr` or on the role), MySQL's database named in the URL, the
default schema elsewhere. Tables are keyed by bare name unless several schemas are read.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import URL

from nl2sql.datasources.arrow_util import table_from_rows
from nl2sql.datasources.base import ResultError, ResultFrame
from nl2sql.datasources.sql_adapter import SQLAdapter
from nl2sql.datasources.sqlalchemy_catalog import (
    bounded_count_sql,
    capped_count,
    catalog_fingerprint,
    read_catalog,
    with_row_counts,
)
from nl2sql.datasources.sqlalchemy_engines import (
    create_engine,
    dialect_of,
    masked,
    normalize_url,
    profile_for,
)
from nl2sql.datasources.sqlalchemy_errors import classify_error, timeout_error
from nl2sql.datasources.sqlalchemy_fetch import (
    all_rows,
    deadline_check,
    fetch_postgres,
    fetch_streaming,
)
from nl2sql.errors import ConfigError

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection
    from sqlglot import exp

    from nl2sql.schema.models import SchemaSnapshot

_INTROSPECTION_TIMEOUT_S = 10.0


class SQLAlchemyAdapter(SQLAdapter):
    """A read-only datasource behind a SQLAlchemy URL (dialect: sqlglot's name for it)."""

    def __init__(
        self,
        id: str,
        url: str | URL,
        *,
        description: str | None = None,
        row_cap: int = 10_000,
        timeout_s: float = 30.0,
        sample_values: int = 20,
        pool_size: int = 5,
        connect_timeout_s: float = 10.0,
    ) -> None:
        self._init_settings(id, description=description, row_cap=row_cap, timeout_s=timeout_s,
                            sample_values=sample_values)
        self.url = normalize_url(id, url)
        self.dialect = dialect_of(id, self.url)
        self._profile = profile_for(id, self.url)
        self._secrets = tuple(s for s in (self.url.password,) if s)
        self._closed = False
        self._engine = self._open(pool_size, connect_timeout_s)
        self._dbapi_error: type[BaseException] = self._engine.dialect.loaded_dbapi.Error

    def _open(self, pool_size: int, connect_timeout_s: float) -> sa.Engine:
        """Create the engine and check now, not at the first question, that it answers."""
        where = masked(self.url)
        try:
            engine = create_engine(
                self.url, self._profile, pool_size=pool_size, connect_timeout_s=connect_timeout_s
            )
        except (ImportError, sa.exc.NoSuchModuleError) as exc:
            raise ConfigError(
                f"datasource {self.id!r}: the driver for {where} is not installed ({exc.__class__.__name__})"
            ) from None
        try:
            with engine.connect() as conn:
                self._profile.begin(conn, connect_timeout_s, None)
                self._schemas = self._profile.schemas(conn)
                conn.rollback()
        except ConfigError as exc:
            engine.dispose()
            raise ConfigError(f"datasource {self.id!r}: {exc}") from None
        except Exception as exc:  # noqa: BLE001 - any failure to connect is a configuration error
            engine.dispose()
            reason = classify_error(
                exc, "", backend=self._profile.backend, timeout_s=connect_timeout_s,
                secrets=self._secrets,
            ).safe_message  # fmt: skip
            raise ConfigError(
                f"datasource {self.id!r}: cannot connect to {where}: {reason}"
            ) from None
        return engine

    def __repr__(self) -> str:
        return f"SQLAlchemyAdapter(id={self.id!r}, url={masked(self.url)!r})"

    def execute(
        self, sql: str, *, row_cap: int | None = None, timeout_s: float | None = None
    ) -> ResultFrame:
        """Run one read query; at most `row_cap` rows come back, `truncated` if more existed."""
        cap = self.row_cap if row_cap is None else row_cap
        timeout = self.timeout_s if timeout_s is None else timeout_s
        started = time.perf_counter()
        check = deadline_check(timeout, lambda: timeout_error(timeout))
        with self._session(timeout, sql, row_limit=cap + 1) as conn:
            if self._profile.streams_natively:
                names, rows = fetch_postgres(conn, sql, cap, check)
            else:
                drop = self._profile.backend == "mysql"
                names, rows = fetch_streaming(conn, sql, cap, check, drop_unread=drop)
        table = table_from_rows(names, rows[:cap])
        return ResultFrame(
            table, truncated=len(rows) > cap, elapsed_s=time.perf_counter() - started
        )

    def fetch_schema(self) -> SchemaSnapshot:
        """Tables and views with columns, keys, comments, row estimates and value samples."""
        with self._session(_INTROSPECTION_TIMEOUT_S, "") as conn:
            tables = read_catalog(conn, self._schemas)
            estimates = self._estimates(conn)
        tables = with_row_counts(tables, estimates, self._count, self._schemas)
        return self._snapshot(tables)

    def catalog_fingerprint(self) -> str | None:
        """The table, column and type names of the catalog (one information_schema query)."""
        with self._session(_INTROSPECTION_TIMEOUT_S, "") as conn:
            return catalog_fingerprint(conn, self._schemas)

    def close(self) -> None:
        """Close the pool; later calls fail with a non-retryable ResultError."""
        self._closed = True
        self._engine.dispose()

    def _estimates(self, conn: Connection) -> dict[tuple[str | None, str], float | None]:
        query = self._profile.estimates_sql()
        if query is None:
            return {}
        try:
            rows = conn.execute(query, {"schemas": list(self._schemas)}).fetchall()
        except sa.exc.DBAPIError:  # statistics are optional: the bounded count takes over
            return {}
        return {(r[0], r[1]): (None if r[2] is None else float(r[2])) for r in rows}

    def _count(self, table: exp.Table) -> int | None:
        try:
            return capped_count(self._rows(bounded_count_sql(table, self.dialect))[0][0])
        except ResultError:
            return None

    def _rows(self, sql: str, timeout_s: float = _INTROSPECTION_TIMEOUT_S) -> list[Any]:
        with self._session(timeout_s, sql) as conn:
            return all_rows(conn, sql)

    @contextmanager
    def _session(
        self, timeout_s: float, sql: str, row_limit: int | None = None
    ) -> Iterator[Connection]:
        """A pooled connection in a read-only transaction, rolled back after; errors classified."""
        if self._closed:
            raise ResultError("the datasource is closed", retryable=False, kind="connection")
        try:
            with self._engine.connect() as conn:
                try:
                    self._profile.begin(conn, timeout_s, row_limit)
                    yield conn
                finally:
                    with suppress(Exception):  # a broken or invalidated connection
                        conn.rollback()
        except ResultError:
            raise
        except (sa.exc.SQLAlchemyError, self._dbapi_error) as exc:
            raise classify_error(
                exc, sql, backend=self._profile.backend, timeout_s=timeout_s, secrets=self._secrets
            ) from exc
