"""Hyphenated words and tally rows: a compound whose glued form names a table or column
("check-ins" of `checkin`, "e-mail" of `Email`, "sign-up date" of `signup_date`), a stored
code written with its hyphen ("SUP-004"), and rows that each stand for several things (a
`visit_count` column): "how many visits" adds them up. Schemas are built here: snake_case with
declared keys, camelCase without keys, coded prefixes."""

from __future__ import annotations

import pytest

import nl2sql

_SNAKE = """
    CREATE TABLE shop (shop_id INTEGER PRIMARY KEY, shop_name TEXT, region TEXT);
    INSERT INTO shop VALUES (1, 'Corner', 'North'), (2, 'Harbour', 'South');
    CREATE TABLE checkin (checkin_id INTEGER PRIMARY KEY,
        shop_id INTEGER REFERENCES shop(shop_id), weekday TEXT, count INTEGER);
    INSERT INTO checkin VALUES (1, 1, 'Monday', 5), (2, 1, 'Friday', 3), (3, 2, 'Monday', 7),
        (4, 2, 'Sunday', 1);
"""
_CAMEL = """
    CREATE TABLE vendors (vendorCode TEXT, vendorName TEXT, signupDate TEXT, eMail TEXT);
    INSERT INTO vendors VALUES ('SUP-004', 'Acme Tools', '2020-01-05', 'sales@acme.test'),
        ('SUP-017', 'Bolt Works', '2021-03-09', 'hi@bolt.test'),
        ('SUP-020', 'Crane Ltd', '2022-07-30', 'desk@crane.test');
"""
_CODED = """
    CREATE TABLE tblPage (pagId INTEGER, pagTitle TEXT);
    INSERT INTO tblPage VALUES (1, 'Home'), (2, 'Pricing');
    CREATE TABLE tblVisit (visPageId INTEGER, visDay TEXT, visCnt INTEGER);
    INSERT INTO tblVisit VALUES (1, '2024-01-01', 40), (1, '2024-01-02', 25),
        (2, '2024-01-01', 9), (2, '2024-01-02', 6);
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("hyphens")
    return nl2sql.connect(
        sources=sqlite_sources(folder, {"snake": _SNAKE, "camel": _CAMEL, "coded": _CODED}),
        settings={"project_dir": str(folder / "p")},
    )


def _rows(result) -> list:
    assert result.status == "success", result.first_error
    return sorted(tuple(r) for r in result.to_dict()["rows"])


@pytest.mark.parametrize(("question", "source", "expected"), [
    # was refused: "ins" matched nothing
    ("How many check-ins were there on Monday?", "snake", [(12,)]),
    ("What is the e-mail of vendor Acme Tools?", "camel", [("sales@acme.test",)]),
    ("Which vendors have a sign-up date after 2021-01-01?", "camel",
     [("Bolt Works",), ("Crane Ltd",)]),
])
def test_a_hyphenated_compound_names_what_its_glued_form_names(session, question, source,
                                                              expected):
    assert _rows(session.ask(question, datasource=source)) == expected


def test_a_stored_code_keeps_its_hyphen(session):
    # was a filter on nothing: "SUP" and "004" were two words
    result = session.ask("What is the name of vendor SUP-017?", datasource="camel")
    assert _rows(result) == [("Bolt Works",)]


@pytest.mark.parametrize(("question", "source", "expected"), [
    ("How many check-ins did each shop get?", "snake", [("Corner", 8), ("Harbour", 8)]),
    ("How many visits did the Pricing page get?", "coded", [(15,)]),
])
def test_counting_tally_rows_adds_up_their_count(session, question, source, expected):
    # each row stands for several check-ins / visits: COUNT(*) was the number of rows
    assert _rows(session.ask(question, datasource=source)) == expected


def test_distinct_tally_rows_are_still_counted_as_rows(session):
    result = session.ask("How many different shops have check-ins?", datasource="snake")
    assert _rows(result) == [(2,)]
