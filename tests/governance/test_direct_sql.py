"""Session.sql: an SQL cell's statement runs under the protections of a generated query —
the guard, the user's access, the execute.before hooks (a held query is refused), the row cap."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import nl2sql
from nl2sql.security.rbac import UserContext


@pytest.fixture
def library(tmp_path: Path) -> Path:
    """A small SQLite library in mixed naming styles."""
    path = tmp_path / "library.sqlite"
    con = sqlite3.connect(path)
    con.executescript(
        'CREATE TABLE "BookTitles" ("BookId" INTEGER PRIMARY KEY, "Title" TEXT, "Pages" INTEGER);'
        "INSERT INTO \"BookTitles\" VALUES (1, 'Dune', 412), (2, 'Emma', 474), (3, 'Ubik', 202);"
        "CREATE TABLE member_cards (card_no INTEGER PRIMARY KEY, holder_email TEXT);"
        "INSERT INTO member_cards VALUES (10, 'a@example.org'), (11, 'b@example.org');"
    )
    con.commit()
    con.close()
    return path


def _connect(tmp_path: Path, library: Path, extra: str = "", *, row_cap: int = 100, **kwargs):
    config = tmp_path / "nl2sql.toml"
    config.write_text(f'[sources.lib]\nurl = "sqlite:///{library}"\n{extra}', encoding="utf-8")
    return nl2sql.connect(config=config, settings={"project_dir": tmp_path / "p", "row_cap": row_cap},
                          **kwargs)


def test_rows_come_back_as_a_dataframe_with_the_row_cap(tmp_path, library):
    with _connect(tmp_path, library) as session:
        frame = session.sql("lib", '\nSELECT "Title", "Pages" FROM "BookTitles" ORDER BY "Pages";\n')
        assert frame.to_dict("list") == {"Title": ["Ubik", "Dune", "Emma"], "Pages": [202, 412, 474]}
    with _connect(tmp_path, library, row_cap=2) as session:
        assert len(session.sql("lib", 'SELECT "Title" FROM "BookTitles"')) == 2


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ('DROP TABLE "BookTitles"', "SQL guard refused"),
        ('SELECT 1; SELECT 2', "SQL guard refused"),
        ("", "the SQL is empty"),
        ("SELECT * FROM sqlite_master", "SQL guard refused"),
    ],
)
def test_what_the_guard_refuses_is_a_one_line_error(tmp_path, library, sql, message):
    with _connect(tmp_path, library) as session:
        with pytest.raises(ValueError, match=message) as caught:
            session.sql("lib", sql)
        assert len(str(caught.value).splitlines()) == 1
        assert session.sql("lib", 'SELECT COUNT(*) AS n FROM "BookTitles"').iloc[0, 0] == 3


def test_an_unknown_datasource_is_named(tmp_path, library):
    with _connect(tmp_path, library) as session, pytest.raises(ValueError, match="unknown datasource 'lab'; known: lib"):
        session.sql("lab", "SELECT 1")


def test_a_user_cannot_read_what_the_policy_denies(tmp_path, library):
    policy = tmp_path / "policies.yaml"
    policy.write_text('roles:\n  reader:\n    datasources:\n      lib:\n        tables: ["BookTitles"]\n',
                      encoding="utf-8")
    extra = f'[policies]\nfile = "{policy}"\n'
    with _connect(tmp_path, library, extra, user=UserContext(roles=("reader",))) as session:
        assert len(session.sql("lib", 'SELECT "Title" FROM "BookTitles"')) == 3
        with pytest.raises(ValueError, match="access denied|SQL guard refused"):
            session.sql("lib", "SELECT holder_email FROM member_cards")


def test_a_query_a_hook_would_hold_is_refused_not_run(tmp_path, library):
    extra = '[policies]\nsensitive = { lib = { member_cards = ["holder_email"] } }\n'
    with _connect(tmp_path, library, extra) as session:
        assert session.sql("lib", "SELECT card_no FROM member_cards").shape == (2, 1)
        with pytest.raises(ValueError, match="needs an approval .*approve it in its widget"):
            session.sql("lib", "SELECT holder_email FROM member_cards")
