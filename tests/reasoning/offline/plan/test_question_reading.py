"""Question-reading rules (issue 12: never a confident wrong answer): "X or Y" of one column is
one IN condition, a table named as the sort key sorts by its label, a value followed by a noun
belongs to the table the noun names, a per-group summary lists the largest groups first (over time: in time order), and
ordering a single total is refused. Schemas are built here, in snake_case and camelCase, none with
declared keys."""

from __future__ import annotations

import pytest

import nl2sql

_SNAKE = """
    CREATE TABLE learners (learner_id INTEGER, learner_name TEXT, district TEXT);
    INSERT INTO learners VALUES (1, 'Ada', 'Harbour'), (2, 'Bo', 'Hill'), (3, 'Cy', 'Hill'),
        (4, 'Di', 'Harbour');
    CREATE TABLE crews (crew_id INTEGER, crew_name TEXT);
    INSERT INTO crews VALUES (1, 'Harbour'), (2, 'Anchor');
    CREATE TABLE enrolments (enrolment_id INTEGER, learner_id INTEGER, crew_id INTEGER,
        delivery TEXT, mark TEXT);
    INSERT INTO enrolments VALUES (10, 1, 2, 'on-site', 'B'), (11, 2, 1, 'on-site', 'A'),
        (12, 3, 1, 'remote', 'D'), (13, 4, 1, 'on-site', 'D'), (14, 4, 1, 'on-site', 'C'),
        (15, 2, 2, 'remote', 'B');
"""
_CAMEL = """
    CREATE TABLE shop (shopId INTEGER, shopName TEXT);
    INSERT INTO shop VALUES (1, 'Maple'), (2, 'Birch'), (3, 'Cedar');
    CREATE TABLE purchase (purchaseId INTEGER, shopId INTEGER, payMethod TEXT, tier TEXT,
        purchaseYear INTEGER, unitNum INTEGER);
    INSERT INTO purchase VALUES (20, 1, 'Pay-Later', 'B', 2021, 9), (21, 2, 'card', 'A', 2022, 1),
        (22, 2, 'card', 'D', 2023, 2), (23, 2, 'Pay-Later', 'D', 2023, 3),
        (24, 3, 'Pay-Later', 'B', 2023, 4);
"""

_RIDERS = """
    CREATE TABLE riders (rider_id INTEGER, rider_name TEXT, season INTEGER, payout REAL);
    INSERT INTO riders VALUES (1, 'Ines', 2024, 900.0), (2, 'Omar', 2023, 1500.0),
        (3, 'Uma', 2022, 300.0);
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    tmp_path = tmp_path_factory.mktemp("reading")
    sources = sqlite_sources(tmp_path, {"snake": _SNAKE, "camel": _CAMEL, "riders": _RIDERS})
    return nl2sql.connect(sources=sources, settings={"project_dir": str(tmp_path / "p")})


def _rows(result) -> list:
    assert result.status == "success", result.first_error
    return [tuple(r) for r in result.to_dict()["rows"]]


def test_letters_joined_by_or_are_one_in_condition_beside_a_hyphenated_value(session):
    # "a mark of B or D": capital letters no noun follows are values, not the article "a";
    # "on-site" is stored with its hyphen, asked as two words
    result = session.ask(
        "Which learner ids have an on-site enrolment and a mark of B or D?", datasource="snake"
    )
    assert sorted(_rows(result)) == [(1,), (4,)]


def test_letters_joined_by_or_in_camel_case(session):
    result = session.ask(
        "Which purchase ids were paid by card with a tier of A or D?", datasource="camel"
    )
    assert sorted(_rows(result)) == [(21,), (22,)]


def test_a_table_named_as_the_sort_key_sorts_by_its_label(session):
    result = session.ask(
        "What is the number of purchases in each shop, ordered by the shop?",
        datasource="camel",
    )
    assert _rows(result) == [("Birch", 3), ("Cedar", 1), ("Maple", 1)]


def test_a_per_group_count_lists_the_largest_group_first(session):
    result = session.ask("How many enrolments does each crew have?", datasource="snake")
    assert _rows(result) == [("Harbour", 4), ("Anchor", 2)]


def test_a_per_year_count_is_in_time_order(session):
    result = session.ask("How many purchases were made in each year?", datasource="camel")
    assert _rows(result) == [(2021, 1), (2022, 1), (2023, 3)]


def test_a_total_of_a_column_named_number_of_sums_it_per_group(session):
    # "number of units" names unitNum: "the total number of units" is its sum, not a row count
    result = session.ask(
        "What is the total number of units bought in each shop?", datasource="camel"
    )
    assert _rows(result) == [("Maple", 9), ("Birch", 6), ("Cedar", 4)]


def test_a_value_followed_by_a_noun_belongs_to_the_table_the_noun_names(session):
    # 'Harbour' is a crew and a district: "the Harbour crew" is the crew
    result = session.ask("Which learners are in the Harbour crew?", datasource="snake")
    assert sorted(_rows(result)) == [("Bo",), ("Cy",), ("Di",)]


def test_ordering_a_single_total_is_not_answered(session):
    result = session.ask(
        "Which shops have the highest number of purchases, ordered by the number of "
        "purchases in descending order?",
        datasource="camel",
    )
    assert result.status != "success"


def test_a_superlative_ranks_by_the_head_of_a_noun_compound(session):
    # "the highest season payout": the payout ranks; "season", a number column too, modifies it
    result = session.ask("Which rider got the highest season payout?", datasource="riders")
    assert _rows(result) == [("Omar",)]
