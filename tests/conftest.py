"""Fixtures every test folder may use: the URLs of the PostgreSQL and MariaDB test servers, and
the material of the `../shared` folder beside the clone, and one local Spark session.

`NL2SQL_TEST_POSTGRES_URL` and `NL2SQL_TEST_MYSQL_URL` name the servers (`.ci/run` exports both).
`../shared` holds what is not part of the repository (benchmark data, SQL corpora); a fresh clone
has none. Spark needs pyspark and a Java runtime (`.ci/run` installs one). A test that needs a
server or Spark which is not configured or does not answer, or a `../shared` path that is not
there, fails in CI (env `CI` set) and is skipped elsewhere, with the reason either way.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

# `%load_ext nl2sql` starts a warm-up thread in a notebook; tests (and the kernels they start)
# run without it, except the tests of the warm-up itself, which turn it on in a subprocess.
os.environ["NL2SQL_WARMUP"] = "0"

import pytest

_SERVERS = {
    "postgres": ("NL2SQL_TEST_POSTGRES_URL", "PostgreSQL"),
    "mysql": ("NL2SQL_TEST_MYSQL_URL", "MySQL/MariaDB"),
}
SHARED = Path(__file__).resolve().parents[2] / "shared"  # beside the clone, not in it


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (required in CI)", pytrace=False)
    pytest.skip(reason)


def _server_url(kind: str) -> str:
    """The URL from the environment, once the server has answered a query on it."""
    import sqlalchemy as sa

    from nl2sql.datasources.sqlalchemy_engines import masked, normalize_url

    variable, name = _SERVERS[kind]
    raw = os.environ.get(variable, "").strip()
    if not raw:
        _unavailable(f"{name} tests need {variable} (a SQLAlchemy URL of a test database)")
    url = normalize_url(kind, raw)
    engine = sa.create_engine(url, connect_args={"connect_timeout": 3}, poolclass=sa.NullPool)
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
    except Exception as exc:  # noqa: BLE001 - any failure means "does not answer"
        first = str(getattr(exc, "orig", exc)).strip().splitlines()[:1]
        _unavailable(f"{name} at {masked(url)} does not answer: {''.join(first)}")
    finally:
        engine.dispose()
    return url.render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """A PostgreSQL URL (psycopg driver) of a database where tests may create schemas."""
    return _server_url("postgres")


@pytest.fixture(scope="session")
def mysql_url() -> str:
    """A MySQL/MariaDB URL (PyMySQL driver) of a server where tests may create databases."""
    return _server_url("mysql")


@pytest.fixture(scope="session")
def shared_path() -> Callable[[str], Path]:
    """`shared_path("benchmarks/spider_dev/tables.json")`: that path of `../shared`, or the test
    stops there with "needs ../shared/… beside the clone" (skipped; failed in CI)."""

    def find(relative: str) -> Path:
        path = SHARED / relative
        if not path.exists():
            _unavailable(f"needs ../shared/{relative} beside the clone")
        return path

    return find


@pytest.fixture(scope="session")
def spark_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One `local[2]` SparkSession for the whole test run (starting one takes about 10 s): small
    shuffles, no web UI, its warehouse and Derby files in a temporary folder. Spark sources on
    `local[2]` join it; it is stopped at the end of the run."""
    from nl2sql.datasources.spark_session import spark_unavailable

    reason = spark_unavailable()
    if reason:
        _unavailable(f"Spark tests: {reason}")
    from pyspark.sql import SparkSession

    root = tmp_path_factory.mktemp("spark")
    session = (
        SparkSession.builder.master("local[2]")
        .appName("nl2sql-tests")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.warehouse.dir", str(root / "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={root / 'derby'}")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def spark_connect_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`sc://127.0.0.1:PORT` of a Spark Connect server (`local[2]`) started for the test run from
    pyspark's own jars, and stopped at its end."""
    from nl2sql.datasources.spark_session import spark_unavailable

    reason = spark_unavailable()
    if reason:
        _unavailable(f"Spark Connect tests: {reason}")
    import pyspark

    home = Path(pyspark.__file__).parent
    root = tmp_path_factory.mktemp("spark-connect")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    conf = {"spark.connect.grpc.binding.address": "127.0.0.1",
            "spark.connect.grpc.binding.port": str(port), "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "2", "spark.sql.warehouse.dir": str(root / "warehouse")}
    command = [str(home / "bin" / "spark-submit"), "--master", "local[2]",
               "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
               "--driver-java-options", f"-Dderby.system.home={root / 'derby'}",
               *(a for key, value in conf.items() for a in ("--conf", f"{key}={value}"))]
    log = (root / "server.log").open("wb")
    server = subprocess.Popen(command, env={**os.environ, "SPARK_HOME": str(home)}, stdout=log,
                              stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    _unavailable(f"the Spark Connect server did not start (see {root}/server.log)")
                time.sleep(0.5)
        yield f"sc://127.0.0.1:{port}"
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        log.close()
