"""Readings that used to be stated as certain while answering another question: a passive verb
dropped as a mere relation ("how many shipments have been delivered" counted every shipment),
"on average" answered by a count, a date condition put on the first of several date columns, a
ranking by a count of the ranked table's own rows (one per group), and a listing of entities
repeated once per row that refers to them. Schemas are built here: UPPER_SNAKE without declared
keys, camelCase with them, PascalCase, snake_case with a table code on every column."""

from __future__ import annotations

import pytest

import nl2sql

_UPPER = """
    CREATE TABLE CARRIER (CARRIER_ID INTEGER PRIMARY KEY, CARRIER_NAME TEXT);
    INSERT INTO CARRIER VALUES (1, 'Swift'), (2, 'Polar'), (3, 'Delta Freight');
    CREATE TABLE WAREHOUSE (WAREHOUSE_CODE TEXT PRIMARY KEY, WAREHOUSE_NAME TEXT);
    INSERT INTO WAREHOUSE VALUES ('W1', 'Rotterdam North'), ('W2', 'Antwerp Dock'),
        ('W3', 'Ghent Inland');
    CREATE TABLE SHIPMENT (SHIPMENT_ID INTEGER PRIMARY KEY, CARRIER_ID INTEGER,
        WAREHOUSE_CODE TEXT, SHIP_DATE TEXT, DELIVERY_DATE TEXT, STATUS TEXT);
    INSERT INTO SHIPMENT VALUES (1, 1, 'W1', '2025-01-02', '2025-01-05', 'D'),
        (2, 1, 'W1', '2025-01-03', NULL, 'T'), (3, 2, 'W2', '2025-02-01', '2025-02-09', 'D'),
        (4, 3, 'W1', '2025-02-02', NULL, 'P'), (5, 2, 'W2', '2025-03-01', '2025-03-02', 'D');
    CREATE TABLE PAYMENT (PAYMENT_ID INTEGER PRIMARY KEY, PAYMENT_AMOUNT REAL, IS_REFUND INTEGER);
    INSERT INTO PAYMENT VALUES (1, 120.0, 0), (2, 40.0, 1), (3, 75.5, 0), (4, 15.0, 1);
    CREATE TABLE PARCEL (PARCEL_ID INTEGER PRIMARY KEY, SHIPMENT_ID INTEGER, WEIGHT_KG REAL);
    INSERT INTO PARCEL VALUES (1, 1, 2.5), (2, 1, 4.0), (3, 2, 1.0), (4, 3, 7.5), (5, 5, 3.0);
"""
_CAMEL = """
    CREATE TABLE accounts (accountId INTEGER PRIMARY KEY, companyName TEXT);
    INSERT INTO accounts VALUES (1, 'Acme'), (2, 'Bolt'), (3, 'Crux');
    CREATE TABLE plans (planId INTEGER PRIMARY KEY, tier TEXT);
    INSERT INTO plans VALUES (1, 'Starter'), (2, 'Enterprise');
    CREATE TABLE subscriptions (subscriptionId INTEGER PRIMARY KEY,
        accountId INTEGER REFERENCES accounts(accountId), planId INTEGER REFERENCES plans(planId),
        startedAt TEXT, endedAt TEXT, isActive INTEGER);
    INSERT INTO subscriptions VALUES (1, 1, 2, '2024-03-01', NULL, 1),
        (2, 1, 2, '2025-02-01', NULL, 1), (3, 2, 1, '2024-06-01', '2025-04-01', 0),
        (4, 3, 2, '2025-05-01', NULL, 1), (5, 2, 2, '2023-01-01', '2024-01-01', 0);
"""
_PASCAL = """
    CREATE TABLE Treatment (TreatmentID INTEGER PRIMARY KEY, TreatmentName TEXT);
    INSERT INTO Treatment VALUES (1, 'Cleaning'), (2, 'Filling'), (3, 'Crown');
    CREATE TABLE Visit (VisitID INTEGER PRIMARY KEY,
        TreatmentID INTEGER REFERENCES Treatment(TreatmentID), VisitDate TEXT);
    INSERT INTO Visit VALUES (1, 2, '2025-01-01'), (2, 2, '2025-01-02'), (3, 1, '2025-01-03'),
        (4, 2, '2025-01-04'), (5, 3, '2025-01-05');
"""

_CODED = """
    CREATE TABLE lib_branch (brn_id INTEGER PRIMARY KEY, brn_name TEXT);
    INSERT INTO lib_branch VALUES (1, 'Central'), (2, 'Harbour');
    CREATE TABLE lib_book (bok_id INTEGER PRIMARY KEY, bok_title TEXT, bok_published_year INTEGER);
    INSERT INTO lib_book VALUES (1, 'Dune', 1965), (2, 'Emma', 2025), (3, 'Ulysses', 1922);
    CREATE TABLE lib_loan (lon_id INTEGER PRIMARY KEY, lon_bok_id INTEGER, lon_brn_id INTEGER,
        lon_loaned_on TEXT);
    INSERT INTO lib_loan VALUES (1, 1, 1, '2025-02-01'), (2, 3, 1, '2025-03-01'),
        (3, 2, 2, '2024-05-01'), (4, 1, 2, '2025-06-01'), (5, 2, 1, '2024-01-09');
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("guards")
    return nl2sql.connect(
        sources=sqlite_sources(folder, {"upper": _UPPER, "camel": _CAMEL, "pascal": _PASCAL,
                                              "coded": _CODED}),
        settings={"project_dir": str(folder / "p")},
    )


def _rows(result) -> list:
    assert result.status == "success", result.first_error
    return sorted(tuple(r) for r in result.to_dict()["rows"])


def test_a_passive_verb_about_the_one_entity_named_is_not_dropped(session):
    result = session.ask("How many shipments have been delivered?", datasource="upper")
    assert result.status != "success"  # was COUNT(*) of every shipment: 5
    assert "delivered" in result.first_error.message


def test_a_passive_verb_with_a_complement_still_reads_as_the_relation(session):
    # the date that follows says what the verb means: the shipments shipped in February 2025
    result = session.ask("How many shipments were shipped in February 2025?", datasource="upper")
    assert _rows(result) == [(2,)]


def test_on_average_is_never_answered_by_a_count(session):
    result = session.ask("On average, how many parcels does a shipment have?", datasource="upper")
    assert result.status != "success"  # was the count of all parcels: 5
    assert "average" in result.first_error.message


def test_a_date_put_on_the_first_of_several_date_columns_asks_first(session):
    result = session.ask("How many subscriptions were there in 2025?", datasource="camel")
    assert result.status == "needs_clarification"  # startedAt or endedAt: nothing says which
    assert result.candidates


def test_a_date_column_the_question_names_is_answered(session):
    result = session.ask("How many subscriptions were started in 2025?", datasource="camel")
    assert _rows(result) == [(2,)]


def test_a_ranking_by_the_ranked_tables_own_rows_is_not_stated(session):
    # grouped by the treatment itself, every count is 1: the top row is any treatment
    result = session.ask("What is our most popular treatment?", datasource="pascal")
    assert result.status == "needs_clarification"


def test_entities_listed_through_the_rows_that_refer_to_them_come_once(session):
    result = session.ask("List the companies that have an active Enterprise subscription.",
                         datasource="camel")
    assert _rows(result) == [("Acme",), ("Crux",)]  # Acme has two such subscriptions


def test_a_verb_after_its_subject_relates_the_object_the_question_opened_with(session):
    # "how many loans has each branch handled?": loans first, then the branch and its verb
    result = session.ask("How many loans has each branch handled?", datasource="coded")
    assert _rows(result) == [("Central", 3), ("Harbour", 2)]


def test_a_year_of_the_rows_is_not_taken_for_the_date_of_the_related_event(session):
    # a book's publication year, or the loan's date? the loans have dates, nothing says which
    result = session.ask("Which titles were borrowed at Central in 2025?", datasource="coded")
    assert result.status == "needs_clarification"


def test_a_year_column_the_question_names_is_answered(session):
    result = session.ask("Which titles were published in 2025?", datasource="coded")
    assert _rows(result) == [("Emma",)]


def test_a_verb_particle_wordnet_lists_is_part_of_the_verb(session):
    # "send out" is one verb to WordNet: "out" names nothing of the schema
    result = session.ask("Which warehouses have never sent out a shipment?", datasource="upper")
    assert _rows(result) == [("Ghent Inland",)]


def test_an_amount_is_never_the_sum_of_a_yes_no_column(session):
    # the sum of IS_REFUND is the number of refunds (2), not the amount refunded (55.0)
    result = session.ask("How much did we refund?", datasource="upper")
    assert result.status != "success"
    assert "yes/no" in result.first_error.message


def test_how_many_with_a_flag_still_counts_its_rows(session):
    result = session.ask("How many active subscriptions do we have?", datasource="camel")
    assert _rows(result) == [(3,)]
