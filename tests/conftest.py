"""Fixtures every test folder may use: the URLs of the PostgreSQL and MariaDB test servers, and
the material of the `../shared` folder beside the clone.

`NL2SQL_TEST_POSTGRES_URL` and `NL2SQL_TEST_MYSQL_URL` name the servers (`.ci/run` exports both).
`../shared` holds what is not part of the repository (benchmark data, SQL corpora); a fresh clone
has none. A test that needs a server which is not configured or does not answer, or a `../shared`
path that is not there, fails in CI (env `CI` set) and is skipped elsewhere, with the reason
either way.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

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
