"""The connection itself refuses writes and file access, even with no SQL guard in front."""

from __future__ import annotations

from pathlib import Path

import pytest

from nl2sql.datasources.base import ResultError

from .conftest import STORES


def _refused(adapter, sql: str) -> ResultError:
    with pytest.raises(ResultError) as info:
        adapter.execute(sql, row_cap=10, timeout_s=5)
    assert info.value.retryable is False
    assert "\n" not in info.value.safe_message
    return info.value


def _store_count(adapter) -> int:
    return adapter.execute(
        'SELECT COUNT(*) AS n FROM "stores"', row_cap=1, timeout_s=5
    ).table.to_pylist()[0]["n"]


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO stores VALUES (99, 'Intruder', 'Ohio', 1)",
        "UPDATE stores SET state = 'Ohio'",
        "DELETE FROM stores",
        "CREATE TABLE intruder (x INTEGER)",
        "DROP TABLE sales",
    ],
)
def test_writes_are_refused(adapter, sql):
    error = _refused(adapter, sql)
    assert error.kind in ("read_only", "permission")
    assert _store_count(adapter) == len(STORES)


def test_attach_creates_no_file(adapter, tmp_path: Path):
    target = tmp_path / "attached.db"
    _refused(adapter, f"ATTACH '{target}' AS other")
    assert not target.exists()


def test_duckdb_copy_and_export_write_no_file(duck, tmp_path: Path):
    target = tmp_path / "out.csv"
    assert _refused(duck, f"COPY stores TO '{target}'").kind == "permission"
    assert not target.exists()


def test_duckdb_settings_cannot_reenable_file_access(duck):
    for setting in (
        "SET enable_external_access = true",
        "SET lock_configuration = false",
        "SET autoload_known_extensions = true",
    ):
        assert _refused(duck, setting).kind == "permission"


def test_duckdb_cannot_read_files(duck, tmp_path: Path):
    csv = tmp_path / "secret.csv"
    csv.write_text("a,b\n1,2\n", encoding="utf-8")
    for sql in (f"SELECT * FROM read_csv('{csv}')", f"SELECT * FROM '{csv}'"):
        error = _refused(duck, sql)
        assert error.kind == "permission"
        assert "1,2" not in error.safe_message


def test_duckdb_cannot_load_extensions(duck):
    _refused(duck, "INSTALL sqlite")
    _refused(duck, "LOAD sqlite")


def test_sqlite_vacuum_into_and_pragmas_are_refused(lite, tmp_path: Path):
    target = tmp_path / "copy.sqlite"
    assert _refused(lite, f"VACUUM INTO '{target}'").kind == "permission"
    assert not target.exists()
    assert _refused(lite, "PRAGMA writable_schema = 1").kind == "permission"
    assert _refused(lite, "SELECT load_extension('evil')").kind == "permission"


def test_duckdb_does_not_scan_python_variables(duck):
    secret_frame = {"password": ["hunter2"]}  # noqa: F841 - a replacement scan would find it
    error = _refused_or_unknown(duck, "SELECT * FROM secret_frame")
    assert "hunter2" not in error.safe_message


def _refused_or_unknown(adapter, sql: str) -> ResultError:
    with pytest.raises(ResultError) as info:
        adapter.execute(sql, row_cap=10, timeout_s=5)
    return info.value
