"""Joins along relationships no key declares, end to end: the rows a user gets back.

Each schema is built here in its own naming style, with no declared keys at all.
"""

from __future__ import annotations

import sqlite3

import duckdb
import pytest

import nl2sql
from nl2sql.reasoning.offline.catalog.index import build_index
from nl2sql.reasoning.offline.plan.joins import connect
from nl2sql.schema.models import Column, ForeignKey, SchemaSnapshot, Table


def _sqlite(path, ddl: str) -> str:
    with sqlite3.connect(path) as con:
        con.executescript(ddl)
    return str(path)


@pytest.fixture()
def session(tmp_path):
    snake = _sqlite(tmp_path / "snake.sqlite", """
        CREATE TABLE suppliers (supplier_id INTEGER, supplier_name TEXT, country TEXT);
        INSERT INTO suppliers VALUES (1, 'Acme', 'Norway'), (2, 'Borealis', 'Chile'),
            (3, 'Cobalt', 'Norway');
        CREATE TABLE parts (part_id INTEGER, part_name TEXT, supplier_id INTEGER, price INTEGER);
        INSERT INTO parts VALUES (10, 'bolt', 1, 3), (11, 'nut', 1, 1), (12, 'gear', 2, 9),
            (13, 'axle', 3, 20), (14, 'spring', 2, 4);
    """)
    coded = _sqlite(tmp_path / "coded.sqlite", """
        CREATE TABLE tblCustomers (custCode TEXT, custName TEXT, custCity TEXT);
        INSERT INTO tblCustomers VALUES ('C01', 'Ada', 'Oslo'), ('C02', 'Bo', 'Lima'),
            ('C03', 'Cy', 'Oslo'), ('C04', 'Di', 'Rome');
        CREATE TABLE tblOrders (ordNo INTEGER, custRef TEXT, ordTotal INTEGER);
        INSERT INTO tblOrders VALUES (1, 'C01', 50), (2, 'C02', 70), (3, 'C01', 20), (4, 'C03', 10);
    """)
    disjoint = _sqlite(tmp_path / "disjoint.sqlite", """
        CREATE TABLE teams (team_code TEXT, team_name TEXT);
        INSERT INTO teams VALUES ('T1', 'Owls'), ('T2', 'Hawks'), ('T3', 'Crows');
        CREATE TABLE players (player_name TEXT, team_code TEXT);
        INSERT INTO players VALUES ('Ann', 'X9'), ('Ben', 'X8'), ('Cat', 'X9');
    """)
    camel = tmp_path / "camel.duckdb"
    con = duckdb.connect(str(camel))
    con.execute("CREATE TABLE Warehouses (warehouseId INTEGER, warehouseCity VARCHAR)")
    con.execute("INSERT INTO Warehouses VALUES (1, 'Bergen'), (2, 'Tromso'), (3, 'Narvik')")
    con.execute("CREATE TABLE Shipments (shipmentId INTEGER, warehouseId INTEGER, weightKg INT)")
    con.execute("INSERT INTO Shipments VALUES (100, 1, 5), (101, 1, 7), (102, 2, 3), (103, 3, 8)")
    con.close()
    sources = {"snake": snake, "coded": coded, "camel": str(camel), "disjoint": disjoint}
    # the rows of the engine's reading are checked here, whatever its confidence (answers under
    # min_confidence become a choice: tests/integration/test_clarification.py)
    return nl2sql.connect(sources=sources,
                          settings={"project_dir": str(tmp_path / "p"), "min_confidence": 0})


def _rows(result) -> list:
    assert result.status == "success", result.first_error
    return sorted(tuple(r) for r in result.to_dict()["rows"])


@pytest.mark.parametrize(
    ("datasource", "question", "expected"),
    [
        ("snake", "Which parts are supplied by suppliers in Norway?",
         [("axle",), ("bolt",), ("nut",)]),
        ("snake", "How many parts does each supplier have?",
         [("Acme", 2), ("Borealis", 2), ("Cobalt", 1)]),
        ("coded", "List the order numbers of the customer Ada", [(1,), (3,)]),
        ("camel", "How many shipments are there for each warehouse city?",
         [("Bergen", 2), ("Narvik", 1), ("Tromso", 1)]),
    ],
)
def test_join_questions_answered_along_inferred_relationships(session, datasource, question,
                                                              expected):
    result = session.ask(question, datasource=datasource)
    assert _rows(result) == expected
    planned = next(s for s in result.reasoning if s["node"] == "ast_planner")
    assert "— inferred (no declared key):" in planned["content"]
    assert planned["confidence"] < 0.95  # an inferred join lowers the confidence a little


def test_same_name_with_disjoint_values_is_refused_not_joined(session):
    result = session.ask("List the names of players of the team Owls", datasource="disjoint")
    assert result.status != "success" and result.sql is None
    assert "no foreign-key path connects" in result.first_error.message


def test_declared_keys_win_over_an_inferred_path():
    # `visits.clinic_id` looks like a reference to clinics, but the declared key says
    # visits reach clinics through rooms: the declared path is the one taken.
    def ints(*names: str) -> list[Column]:
        return [Column(name=n, type="INTEGER", distinct_count=3, min_value=1, max_value=3)
                for n in names]

    snapshot = SchemaSnapshot(datasource_id="x", dialect="sqlite", tables=[
        Table(name="clinics", columns=ints("clinic_id"), row_count=3),
        Table(name="rooms", columns=ints("room_id", "clinic_id"), row_count=3,
              primary_key=["room_id"],
              foreign_keys=[ForeignKey(columns=["clinic_id"], ref_table="clinics",
                                       ref_columns=["clinic_id"])]),
        Table(name="visits", columns=ints("visit_id", "room_id", "clinic_id"), row_count=3,
              foreign_keys=[ForeignKey(columns=["room_id"], ref_table="rooms",
                                       ref_columns=["room_id"])]),
    ])
    idx = build_index(snapshot)
    assert any(e.src == "visits" and e.dst == "clinics" for e in idx.inferred)
    tree = connect(idx, "visits", ["clinics"])
    assert tree.tables == ["visits", "rooms", "clinics"] and not tree.inferred
