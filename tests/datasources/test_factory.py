"""open_datasource: the adapter is chosen from the URL or path; anything else is a ConfigError."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from nl2sql.datasources.duckdb import DuckDBAdapter
from nl2sql.datasources.factory import open_datasource
from nl2sql.datasources.locations import resolve_target
from nl2sql.datasources.sqlite import SQLiteAdapter
from nl2sql.errors import ConfigError


def _open(id_: str, target: str | Path, **opts):
    adapter = open_datasource(id_, target, **opts)
    adapter.close()
    return adapter


def test_paths_by_extension(duckdb_file: Path, sqlite_file: Path):
    assert isinstance(_open("w", duckdb_file), DuckDBAdapter)
    assert isinstance(_open("c", str(sqlite_file)), SQLiteAdapter)


def test_urls(duckdb_file: Path, sqlite_file: Path):
    assert isinstance(_open("w", f"duckdb:///{duckdb_file}"), DuckDBAdapter)  # 4 slashes: absolute
    assert isinstance(_open("c", f"sqlite:///{sqlite_file}"), SQLiteAdapter)


def test_relative_urls_follow_sqlalchemy():
    assert resolve_target("x", "sqlite:///data/crm.sqlite") == ("sqlite", Path("data/crm.sqlite"))
    assert resolve_target("x", "duckdb:////srv/w.duckdb") == ("duckdb", Path("/srv/w.duckdb"))


def test_a_db_file_is_opened_by_what_it_contains(
    sqlite_file: Path, duckdb_file: Path, tmp_path: Path
):
    lite_db = tmp_path / "legacy.db"
    shutil.copy(sqlite_file, lite_db)
    assert isinstance(_open("l", lite_db), SQLiteAdapter)
    duck_db = tmp_path / "warehouse.db"
    shutil.copy(duckdb_file, duck_db)
    assert isinstance(_open("d", duck_db), DuckDBAdapter)


def test_options_reach_the_adapter(sqlite_file: Path):
    adapter = _open("c", sqlite_file, description="CRM", row_cap=5, timeout_s=2.5, sample_values=3)
    assert (adapter.id, adapter.description, adapter.row_cap, adapter.timeout_s) == (
        "c",
        "CRM",
        5,
        2.5,
    )


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("postgresql+pg8000://user@localhost/db", "psycopg"),
        ("oracle+nosuchdriver://user@localhost/db", "not installed"),
        ("gopher://host/db", "unsupported"),
        ("ftp://host/file.duckdb", "unsupported"),
        ("notes.txt", "cannot tell"),
        ("sqlite:///:memory:", "database file"),
    ],
)
def test_unsupported_targets_are_config_errors(target, words):
    with pytest.raises(ConfigError) as info:
        open_datasource("x", target)
    message = str(info.value)
    assert words in message and "\n" not in message and "'x'" in message


def test_missing_file_is_a_config_error(tmp_path: Path):
    for name in ("absent.duckdb", "absent.sqlite"):
        with pytest.raises(ConfigError, match="not found"):
            open_datasource("x", tmp_path / name)


def test_a_file_that_is_no_database_is_a_config_error(tmp_path: Path):
    bogus = tmp_path / "bogus.sqlite"
    bogus.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(ConfigError, match="cannot open"):
        open_datasource("x", bogus)


def test_importing_the_package_does_not_import_duckdb():
    code = (
        "import sys, nl2sql.datasources, nl2sql.datasources.factory, nl2sql.demo; "
        "print('duckdb' in sys.modules, 'numpy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
