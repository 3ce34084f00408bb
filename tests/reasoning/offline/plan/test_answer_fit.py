"""Plans that do not answer the question asked are refused (issue 12: never a confident wrong
answer); keys and labels of tables that declare none are inferred. Schemas are built here, in
snake_case, camelCase and glued lower-case names, none with declared keys."""

from __future__ import annotations

import pytest

import nl2sql
from nl2sql.reasoning.offline.catalog.index import build_index
from nl2sql.reasoning.offline.linking.linker import link
from nl2sql.reasoning.offline.plan.fit import check_fit
from nl2sql.reasoning.offline.plan.joins import connect
from nl2sql.reasoning.offline.shapes.resolve import Resolver
from nl2sql.reasoning.offline.shapes.spec import Agg, Col, Query, Unclear
from nl2sql.reasoning.offline.words.scan import scan
from nl2sql.schema.models import Column, SchemaSnapshot, Table

_SNAKE = """
    CREATE TABLE stores (store_id INTEGER, store_name TEXT, city TEXT);
    INSERT INTO stores VALUES (1, 'North', 'Oslo'), (2, 'South', 'Oslo'), (3, 'East', 'Rome');
    CREATE TABLE sales (sale_id INTEGER, store_id INTEGER, amount INTEGER);
    INSERT INTO sales VALUES (10, 1, 5), (11, 1, 7), (12, 1, 9), (13, 2, 4);
"""
_GLUED = """
    CREATE TABLE vendor (vendorid INTEGER, vendorname TEXT);
    INSERT INTO vendor VALUES (1, 'Acme'), (2, 'Bolt'), (3, 'Crane');
    CREATE TABLE item (itemid INTEGER, vendorid INTEGER, price INTEGER);
    INSERT INTO item VALUES (20, 1, 3), (21, 1, 8), (22, 2, 9), (23, 3, 1);
"""


@pytest.fixture()
def session(tmp_path, sqlite_sources):
    sources = sqlite_sources(tmp_path, {"snake": _SNAKE, "glued": _GLUED})
    return nl2sql.connect(sources=sources, settings={"project_dir": str(tmp_path / "p")})


def _rows(result) -> list:
    assert result.status == "success", result.first_error
    return sorted(tuple(r) for r in result.to_dict()["rows"])


def test_counting_entities_through_a_join_uses_the_inferred_key(session):
    # stores declare no key: store_id is unique and named after the table, so a join with the
    # sales repeating each store counts each store once (not 3 + 1 sale rows)
    result = session.ask("How many stores have sales?", datasource="snake")
    assert _rows(result) == [(2,)]
    assert "COUNT(DISTINCT" in result.sql.upper()


def test_a_label_glued_to_the_table_name_is_shown(session):
    result = session.ask("Which vendors have items with a price above 5?", datasource="glued")
    assert _rows(result) == [("Acme",), ("Bolt",)]


def _snapshot() -> SchemaSnapshot:
    def col(name: str, kind: str = "INTEGER", distinct: int = 4) -> Column:
        return Column(name=name, type=kind, distinct_count=distinct, min_value=1, max_value=9)

    return SchemaSnapshot(datasource_id="x", dialect="sqlite", tables=[
        Table(name="teamRoster", row_count=3,
              columns=[col("teamRosterId", distinct=3), col("teamName", "TEXT", 3)]),
        Table(name="playerStats", row_count=4,
              columns=[col("playerStatsId"), col("teamRosterId", distinct=3), col("goals"),
                       col("playerName", "TEXT")]),
    ])


def _check(question: str, q: Query) -> None:
    idx = build_index(_snapshot())
    s = scan(question)
    linking = link(s.tokens, idx, s.taken, None)
    tree = connect(idx, q.root, q.tables())
    check_fit(s, linking, Resolver(idx, []), q, tree, set(s.taken))


def test_inferred_key_is_the_tables_own_unique_key():
    idx = build_index(_snapshot())
    assert idx.pk("teamRoster") == ["teamRosterId"]
    assert idx.pk("playerStats") == ["playerStatsId"]  # not the unique-looking reference


def test_which_entity_missing_from_the_answer_is_refused():
    q = Query(root="playerStats", shape="listing", select=[(Col("playerStats", "goals"), None)])
    q.joined = ["teamRoster"]
    with pytest.raises(Unclear, match="'Which team rosters' asks for teamRoster rows"):
        _check("Which team rosters have goals?", q)
    named = Query(root="teamRoster", shape="listing",
                  select=[(Col("teamRoster", "teamName"), None)], joined=["playerStats"])
    _check("Which team rosters have goals?", named)  # the rows asked for are shown: no error


def test_how_many_rows_without_a_count_is_refused():
    q = Query(root="teamRoster", shape="ranking", select=[(Col("teamRoster", "teamName"), None)],
              order=[(Agg("count", "playerStats"), "desc")], limit=1,
              group=[Col("teamRoster", "teamName")])
    with pytest.raises(Unclear, match="'how many player stats' asks for a count"):
        _check("Which team name has the most player stats, and how many player stats?", q)


def test_total_without_an_aggregate_is_refused():
    q = Query(root="playerStats", shape="listing", select=[(Col("playerStats", "goals"), None)])
    with pytest.raises(Unclear, match="'total' asks for an aggregate"):
        _check("What is the total goals?", q)


def test_top_n_by_values_the_join_repeats_is_refused():
    q = Query(root="teamRoster", shape="ranking", select=[(Col("teamRoster", "teamName"), None)],
              order=[(Col("playerStats", "goals"), "desc")], limit=2)
    with pytest.raises(Unclear, match="of which each has several"):
        _check("What are the top 2 team rosters with the most goals?", q)
    q.limit = 1  # the single top row is well defined
    _check("What is the team roster with the most goals?", q)


def test_average_of_another_tables_column_for_an_entity_is_refused():
    q = Query(root="playerStats", shape="aggregate",
              select=[(Agg("avg", "playerStats", Col("playerStats", "goals")), None)])
    q.joined = ["teamRoster"]
    with pytest.raises(Unclear, match="'goals' of teamRoster was read as playerStats.goals"):
        _check("What is the average goals of team rosters?", q)


def test_when_asks_for_a_date_and_who_for_someone():
    name = Query(root="teamRoster", shape="listing", select=[(Col("teamRoster", "teamName"), None)])
    with pytest.raises(Unclear, match="'when' asks for a date"):
        _check("When did the Hawks join?", name)
    key = Query(root="playerStats", shape="listing",
                select=[(Col("playerStats", "playerStatsId"), None)])
    with pytest.raises(Unclear, match="'Who' asks for someone"):
        _check("Who scored at the Hawks?", key)
    _check("Who plays for the Hawks?", Query(
        root="playerStats", shape="listing", select=[(Col("playerStats", "playerName"), None)]))


def test_which_rows_answered_by_one_number_is_refused():
    q = Query(root="playerStats", shape="aggregate",
              select=[(Agg("avg", "playerStats", Col("playerStats", "goals")), None)])
    with pytest.raises(Unclear, match="'Which team rosters' asks for teamRoster rows"):
        _check("Which team rosters have average goals above the overall average?", q)


def test_a_verb_before_but_never_is_not_dropped():
    q = Query(root="teamRoster", shape="listing", select=[(Col("teamRoster", "teamName"), None)])
    with pytest.raises(Unclear, match="also says they did play"):
        _check("Which team rosters played but never had goals?", q)


def test_a_dropped_superlative_is_refused():
    q = Query(root="teamRoster", shape="count", select=[(Agg("count", "teamRoster"), None)])
    with pytest.raises(Unclear, match="'most' ranks, but the plan ranks nothing"):
        _check("What is the number of the team roster with the most goals?", q)


def test_worst_says_no_direction_and_whose_asks_for_someone():
    q = Query(root="playerStats", shape="ranking", select=[(Col("playerStats", "playerName"), None)],
              order=[(Col("playerStats", "goals"), "asc")], limit=1)
    with pytest.raises(Unclear, match="'worst' does not say whether"):
        _check("Which player had the worst goals?", q)
    key = Query(root="playerStats", shape="listing",
                select=[(Col("playerStats", "playerStatsId"), None)])
    with pytest.raises(Unclear, match="'Whose' asks for someone"):
        _check("Whose goals are the highest?", key)
