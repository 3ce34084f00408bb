"""Schema snapshots are reused across processes while the source's catalog is unchanged.

A second `connect()` on the same project folder reads the stored snapshot back instead of
introspecting (the adapter's `fetch_schema` is not called); a schema change (a new column, a new
table) changes the catalog fingerprint and the source is introspected again; `Session.refresh()`
introspects again even when nothing changed. The stored file keeps no samples of a column some
role may not read, and those samples are read again in memory for the users who may.
"""

from __future__ import annotations

import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import nl2sql
from nl2sql.datasources.duckdb import DuckDBAdapter
from nl2sql.datasources.sqlite import SQLiteAdapter
from nl2sql.errors import ConfigError
from nl2sql.security.rbac import UserContext

SECRET = "zed.secret@example.org"


def _sqlite(path: Path) -> Path:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT, email TEXT)")
    con.executemany("INSERT INTO customers VALUES (?, ?, ?)",
                    [(1, "Ada", SECRET), (2, "Bob", "bob@example.org")])
    con.commit()
    con.close()
    return path


def _duckdb(path: Path) -> Path:
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name VARCHAR, email VARCHAR)")
    con.execute(f"INSERT INTO customers VALUES (1, 'Ada', '{SECRET}'), (2, 'Bob', 'bob@example.org')")
    con.close()
    return path


ENGINES = {"sqlite": (_sqlite, SQLiteAdapter, sqlite3.connect),
           "duckdb": (_duckdb, DuckDBAdapter, lambda p: duckdb.connect(str(p)))}


@pytest.fixture
def introspections(monkeypatch):
    """Counts `fetch_schema` calls of every SQLite and DuckDB adapter."""
    calls: list[str] = []
    for cls in (SQLiteAdapter, DuckDBAdapter):
        original = cls.fetch_schema

        def spy(self, _original=original):
            calls.append(self.id)
            return _original(self)

        monkeypatch.setattr(cls, "fetch_schema", spy)
    return calls


def _connect(db: Path, project: Path, **kw) -> nl2sql.Session:
    return nl2sql.connect(sources={"db": str(db)}, settings={"project_dir": project}, **kw)


def _columns(session: nl2sql.Session) -> list[str]:
    return [f"{t.key}.{c.name}" for t in session.schema("db").tables for c in t.columns]


@pytest.mark.parametrize("engine", list(ENGINES))
def test_a_second_connect_reads_the_snapshot_back(tmp_path, introspections, engine):
    db = ENGINES[engine][0](tmp_path / f"db.{engine}")
    with _connect(db, tmp_path / "p") as first:
        shown = first.schema("db")
    assert introspections == ["db"]
    stored = tmp_path / "p" / "snapshots" / "db.json"
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    with _connect(db, tmp_path / "p") as second:
        assert second.schema("db") == shown
        assert (second.context.schemas.introspected, second.context.schemas.reused) == (0, 1)
    assert introspections == ["db"]  # not introspected again


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("change", ["ALTER TABLE customers ADD COLUMN city VARCHAR",
                                    "CREATE TABLE visits (visit_id INTEGER, day VARCHAR)"])
def test_a_schema_change_is_introspected_again(tmp_path, introspections, engine, change):
    build, _, open_writable = ENGINES[engine]
    db = build(tmp_path / f"db.{engine}")
    with _connect(db, tmp_path / "p") as first:
        before = _columns(first)
    con = open_writable(db)
    con.execute(change)
    con.commit() if engine == "sqlite" else None
    con.close()
    with _connect(db, tmp_path / "p") as second:
        after = _columns(second)
    assert introspections == ["db", "db"]
    assert len(after) > len(before)


def test_session_refresh_introspects_again(tmp_path, introspections):
    db = _sqlite(tmp_path / "db.sqlite")
    with _connect(db, tmp_path / "p") as session:
        session.schema("db")
        session.refresh("db")
        session.schema("db")
        assert introspections == ["db", "db"]
        session.refresh()
        session.schema("db")
        assert introspections == ["db", "db", "db"]
        with pytest.raises(ConfigError, match="unknown datasource 'nope'"):
            session.refresh("nope")
    with _connect(db, tmp_path / "p") as later:  # what the refresh stored is reused
        later.schema("db")
    assert len(introspections) == 3


def test_redacted_samples_are_read_again_for_those_who_may_read_them(tmp_path, introspections):
    db = _sqlite(tmp_path / "db.sqlite")
    config = tmp_path / "nl2sql.toml"
    config.write_text(
        f'[sources.db]\npath = "{db}"\n[settings]\nproject_dir = "{tmp_path / "p"}"\n'
        "[policies.roles.analyst.datasources.db]\n"
        'tables = "*"\ncolumns = { customers = ["customer_id", "name"] }\n'
        '[policies.roles.admin.datasources]\ndb = "*"\n'
    )
    admin = UserContext(roles=("admin",))
    for _ in range(2):  # introspected, then read back
        with nl2sql.connect(config=config, user=admin) as session:
            email = session.schema("db").table("customers").column("email")
            assert SECRET in email.samples
    assert introspections == ["db"]
    assert SECRET not in (tmp_path / "p" / "snapshots" / "db.json").read_text(encoding="utf-8")


def test_a_stored_snapshot_of_another_source_is_not_reused(tmp_path, introspections):
    """Two databases that happen to share an id (and a project folder) never mix."""
    one = _sqlite(tmp_path / "one.sqlite")
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x INTEGER)").connection.close()
    with _connect(one, tmp_path / "p") as session:
        session.schema("db")
    with _connect(other, tmp_path / "p") as session:
        assert _columns(session) == ["t.x"]
    assert introspections == ["db", "db"]


def test_one_source_imports_no_chromadb(tmp_path):
    db = _sqlite(tmp_path / "db.sqlite")
    code = (
        "import sys, nl2sql\n"
        f"s = nl2sql.connect(sources={{'db': {str(db)!r}}}, settings={{'project_dir': {str(tmp_path / 'p')!r}}})\n"
        "r = s.ask('How many customers are there?')\n"
        "assert r.status == 'success', r.errors\n"
        "print('chromadb' in sys.modules, 'jsonschema' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["False", "False"]


def test_several_small_sources_resolve_without_chromadb(tmp_path):
    """The resolver ranks a few sources in memory: still no chromadb import."""
    one = _sqlite(tmp_path / "crm.sqlite")
    other = tmp_path / "weather.sqlite"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE readings (station TEXT, rainfall REAL)")
    con.commit()
    con.close()
    code = (
        "import sys, nl2sql\n"
        f"s = nl2sql.connect(sources={{'crm': {str(one)!r}, 'weather': {str(other)!r}}}, "
        f"settings={{'project_dir': {str(tmp_path / 'p')!r}}})\n"
        "r = s.ask('How many customers are there?')\n"
        "assert r.status == 'success', r.errors\n"
        "print([sq.sub_query.datasource_id for sq in r.sub_queries], 'chromadb' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "['crm'] False"


def test_a_fingerprint_is_computed_once_per_snapshot_object(monkeypatch):
    """Asked several times per run; hashing hundreds of tables each time was a warm-path cost."""
    from nl2sql.schema.models import Column, SchemaSnapshot, Table

    calls = []
    original = SchemaSnapshot._structure_hash
    monkeypatch.setattr(SchemaSnapshot, "_structure_hash",
                        lambda self: calls.append(1) or original(self))
    snapshot = SchemaSnapshot(datasource_id="a", dialect="sqlite",
                              tables=[Table(name="t", columns=[Column(name="x", type="INTEGER")])])
    assert len({snapshot.fingerprint for _ in range(5)}) == 1 and len(calls) == 1
    changed = snapshot.model_copy(update={"tables": [Table(name="u", columns=[])]})
    assert changed.fingerprint != snapshot.fingerprint and len(calls) == 2


def test_postgres_snapshot_is_reused_until_its_columns_change(tmp_path, monkeypatch):
    """A server's fingerprint is its catalog: reused while unchanged, re-read after ALTER TABLE."""
    import os
    import uuid

    import sqlalchemy as sa

    from nl2sql.datasources.sqlalchemy import SQLAlchemyAdapter

    base = os.environ.get("NL2SQL_TEST_POSTGRES_URL")
    if not base:
        pytest.skip("NL2SQL_TEST_POSTGRES_URL not set")
    schema = f"reuse_{uuid.uuid4().hex[:10]}"  # its own schema: other tests' tables do not count
    admin = sa.create_engine(base)
    with admin.begin() as con:
        con.exec_driver_sql(f"CREATE SCHEMA {schema}")
        con.exec_driver_sql(f"CREATE TABLE {schema}.items (item_id INTEGER PRIMARY KEY, label TEXT)")
        con.exec_driver_sql(f"INSERT INTO {schema}.items VALUES (1, 'a'), (2, 'b')")
    calls: list[str] = []
    original = SQLAlchemyAdapter.fetch_schema
    monkeypatch.setattr(SQLAlchemyAdapter, "fetch_schema",
                        lambda self: calls.append(self.id) or original(self))
    url = f"{base}?options=-csearch_path%3D{schema}"
    try:
        for _ in range(2):
            with _connect(url, tmp_path / "p") as session:
                assert _columns(session) == ["items.item_id", "items.label"]
        assert calls == ["db"]
        with admin.begin() as con:
            con.exec_driver_sql(f"ALTER TABLE {schema}.items ADD COLUMN price NUMERIC")
        with _connect(url, tmp_path / "p") as session:
            assert "items.price" in _columns(session)
        assert calls == ["db", "db"]
    finally:
        with admin.begin() as con:
            con.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")
        admin.dispose()
