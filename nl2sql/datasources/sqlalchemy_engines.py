"""URLs, pooled engines and per-engine read-only sessions for the SQLAlchemy adapter.

A `Profile` knows what one engine needs around every statement: PostgreSQL runs each call in a
`READ ONLY` transaction with a local `statement_timeout`; MySQL/MariaDB in `START TRANSACTION
READ ONLY` after resetting the session's access mode, with `max_execution_time` (MySQL) or
`max_statement_time` (MariaDB) and `sql_select_limit` = row cap + 1. Any other dialect runs in a
transaction that is always rolled back, and relies on the account being read-only (documented).
New pooled connections are also made read-only for the whole session, as a second line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import URL, make_url

from nl2sql.dialects import sqlglot_dialect
from nl2sql.errors import ConfigError, SQLGenError

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Engine

#: Driver used when a URL names only the engine (`postgresql://`, `mysql://`).
DEFAULT_DRIVERS = {"postgresql": "psycopg", "mysql": "pymysql", "mariadb": "pymysql"}
_ALIASES = {"postgres": "postgresql"}
_NO_LIMIT = 18446744073709551615  # MySQL's "no sql_select_limit"

_PG_ESTIMATES = sa.text(
    "SELECT n.nspname, c.relname, c.reltuples FROM pg_catalog.pg_class AS c "
    "JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace "
    "WHERE c.relkind IN ('r', 'p', 'm') AND n.nspname IN :schemas"
).bindparams(sa.bindparam("schemas", expanding=True))
_MYSQL_ESTIMATES = sa.text(
    "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_ROWS FROM information_schema.TABLES "
    "WHERE TABLE_TYPE = 'BASE TABLE' AND TABLE_SCHEMA IN :schemas"
).bindparams(sa.bindparam("schemas", expanding=True))


def normalize_url(id: str, raw: str | URL) -> URL:
    """The SQLAlchemy URL with the default driver filled in; ConfigError for a malformed one."""
    try:
        url = make_url(raw)
    except Exception as exc:  # noqa: BLE001 - ArgumentError, ValueError: a malformed URL
        raise ConfigError(f"datasource {id!r}: not a database URL ({type(exc).__name__})") from None
    backend, _, driver = url.drivername.partition("+")
    backend = _ALIASES.get(backend, backend)
    if not driver and backend in DEFAULT_DRIVERS:
        driver = DEFAULT_DRIVERS[backend]
    return url.set(drivername=f"{backend}+{driver}" if driver else backend)


def masked(url: URL) -> str:
    """The URL as text with its password hidden."""
    return url.render_as_string(hide_password=True)


def dialect_of(id: str, url: URL) -> str:
    """The sqlglot dialect for a URL's engine; ConfigError when sqlglot has none."""
    try:
        return sqlglot_dialect(url.get_backend_name())
    except SQLGenError:
        raise ConfigError(
            f"datasource {id!r}: no SQL dialect is known for {url.get_backend_name()!r} URLs"
        ) from None


class Profile:
    """Any SQLAlchemy dialect: a rolled-back transaction, no server-side limits."""

    backend = "generic"
    streams_natively = False
    # True: every checkout opens a new server session, so nothing a call left in its session
    # (user variables, temporary tables, session settings) reaches the next call.
    fresh_sessions = False

    def connect_args(self, connect_timeout_s: float) -> dict[str, Any]:
        return {}

    def on_connect(self, dbapi_connection: Any, record: Any) -> None:
        """Make a new pooled connection read-only for its whole session, where possible."""

    def begin(self, conn: Connection, timeout_s: float, row_limit: int | None) -> None:
        """Start the read-only transaction of one call."""

    def schemas(self, conn: Connection) -> list[str | None]:
        return [None]  # the connection's default schema

    def estimates_sql(self) -> sa.TextClause | None:
        return None


class PostgresProfile(Profile):
    backend = "postgresql"
    streams_natively = True

    def connect_args(self, connect_timeout_s: float) -> dict[str, Any]:
        return {"connect_timeout": max(1, round(connect_timeout_s)), "application_name": "nl2sql"}

    def on_connect(self, dbapi_connection: Any, record: Any) -> None:
        with dbapi_connection.cursor() as cur:
            cur.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
        dbapi_connection.commit()

    def begin(self, conn: Connection, timeout_s: float, row_limit: int | None) -> None:
        # Must be the transaction's first statement; SET LOCAL lasts until its end.
        conn.exec_driver_sql("SET TRANSACTION READ ONLY")
        timeout = f"{max(1, round(timeout_s * 1000))}ms"
        conn.execute(sa.text("SELECT set_config('statement_timeout', :t, true)"), {"t": timeout})

    def schemas(self, conn: Connection) -> list[str | None]:
        rows = conn.exec_driver_sql("SELECT unnest(current_schemas(false))").fetchall()
        return [r[0] for r in rows]

    def estimates_sql(self) -> sa.TextClause:
        return _PG_ESTIMATES


class MySQLProfile(Profile):
    backend = "mysql"
    # MySQL/MariaDB user variables (`@a := 1`) outlive the transaction and PyMySQL has no public
    # COM_RESET_CONNECTION: a new session per call (a few ms on a LAN) is the reset.
    fresh_sessions = True

    def connect_args(self, connect_timeout_s: float) -> dict[str, Any]:
        return {"connect_timeout": max(1, round(connect_timeout_s))}

    def on_connect(self, dbapi_connection: Any, record: Any) -> None:
        with dbapi_connection.cursor() as cur:
            cur.execute("SET SESSION TRANSACTION READ ONLY")

    def begin(self, conn: Connection, timeout_s: float, row_limit: int | None) -> None:
        limit = _NO_LIMIT if row_limit is None else row_limit
        if getattr(conn.dialect, "is_mariadb", False):
            setting = sa.text("SET SESSION max_statement_time = :t, sql_select_limit = :n")
            conn.execute(setting, {"t": round(timeout_s, 3), "n": limit})
        else:  # MySQL: milliseconds, and only for SELECT
            setting = sa.text("SET SESSION max_execution_time = :t, sql_select_limit = :n")
            conn.execute(setting, {"t": max(1, round(timeout_s * 1000)), "n": limit})
        # A previous call may have changed the session default; a DDL statement's implicit
        # commit starts a new transaction in that default mode, so reset it first.
        conn.exec_driver_sql("SET SESSION TRANSACTION READ ONLY")
        conn.exec_driver_sql("START TRANSACTION READ ONLY")

    def schemas(self, conn: Connection) -> list[str | None]:
        name = conn.exec_driver_sql("SELECT DATABASE()").scalar()
        if not name:
            raise ConfigError("a MySQL/MariaDB URL must name a database (mysql://host/dbname)")
        return [name]

    def estimates_sql(self) -> sa.TextClause:
        return _MYSQL_ESTIMATES


def profile_for(id: str, url: URL) -> Profile:
    """The profile of a URL's engine; PostgreSQL needs the psycopg (3) driver."""
    backend = url.get_backend_name()
    if backend == "postgresql":
        if url.get_driver_name() != "psycopg":
            raise ConfigError(
                f"datasource {id!r}: PostgreSQL is supported through psycopg 3; use a "
                "postgresql+psycopg:// (or postgresql://) URL"
            )
        return PostgresProfile()
    if backend in ("mysql", "mariadb"):
        return MySQLProfile()
    return Profile()


def create_engine(
    url: URL, profile: Profile, *, pool_size: int, connect_timeout_s: float
) -> Engine:
    """A pooled engine whose new connections are read-only sessions."""
    options: dict[str, Any] = {"pool_pre_ping": True, "hide_parameters": True}
    if profile.fresh_sessions:
        options = {"poolclass": sa.NullPool, "hide_parameters": True}
    elif url.get_backend_name() != "sqlite":  # SQLite pools differently and has no overflow
        options.update(pool_size=pool_size, max_overflow=pool_size, pool_recycle=1800)
    engine = sa.create_engine(url, connect_args=profile.connect_args(connect_timeout_s), **options)
    sa.event.listen(engine, "connect", profile.on_connect)
    return engine
