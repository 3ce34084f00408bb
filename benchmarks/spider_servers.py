"""Copy Spider's SQLite databases into PostgreSQL (a schema each) and MariaDB (a database each).

Types follow what SQLite actually stores, not only what a column declares, because SQLite's
comparisons follow the stored class: a column whose values are all INTEGER becomes BIGINT, all
INTEGER/REAL becomes DOUBLE (or the declared DECIMAL(p, s)), anything holding TEXT becomes text,
except TEXT that is only plain numbers ('2014', '18.5'): Spider's queries compare those with
numbers (`year = 2014`), which SQLite's affinity allows and the servers' types must too.
Text compares byte-wise as in SQLite: `COLLATE "C"` in PostgreSQL, `utf8mb4_bin` in MariaDB
(its default collation is case-insensitive). Names are loaded in lower case, the case the
benchmark's normalized queries use (SQLite resolves names case-insensitively; MariaDB's table
names are case-sensitive). Data goes through the Python drivers: no DuckDB extension is needed.
"""

from __future__ import annotations

import re
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import URL, make_url
from sqlglot import exp

_NUMBER = re.compile(r"-?(0|[1-9]\d*)(\.\d+)?")
_DECIMAL = re.compile(r"(DECIMAL|NUMERIC)\s*\(\s*\d+\s*,\s*\d+\s*\)", re.I)


@dataclass(frozen=True)
class SourceColumn:
    name: str
    declared: str
    stored: frozenset[str]  # SQLite storage classes present: integer, real, text, blob
    max_length: int
    numeric_text: str | None = None  # "integer"/"real" when every TEXT value is such a number


def read_tables(path: Path) -> dict[str, list[SourceColumn]]:
    """Every table of a SQLite file with its columns' declared and stored types."""
    con = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        names = [r[0] for r in con.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'")]  # fmt: skip
        return {name: _columns(con, name) for name in names}
    finally:
        con.close()


def _columns(con: sqlite3.Connection, table: str) -> list[SourceColumn]:
    quoted = exp.to_identifier(table, quoted=True).sql("sqlite")
    columns = []
    for _, name, declared, *_ in con.execute(f"PRAGMA table_info({quoted})"):
        col = exp.to_identifier(name, quoted=True).sql("sqlite")
        stats = con.execute(
            f"SELECT group_concat(DISTINCT typeof({col})), max(length(CAST({col} AS TEXT))) FROM {quoted}"
        ).fetchone()
        stored = frozenset((stats[0] or "").split(",")) - {"null", ""}
        numeric = _numeric_text(con, quoted, col) if "text" in stored else None
        columns.append(SourceColumn(name, declared or "", stored, int(stats[1] or 0), numeric))
    return columns


def _numeric_text(con: sqlite3.Connection, table: str, col: str) -> str | None:
    """ "integer" or "real" when every TEXT value of the column is a plain decimal number."""
    values = [r[0] for r in con.execute(
        f"SELECT DISTINCT {col} FROM {table} WHERE typeof({col}) = 'text'")]  # fmt: skip
    if not values or not all(_NUMBER.fullmatch(v) for v in values):
        return None
    return "real" if any("." in v for v in values) else "integer"


def target_type(col: SourceColumn, dialect: str) -> exp.DataType:
    """The server type that keeps SQLite's behaviour for this column."""
    stored, declared = col.stored, col.declared.upper()
    if col.numeric_text:  # numbers kept as text ('2014'): the queries compare them with numbers
        stored = (stored - {"text"}) | {col.numeric_text}
    if not stored:  # all NULL: trust the declaration
        stored = frozenset({"integer"} if "INT" in declared else {"real"} if any(
            k in declared for k in ("REAL", "FLOA", "DOUB", "DEC", "NUM")) else {"text"})  # fmt: skip
    if stored <= {"integer"}:
        return exp.DataType.build("BIGINT")
    if stored <= {"integer", "real"}:
        match = _DECIMAL.search(declared)
        return exp.DataType.build(match.group(0) if match else "DOUBLE", dialect=dialect)
    if stored <= {"blob"}:
        return exp.DataType.build("BLOB", dialect=dialect)
    if dialect == "mysql" and col.max_length <= 255:
        return exp.DataType.build(f"VARCHAR({max(col.max_length, 1)})", dialect=dialect)
    return exp.DataType.build("TEXT")


def create_sql(table: str, columns: list[SourceColumn], dialect: str, schema: str | None) -> str:
    """CREATE TABLE with lower-case names; PostgreSQL text columns collate as "C"."""
    defs = []
    for col in columns:
        kind = target_type(col, dialect)
        constraints = []
        if dialect == "postgres" and kind.this == exp.DataType.Type.TEXT:
            collate = exp.CollateColumnConstraint(this=exp.to_identifier("C", quoted=True))
            constraints.append(exp.ColumnConstraint(kind=collate))
        name = exp.to_identifier(col.name.lower(), quoted=True)
        defs.append(exp.ColumnDef(this=name, kind=kind, constraints=constraints))
    target = exp.table_(table.lower(), db=schema, quoted=True)
    return exp.Create(this=exp.Schema(this=target, expressions=defs), kind="TABLE").sql(dialect)


def copy_rows(path: Path, table: str, engine: sa.Engine, schema: str | None) -> int:
    """Copy every row of a SQLite table into the server table of the same (lower-case) name."""
    con = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    quoted = exp.to_identifier(table, quoted=True).sql("sqlite")
    try:
        cur = con.execute(f"SELECT * FROM {quoted}")
        names = [d[0].lower() for d in cur.description]
        rows = [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
    finally:
        con.close()
    if rows:
        target = sa.table(table.lower(), *(sa.column(n) for n in names), schema=schema)
        with engine.begin() as conn:
            conn.execute(sa.insert(target), rows)
    return len(rows)


@contextmanager
def loaded(server_url: str, databases: dict[str, Path]) -> Iterator[dict[str, URL]]:
    """Load each SQLite file into the server; yield {db_id: URL reaching only it}; drop after."""
    url = make_url(server_url)
    postgres = url.get_backend_name() == "postgresql"
    dialect = "postgres" if postgres else "mysql"
    admin = sa.create_engine(url, poolclass=sa.NullPool)
    suffix = uuid.uuid4().hex[:6]
    names = {db: f"nl2sql_fid_{db}_{suffix}" for db in databases}
    quote = admin.dialect.identifier_preparer.quote
    try:
        urls = {}
        for db, path in databases.items():
            with admin.begin() as conn:
                if postgres:
                    conn.exec_driver_sql(f"CREATE SCHEMA {quote(names[db])}")
                else:
                    conn.exec_driver_sql(
                        f"CREATE DATABASE {quote(names[db])} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
                    )
            urls[db] = _load_one(url, path, names[db], dialect)
        yield urls
    finally:
        with admin.begin() as conn:
            for name in names.values():
                kind = "SCHEMA" if postgres else "DATABASE"
                conn.exec_driver_sql(
                    f"DROP {kind} IF EXISTS {quote(name)}{' CASCADE' if postgres else ''}"
                )
        admin.dispose()


def _load_one(url: URL, path: Path, name: str, dialect: str) -> URL:
    if dialect == "postgres":
        scoped = url.update_query_dict({"options": f"-csearch_path={name}"})
    else:
        scoped = url.set(database=name)
    engine = sa.create_engine(scoped, poolclass=sa.NullPool)
    try:
        tables = read_tables(path)
        with engine.begin() as conn:
            for table, columns in tables.items():
                conn.exec_driver_sql(create_sql(table, columns, dialect, None).replace("%", "%%"))
        for table in tables:
            copy_rows(path, table, engine, None)
    finally:
        engine.dispose()
    return scoped
