"""A percentage, a fraction or a ratio answered end to end on schemas built here (snake_case on
SQLite, camelCase on DuckDB): the sentence carries "%" only when the SQL multiplied by 100, says
what was divided by what, and an empty denominator gives NULL (the SQL's NULLIF) and a sentence
saying so, never an error or infinity."""

from __future__ import annotations

import duckdb
import pytest

import nl2sql
from nl2sql.reasoning.offline.plan.ratio import share_parts

_SHOPS = """
    CREATE TABLE shops (shop_id INTEGER, shop_name TEXT, city TEXT, rating REAL);
    INSERT INTO shops VALUES (1, 'North', 'Oslo', 4.8), (2, 'South', 'Oslo', 3.9),
        (3, 'East', 'Rome', 4.6), (4, 'West', 'Lima', 2.5);
"""
_TRIPS = """
    CREATE TABLE "tripLog" ("tripId" INTEGER, "tripCity" TEXT, "distanceKm" INTEGER,
        "fareAmount" INTEGER);
    INSERT INTO "tripLog" VALUES (1, 'Oslo', 10, 30), (2, 'Rome', 4, 12), (3, 'Oslo', 7, 15);
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("quotient")
    sources = sqlite_sources(folder, {"shops": _SHOPS})
    trips = folder / "trips.duckdb"
    with duckdb.connect(str(trips)) as con:
        con.execute(_TRIPS)
    sources["trips"] = str(trips)
    return nl2sql.connect(sources=sources, settings={"project_dir": str(folder / "project")})


def _ask(session, question: str, datasource: str):
    result = session.ask(question, datasource=datasource)
    assert result.status == "success", result.first_error
    assert "NULLIF(" in (result.sql or "")
    return result.to_dict()["rows"], result.answer


@pytest.mark.parametrize(
    ("question", "datasource", "rows", "answer"),
    [
        pytest.param(
            "What percentage of shops are in Oslo?",
            "shops",
            [[50.0]],
            "50% of shops are in Oslo. Rows of shops where city = 'Oslo', divided by all rows"
            " of shops, times 100.",
            id="percentage-sqlite",
        ),
        pytest.param(
            "What percentage of trip logs have a distance km above 5?",
            "trips",
            [[200 / 3]],
            "66.67% of trip logs have a distance km above 5. Rows of tripLog where distanceKm"
            " > 5, divided by all rows of tripLog, times 100.",
            id="percentage-duckdb",
        ),
        pytest.param(
            "What fraction of shops are in Rome?",
            "shops",
            [[0.25]],
            "The fraction of shops that are in Rome is 0.25 (25%). Rows of shops where city ="
            " 'Rome', divided by all rows of shops.",
            id="fraction-has-no-percent-sign",
        ),
        pytest.param(
            "What is the ratio of the total fare amount to the total distance km?",
            "trips",
            [[57 / 21]],
            "The ratio of the total fare amount to the total distance km is 2.71."
            " The sum of tripLog.fareAmount, divided by the sum of tripLog.distanceKm.",
            id="ratio-of-sums",
        ),
    ],
)
def test_a_quotient_answer_says_its_number_and_what_was_divided(
    session, question, datasource, rows, answer
):
    got_rows, text = _ask(session, question, datasource)
    assert got_rows == [[pytest.approx(rows[0][0])]]
    assert text == answer


@pytest.mark.parametrize(
    ("question", "datasource"),
    [
        ("What is the ratio of shops in Oslo to shops with a rating above 9?", "shops"),
        (
            "What is the ratio of trip logs in Oslo to trip logs with a distance km above 50?",
            "trips",
        ),
    ],
)
def test_an_empty_denominator_is_no_value_and_the_answer_says_so(session, question, datasource):
    rows, text = _ask(session, question, datasource)
    assert rows == [[None]]
    assert text.startswith("There is no ratio: the total it divides by is zero or empty.")
    assert "none" not in text and "inf" not in text


def test_the_whole_of_a_share_keeps_its_own_condition(session):
    rows, text = _ask(
        session, "What percentage of shops with a rating above 4 are in Oslo?", "shops"
    )
    assert rows == [[50.0]]  # North of {North, East}: the whole is the shops rated above 4
    assert text.startswith("50% of shops with a rating above 4 are in Oslo.")
    assert "divided by rows of shops where rating > 4, times 100." in text


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("What share of shops are in Oslo?", ("share", "shops", "are", "in Oslo")),
        (
            "What percentage of people who have cats are over 30?",
            ("percentage", "people who have cats", "are", "over 30"),
        ),
        ("What fraction of shops with a pool?", ("fraction", "shops", "with", "a pool")),
        ("How many shops are in Oslo?", None),
    ],
)
def test_a_share_splits_its_whole_at_the_main_verb(question, parts):
    assert share_parts(question) == parts
