"""Counting questions (issue 12): "how many X" counts each X once even where a join or its own
table repeats it, per-group counts, and HAVING on a count through a table linking two others.
Schemas are built here in snake_case, camelCase and coded-prefix styles, none with declared keys."""

from __future__ import annotations

import pytest

import nl2sql
from nl2sql.reasoning.offline.catalog.index import build_index
from nl2sql.schema.models import Column, SchemaSnapshot, Table
from nl2sql.schema.relationships import inferred_key

# four workshops, three of them run (one three times, one twice): a join with the runs repeats
# the workshops; `number` is unique too, so two columns look like a key
_SNAKE = """
    CREATE TABLE workshops (workshop_id INTEGER, title TEXT, topic TEXT, number TEXT);
    INSERT INTO workshops VALUES (1, 'Wheel basics', 'Pottery', 'P-1'),
        (2, 'Glazes', 'Pottery', 'P-2'), (3, 'Looms', 'Weaving', 'W-1'), (4, 'Beads', 'Glass', 'G-1');
    CREATE TABLE workshop_runs (run_id INTEGER, workshop_id INTEGER, run_month TEXT);
    INSERT INTO workshop_runs VALUES (10, 1, 'May'), (11, 1, 'June'), (12, 1, 'July'),
        (13, 2, 'May'), (14, 2, 'June'), (15, 3, 'May');
"""
# one row per enrolment: members 7 and 9 enrolled twice
_CAMEL = """
    CREATE TABLE Enrolments (enrolmentId INTEGER, memberId INTEGER, classCode TEXT, paidUp TEXT);
    INSERT INTO Enrolments VALUES (1, 7, 'YOGA', 'yes'), (2, 7, 'SPIN', 'no'),
        (3, 8, 'YOGA', 'yes'), (4, 9, 'YOGA', 'yes'), (5, 9, 'BOX', 'no');
"""
# painters and exhibitions linked only through showings
_LINKED = """
    CREATE TABLE painters (painter_id INTEGER, painter_name TEXT);
    INSERT INTO painters VALUES (1, 'Ines'), (2, 'Oleg'), (3, 'Pia');
    CREATE TABLE exhibitions (exhibition_id INTEGER, exhibition_title TEXT);
    INSERT INTO exhibitions VALUES (1, 'Light'), (2, 'Water'), (3, 'Stone');
    CREATE TABLE showings (painter_id INTEGER, exhibition_id INTEGER);
    INSERT INTO showings VALUES (1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (3, 3);
"""
_CODED = """
    CREATE TABLE tblVans (vanId INTEGER, vanColour TEXT);
    INSERT INTO tblVans VALUES (1, 'red'), (2, 'red'), (3, 'blue');
    CREATE TABLE tblTrips (tripId INTEGER, vanId INTEGER, tripKm INTEGER);
    INSERT INTO tblTrips VALUES (20, 1, 5), (21, 1, 9), (22, 1, 4), (23, 3, 7), (24, 3, 2);
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("counts")
    scripts = {"snake": _SNAKE, "camel": _CAMEL, "linked": _LINKED, "coded": _CODED}
    return nl2sql.connect(
        sources=sqlite_sources(folder, scripts),
        settings={"project_dir": str(folder / "p"), "min_confidence": 0},
    )


def _rows(result) -> list:
    assert result.status == "success", result.first_error
    return sorted(tuple(r) for r in result.to_dict()["rows"])


@pytest.mark.parametrize(
    ("datasource", "question", "expected"),
    [
        # COUNT(*) over the join would say 5 pottery workshops
        (
            "snake",
            "How many workshops with runs are there for each topic?",
            [("Pottery", 2), ("Weaving", 1)],
        ),
        (
            "coded",
            "How many vans with trips are there for each van colour?",
            [("blue", 1), ("red", 1)],
        ),
        (
            "linked",
            "How many exhibitions are there for each painter?",
            [("Ines", 3), ("Oleg", 2), ("Pia", 1)],
        ),
    ],
)
def test_entities_a_join_repeats_are_counted_once(session, datasource, question, expected):
    result = session.ask(question, datasource=datasource)
    assert _rows(result) == expected
    assert "COUNT(DISTINCT" in result.sql.upper()


def test_a_key_repeated_in_its_own_table_counts_distinct_values(session):
    # five enrolments of three members: an identifier is never summed, nor counted per row
    result = session.ask("How many member ids are there?", datasource="camel")
    assert _rows(result) == [(3,)]
    assert "distinct" in result.answer.lower()


def test_a_count_cue_word_that_is_also_a_column_name_stays_the_count(session):
    # `number` is a column of workshops; "total number of" still asks for a count
    result = session.ask(
        "What is the total number of workshops for each topic?", datasource="snake"
    )
    assert _rows(result) == [("Glass", 1), ("Pottery", 2), ("Weaving", 1)]


def test_counting_a_yes_no_column_is_refused(session):
    result = session.ask("How many paid ups are there?", datasource="camel")
    assert result.status != "success"
    assert "yes/no" in result.first_error.message


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How many painters have more than 1 exhibition?", [(2,)]),
        ("Which painters have more than 1 exhibition?", [("Ines",), ("Oleg",)]),
        ("How many painters have at least 3 exhibitions?", [(1,)]),
    ],
)
def test_having_on_a_count_through_a_linking_table(session, question, expected):
    result = session.ask(question, datasource="linked")
    assert _rows(result) == expected


def test_the_answer_names_the_listed_entities_not_the_counted_ones(session):
    result = session.ask("Which painters have more than 1 exhibition?", datasource="linked")
    assert result.answer.startswith("2 painters match")


def test_a_key_named_after_its_table_wins_over_another_unique_key_word():
    def col(name: str, kind: str = "INTEGER") -> Column:
        return Column(name=name, type=kind, distinct_count=4)

    table = Table(
        name="workshops",
        row_count=4,
        columns=[col("workshop_id"), col("number", "TEXT"), col("topic", "TEXT")],
    )
    assert inferred_key(table) == "workshop_id"
    both = Table(name="workshops", row_count=4, columns=[col("id"), col("number", "TEXT")])
    assert inferred_key(both) == "id"  # an id identifies a row; a unique number is business data
    idx = build_index(SchemaSnapshot(datasource_id="x", dialect="sqlite", tables=[both]))
    assert idx.row_key("workshops") == "id"


def test_a_superlative_over_a_number_of_things_shows_only_the_entity(session):
    result = session.ask(
        "Which painter has the highest number of exhibitions?", datasource="linked"
    )
    assert _rows(result) == [("Ines",)]


def test_the_answer_says_distinct_only_when_the_sql_counts_distinct(session):
    rows = session.ask("How many different workshops are there?", datasource="snake")
    assert _rows(rows) == [(4,)] and "DISTINCT" not in rows.sql.upper()
    assert "different" not in rows.answer and "distinct" not in rows.answer
    runs = session.ask("How many distinct workshops with runs are there?", datasource="snake")
    assert _rows(runs) == [(3,)] and "COUNT(DISTINCT" in runs.sql.upper()
    assert "distinct" in runs.answer
