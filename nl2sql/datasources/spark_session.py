"""Spark sessions for the Spark adapter: one Spark context per master, shared, stopped by the last user.

A process holds one Spark context, so every Spark source of a classic master (`local[N]`,
`spark://`) shares one base SparkSession and reads through a session of its own on it
(`newSession()`: its own current database, same context); the base is stopped when the last
adapter that started it closes (a session the notebook started itself is never stopped). A
Spark Connect source gets a server-side session of its own, closed with the source. Before pyspark is asked for a session, what it would fail on
slowly or with a stack trace is checked here and reported in one line: pyspark not installed, no
Java runtime (classic masters start a JVM), a master or Spark Connect server that does not answer.
pyspark is imported here only, inside functions (never at `import nl2sql`).
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from nl2sql.errors import ConfigError, safe_one_line

#: Settings of a session this module starts: Arrow transfer of results, no web UI.
SESSION_CONF = {
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
}
_PROBE_TIMEOUT_S = 3.0
#: pyspark's loggers that print every failed query with its text and a JVM stack trace.
_QUERY_ERROR_LOGGERS = ("SQLQueryContextLogger", "DataFrameQueryContextLogger")
_IN_STATEMENT = threading.local()


class _InStatement(logging.Filter):
    """Drops pyspark's query-error records of a thread running an adapter statement: the adapter
    reports that error itself, in one line and without the SQL."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(_IN_STATEMENT, "active", False)


_FILTER = _InStatement()


@contextmanager
def quiet_query_errors() -> Iterator[None]:
    """Within this block, pyspark does not log this thread's failed queries (other code's are
    logged as before)."""
    _IN_STATEMENT.active = True
    try:
        yield
    finally:
        _IN_STATEMENT.active = False


def _install_quiet_logging() -> None:
    try:  # pyspark's loggers take extra keywords: they must be made by pyspark's logger class
        from pyspark.logger import PySparkLogger
    except ImportError:
        return
    for name in _QUERY_ERROR_LOGGERS:
        logger = PySparkLogger.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
    # pyspark warns on every Arrow conversion under pandas 3; nl2sql hands pyspark no pandas
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas",
                            category=FutureWarning)


@dataclass
class _Shared:
    session: Any
    users: int
    owned: bool  # started here: stopped when its last user releases it


_LOCK = threading.Lock()
_SESSIONS: dict[str, _Shared] = {}


def is_connect(master: str) -> bool:
    """A Spark Connect URL (`sc://host:port`) rather than a classic master."""
    return master.lower().startswith("sc://")


def shown_master(master: str) -> str:
    """`master` fit to show: a Spark Connect URL's parameters (`;token=...`) left out.

    >>> shown_master("sc://h:15002/;token=secret;user_id=me")
    'sc://h:15002/'
    """
    return master.split(";", 1)[0]


def acquire(id: str, master: str, conf: dict[str, str] | None = None) -> Any:
    """The shared SparkSession of `master`, started when none runs; ConfigError in one line.

    Spark Connect: a new session of the server's, never shared."""
    _install_quiet_logging()
    if is_connect(master):
        return _start(id, master, {})[0]
    with _LOCK:
        shared = _SESSIONS.get(master)
        if shared is not None and not _stopped(shared.session):
            shared.users += 1
            return shared.session
        session, owned = _start(id, master, {**SESSION_CONF, **(conf or {})})
        _SESSIONS[master] = _Shared(session, 1, owned)
        return session


def release(master: str, session: Any) -> None:
    """One user fewer; the last one stops a session this module started."""
    if is_connect(master):
        session.stop()
        return
    with _LOCK:
        shared = _SESSIONS.get(master)
        if shared is None or shared.session is not session:
            return
        shared.users -= 1
        if shared.users > 0:
            return
        del _SESSIONS[master]
    if shared.owned:
        session.stop()


def _running() -> Any | None:
    """The classic session running in this process (active or default), or None."""
    from pyspark.sql import SparkSession

    try:
        return SparkSession.active()
    except Exception:  # noqa: BLE001 - pyspark's "no active or default session"
        return None


def _stopped(session: Any) -> bool:
    """Whether the Spark context under `session` was stopped (by its owner, or the notebook)."""
    running = _running()
    return running is None or running.sparkContext is not session.sparkContext


def _start(id: str, master: str, conf: dict[str, str]) -> tuple[Any, bool]:
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise ConfigError(
            f"datasource {id!r}: a Spark source needs pyspark: pip install 'nl2sql[spark]'"
        ) from None
    if is_connect(master):
        _probe(id, master, "Spark Connect server")
        # Connect's own builder: pyspark's generic one would switch the whole process into
        # Connect mode (an environment variable), breaking classic sessions next to it.
        try:
            from pyspark.sql.connect.session import SparkSession as ConnectSession
        except ImportError as exc:  # grpcio and friends: pyspark's `connect` extra
            raise ConfigError(f"datasource {id!r}: Spark Connect needs pyspark's connect extra "
                              f"(pip install 'nl2sql[spark]'): {safe_one_line(exc)}") from None

        return _get_or_create(id, master, ConnectSession.builder.remote(master), create=True), True
    if master.lower().startswith("spark://"):
        _probe(id, master, "Spark master")
    _require_java(id)
    running = _running()
    if running is not None:
        if running.sparkContext.master != master:
            raise ConfigError(
                f"datasource {id!r}: this process already runs Spark on "
                f"{running.sparkContext.master!r}; one process holds one Spark context, so "
                f"{master!r} cannot be opened next to it"
            )
        return running, False
    builder = SparkSession.builder.master(master).appName("nl2sql")
    for key, value in conf.items():
        builder = builder.config(key, value)
    return _get_or_create(id, master, builder), True


def _get_or_create(id: str, master: str, builder: Any, *, create: bool = False) -> Any:
    try:
        return builder.create() if create else builder.getOrCreate()
    except Exception as exc:  # noqa: BLE001 - JVM start or connection failures, one line each
        raise ConfigError(f"datasource {id!r}: cannot start Spark on {shown_master(master)!r}: "
                          f"{safe_one_line(exc)}") from exc


def _require_java(id: str) -> None:
    """ConfigError unless a `java` runs from JAVA_HOME or PATH (pyspark's own lookup order)."""
    missing = java_missing()
    if missing:
        raise ConfigError(f"datasource {id!r}: {missing}")


def java_missing() -> str | None:
    """Why no Java runtime would start here (one line), or None when one is found."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if java and os.access(java, os.X_OK):
        return None
    where = f"JAVA_HOME={home!r} has no bin/java" if home else "no `java` on PATH"
    return (f"Spark needs a Java runtime (17 or 21) and {where}; install one "
            "(Debian: apt-get install openjdk-17-jre-headless) or set JAVA_HOME")


def spark_unavailable() -> str | None:
    """Why a local Spark cannot start here (pyspark not installed, no Java runtime), or None."""
    import importlib.util

    if importlib.util.find_spec("pyspark") is None:
        return "Spark needs pyspark: pip install 'nl2sql[spark]'"
    return java_missing()


def _probe(id: str, url: str, what: str) -> None:
    """ConfigError unless something accepts a TCP connection at the URL's host and port."""
    parts = urlsplit(url.split(";", 1)[0])
    default = 15002 if is_connect(url) else 7077
    host, port = parts.hostname or "localhost", parts.port or default
    try:
        socket.create_connection((host, port), timeout=_PROBE_TIMEOUT_S).close()
    except OSError as exc:
        raise ConfigError(
            f"datasource {id!r}: no {what} answers at {host}:{port} ({safe_one_line(exc)})"
        ) from None
