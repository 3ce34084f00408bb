"""A question noun the schema does not use, linked through a WordNet synonym, end to end.

Each schema is built here in its own naming style (snake_case with keys, camelCase without,
coded prefixes); the rows of each answer are checked, and what must not link is refused.
"""

from __future__ import annotations

import pytest

import nl2sql

_SNAKE = """
    CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER);
    INSERT INTO singer VALUES (1, 'Ana', 'Chile', 31), (2, 'Bea', 'Peru', 24),
        (3, 'Cy', 'Chile', 45), (4, 'Dov', 'Israel', 29);
    CREATE TABLE shop (shop_id INTEGER PRIMARY KEY, name TEXT, location TEXT,
        number_products INTEGER);
    INSERT INTO shop VALUES (1, 'North', 'Oslo', 120), (2, 'South', 'Bergen', 80),
        (3, 'East', 'Oslo', 200);
"""
_CAMEL = """
    CREATE TABLE Clients (clientId INTEGER, clientName TEXT, homeCity TEXT);
    INSERT INTO Clients VALUES (1, 'Acme', 'Lyon'), (2, 'Bolt', 'Porto'), (3, 'Crane', 'Lyon');
    CREATE TABLE Invoices (invoiceId INTEGER, clientId INTEGER, total REAL);
    INSERT INTO Invoices VALUES (10, 1, 50.0), (11, 1, 70.0), (12, 3, 20.0), (13, 2, 5.0);
"""
_CODED = """
    CREATE TABLE Cars (carId INTEGER PRIMARY KEY, carModel TEXT, carYear INTEGER);
    INSERT INTO Cars VALUES (1, 'Aero', 2019), (2, 'Brio', 2021), (3, 'Cuda', 2021);
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("synonyms")
    sources = sqlite_sources(folder, {"snake": _SNAKE, "camel": _CAMEL, "coded": _CODED})
    # the rows of the engine's reading are checked whatever its confidence
    return nl2sql.connect(
        sources=sources, settings={"project_dir": str(folder / "p"), "min_confidence": 0}
    )


def _rows(result) -> list:
    assert result.status == "success", result.first_error
    return sorted(tuple(r) for r in result.to_dict()["rows"])


def _planner(result) -> dict:
    return next(s for s in result.reasoning if s["node"] == "ast_planner")


def _planner_reasoning(result) -> str:
    return _planner(result)["content"]


@pytest.mark.parametrize(
    ("question", "source", "rows", "link"),
    [
        ("How many vocalists are from Chile?", "snake", [(2,)], "'vocalists' → singer"),
        ("List the names of customers in Lyon.", "camel", [("Acme",), ("Crane",)],
         "'customers' → Clients"),
        ("How many automobiles are from 2021?", "coded", [(2,)], "'automobiles' → Cars"),
        ("Which shop has the most merchandise?", "snake", [("East",)],
         "'merchandise' → shop.number_products"),
    ],
)
def test_a_synonym_names_the_table_or_column(session, question, source, rows, link):
    result = session.ask(question, datasource=source)
    assert _rows(result) == rows
    assert link in _planner_reasoning(result)


def test_a_synonym_before_a_column_qualifies_it(session):
    result = session.ask("How many different store locations are there?", datasource="snake")
    assert _rows(result) == [(2,)]
    assert "'store locations' → shop.location" in _planner_reasoning(result)


def test_a_synonym_link_is_weaker_than_the_name(session):
    by_name = session.ask("How many singers are from Chile?", datasource="snake")
    by_synonym = session.ask("How many vocalists are from Chile?", datasource="snake")
    assert _rows(by_name) == _rows(by_synonym)
    assert _planner(by_synonym)["confidence"] <= _planner(by_name)["confidence"]


@pytest.mark.parametrize(
    ("question", "word"),
    [
        # "figure" shares only a rare sense with "name": no link to the name column
        ("What is the figure of each singer?", "figure"),
        # "staff" is related to no table here by any sense
        ("How many staff work in Oslo?", "staff"),
    ],
)
def test_a_word_without_a_shared_frequent_sense_stays_unexplained(session, question, word):
    result = session.ask(question, datasource="snake")
    assert result.status != "success"
    assert f"'{word}'" in result.first_error.message



_BILLING = """
    CREATE TABLE client (client_id INTEGER PRIMARY KEY, name TEXT);
    INSERT INTO client VALUES (1, 'Acme'), (2, 'Bolt');
    CREATE TABLE invoice (invoice_id INTEGER PRIMARY KEY,
        client_id INTEGER REFERENCES client(client_id), total REAL);
    INSERT INTO invoice VALUES (1, 1, 10.0), (2, 1, 20.0), (3, 2, 5.0);
"""
_ACCOUNT = """
    CREATE TABLE account (account_id INTEGER PRIMARY KEY,
        client_id INTEGER REFERENCES client(client_id), opened TEXT);
    INSERT INTO account VALUES (1, 1, '2024-01-01');
"""


def test_a_synonym_whose_sense_another_element_shares_is_not_guessed(tmp_path, sqlite_sources):
    # 'bill' is a frequent synonym of 'invoice' and a rare one of 'account' (one WordNet sense)
    sources = sqlite_sources(tmp_path, {"plain": _BILLING, "both": _BILLING + _ACCOUNT})
    session = nl2sql.connect(
        sources=sources, settings={"project_dir": str(tmp_path / "p"), "min_confidence": 0})
    question = "How many bills does each client have?"
    assert _rows(session.ask(question, datasource="plain")) == [("Acme", 2), ("Bolt", 1)]
    result = session.ask(question, datasource="both")
    assert result.status != "success"
    assert "'bills'" in result.first_error.message
