"""Relationship inference over snapshots read from real small databases in several naming styles."""

from __future__ import annotations

import sqlite3

import duckdb
import pytest

from nl2sql.datasources.duckdb import DuckDBAdapter
from nl2sql.datasources.sqlite import SQLiteAdapter
from nl2sql.schema.key_names import name_match, split_words
from nl2sql.schema.models import Column, SchemaSnapshot, Table
from nl2sql.schema.relationships import THRESHOLD, infer_relationships


def _sqlite(tmp_path, ddl: str):
    path = tmp_path / "db.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(ddl)
    return SQLiteAdapter("db", path).fetch_schema()


def _pairs(snapshot) -> set[tuple[str, str, str, str]]:
    return {
        (r.src, r.src_columns[0], r.dst, r.dst_columns[0]) for r in infer_relationships(snapshot)
    }


SNAKE = """
CREATE TABLE suppliers (supplier_id INTEGER, supplier_name TEXT);
INSERT INTO suppliers VALUES (1, 'Acme'), (2, 'Borealis'), (3, 'Cobalt');
CREATE TABLE parts (part_id INTEGER, part_name TEXT, supplier_id INTEGER, stock INTEGER);
INSERT INTO parts VALUES (10, 'bolt', 1, 2), (11, 'nut', 1, 3), (12, 'gear', 2, 1), (13, 'axle', 3, 2);
"""


def test_snake_case_key_named_after_its_table(tmp_path):
    (rel,) = infer_relationships(_sqlite(tmp_path, SNAKE))
    assert (rel.src, rel.src_columns, rel.dst, rel.dst_columns) == (
        "parts", ("supplier_id",), "suppliers", ("supplier_id",)
    )
    assert rel.cardinality == "many-to-one" and rel.score >= THRESHOLD
    assert "same name" in rel.evidence and "unique in suppliers" in rel.evidence
    assert "values within the key's range" in rel.evidence
    assert rel.describe().startswith("parts.supplier_id = suppliers.supplier_id — inferred:")


def test_coded_prefixes_and_different_suffixes_match_by_their_stem_and_values(tmp_path):
    snapshot = _sqlite(tmp_path, """
        CREATE TABLE tblCustomers (custCode TEXT, custName TEXT);
        INSERT INTO tblCustomers VALUES ('C01', 'Ada'), ('C02', 'Bo'), ('C03', 'Cy');
        CREATE TABLE tblOrders (ordNo INTEGER, custRef TEXT, ordTotal INTEGER);
        INSERT INTO tblOrders VALUES (1, 'C01', 50), (2, 'C02', 70), (3, 'C01', 20);
    """)
    (rel,) = infer_relationships(snapshot)
    assert (rel.src, rel.src_columns, rel.dst, rel.dst_columns) == (
        "tblOrders", ("custRef",), "tblCustomers", ("custCode",)
    )
    assert "100% of sampled values found" in rel.evidence


def test_a_key_spelled_by_two_codes_of_its_table_is_the_same_name(tmp_path):
    # `stfLocId` and `lctId` both read "<location> id", abbreviated two ways
    snapshot = _sqlite(tmp_path, """
        CREATE TABLE tblLocation (lctId INTEGER PRIMARY KEY, lctName TEXT);
        INSERT INTO tblLocation VALUES (1, 'North'), (2, 'South'), (3, 'East');
        CREATE TABLE tblStaff (stfId INTEGER PRIMARY KEY, stfName TEXT, stfLocId INTEGER);
        INSERT INTO tblStaff VALUES (1, 'Ada', 1), (2, 'Bo', 2), (3, 'Cy', 1), (4, 'Di', 3);
    """)
    (rel,) = infer_relationships(snapshot)
    assert (rel.src, rel.src_columns, rel.dst, rel.dst_columns) == (
        "tblStaff", ("stfLocId",), "tblLocation", ("lctId",)
    )
    assert "same name (the table's key, by its code)" in rel.evidence
    assert rel.score >= THRESHOLD


def test_camel_case_in_duckdb(tmp_path):
    path = tmp_path / "db.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE Depots (depotId INTEGER, depotCity VARCHAR)")
    con.execute("INSERT INTO Depots VALUES (1, 'Bergen'), (2, 'Tromso')")
    con.execute("CREATE TABLE Crates (crateId INTEGER, depotId INTEGER, weightKg INTEGER)")
    con.execute("INSERT INTO Crates VALUES (7, 1, 5), (8, 1, 6), (9, 2, 3)")
    con.close()
    assert _pairs(DuckDBAdapter("db", path).fetch_schema()) == {
        ("Crates", "depotId", "Depots", "depotId")
    }


@pytest.mark.parametrize(
    "ddl",
    [
        # same name, text codes that never occur on the other side
        """CREATE TABLE teams (team_code TEXT, team_name TEXT);
           INSERT INTO teams VALUES ('T1', 'Owls'), ('T2', 'Hawks');
           CREATE TABLE players (player_name TEXT, team_code TEXT);
           INSERT INTO players VALUES ('Ann', 'X9'), ('Ben', 'X8');""",
        # same name, integers outside the key's range
        """CREATE TABLE teams (team_id INTEGER, team_name TEXT);
           INSERT INTO teams VALUES (1, 'Owls'), (2, 'Hawks');
           CREATE TABLE players (player_name TEXT, team_id INTEGER);
           INSERT INTO players VALUES ('Ann', 40), ('Ben', 41);""",
        # same name, but the referenced side is not unique
        """CREATE TABLE teams (team_id INTEGER, team_name TEXT);
           INSERT INTO teams VALUES (1, 'Owls'), (1, 'Hawks');
           CREATE TABLE players (player_name TEXT, team_id INTEGER);
           INSERT INTO players VALUES ('Ann', 1);""",
        # a shared bare `id` or a shared non-key column says nothing
        """CREATE TABLE teams (id INTEGER, name TEXT, rank INTEGER);
           INSERT INTO teams VALUES (1, 'Owls', 1), (2, 'Hawks', 2);
           CREATE TABLE players (id INTEGER, name TEXT, rank INTEGER);
           INSERT INTO players VALUES (1, 'Ann', 1), (2, 'Ben', 2);""",
    ],
)
def test_no_relationship_without_agreeing_names_key_and_values(tmp_path, ddl):
    assert infer_relationships(_sqlite(tmp_path, ddl)) == []


def test_a_key_named_after_a_role_refers_to_the_table_whose_key_it_ends_with(tmp_path):
    snapshot = _sqlite(tmp_path, """
        CREATE TABLE teams (teamId INTEGER, teamName TEXT);
        INSERT INTO teams VALUES (1, 'Owls'), (2, 'Hawks'), (3, 'Lynx');
        CREATE TABLE matches (matchId INTEGER, homeTeamId INTEGER, awayTeamId INTEGER,
            winnerTeamId INTEGER, homeTownId INTEGER);
        INSERT INTO matches VALUES (1, 1, 2, 2, 1), (2, 3, 1, 3, 2), (3, 2, 3, 2, 3);
    """)
    rels = {r.src_columns[0]: r for r in infer_relationships(snapshot)}
    assert set(rels) == {"homeTeamId", "awayTeamId", "winnerTeamId"}
    assert all(r.dst == "teams" and r.dst_columns == ("teamId",) for r in rels.values())
    assert "winnerTeamId is teamId of teams in the role 'winner'" in rels["winnerTeamId"].evidence
    # a role before a name that is not the key's relates nothing, whatever its values
    assert "homeTownId" not in rels


def test_declared_foreign_keys_are_not_repeated(tmp_path):
    snapshot = _sqlite(tmp_path, SNAKE.replace(
        "supplier_id INTEGER, stock", "supplier_id INTEGER REFERENCES suppliers(supplier_id), stock"
    ))
    assert snapshot.table("parts").foreign_keys
    assert infer_relationships(snapshot) == []


def test_the_full_table_name_wins_over_a_table_ending_with_it(tmp_path):
    snapshot = _sqlite(tmp_path, """
        CREATE TABLE plant (plant_id INTEGER, label TEXT);
        INSERT INTO plant VALUES (1, 'a'), (2, 'b');
        CREATE TABLE factory_plant (plant_id INTEGER, factory TEXT);
        INSERT INTO factory_plant VALUES (1, 'x'), (2, 'y');
        CREATE TABLE shifts (shift_id INTEGER, plant_id INTEGER);
        INSERT INTO shifts VALUES (5, 1), (6, 1), (7, 2);
    """)
    targets = {dst for src, _, dst, _ in _pairs(snapshot) if src == "shifts"}
    assert targets == {"plant"}


def test_without_statistics_two_name_rules_and_a_declared_key_still_count():
    snapshot = SchemaSnapshot(datasource_id="x", dialect="sqlite", tables=[
        Table(name="regions", columns=[Column(name="region_id", type="INTEGER")],
              primary_key=["region_id"]),
        Table(name="stores", columns=[Column(name="store_id", type="INTEGER"),
                                      Column(name="region_id", type="INTEGER")]),
    ])
    assert _pairs(snapshot) == {("stores", "region_id", "regions", "region_id")}


def test_identifier_words_and_name_matches():
    assert split_words("tblOrderLines_lineNo") == ["tbl", "order", "lines", "line", "no"]
    assert name_match("category", "categories") == ("named", True)
    assert name_match("wz", "warehouse_zone") == ("abbreviated", True)
    assert name_match("w", "warehouse_zone") is None


@pytest.mark.parametrize(
    ("ddl", "expected"),
    [
        pytest.param(
            """CREATE TABLE tblDepot (depoId INTEGER, depoCity TEXT, depoSize INTEGER);
               INSERT INTO tblDepot VALUES (1, 'Bergen', 3), (2, 'Narvik', 1), (3, 'Bodo', 2);
               CREATE TABLE tblCrate (crtId INTEGER, crtDepotId TEXT, crtWeight INTEGER);
               INSERT INTO tblCrate VALUES (10, '1', 5), (11, '1', 7), (12, '3', 2);""",
            {("tblCrate", "crtDepotId", "tblDepot", "depoId")},
            id="camel-code-whole-numbers-stored-as-text",
        ),
        pytest.param(
            """CREATE TABLE tblCustomers (custCode TEXT, custName TEXT);
               INSERT INTO tblCustomers VALUES ('C01', 'Ada'), ('C02', 'Bo'), ('C03', 'Cy');
               CREATE TABLE tblOrders (ordNo INTEGER, ordCustRef TEXT, ordTotal INTEGER);
               INSERT INTO tblOrders VALUES (1, 'C01', 50), (2, 'C02', 70), (3, 'C01', 20);""",
            {("tblOrders", "ordCustRef", "tblCustomers", "custCode")},
            id="coded-reference-abbreviating-the-table",
        ),
        pytest.param(
            """CREATE TABLE depot (d_depotkey INTEGER, d_name TEXT, d_city TEXT);
               INSERT INTO depot VALUES (1, 'North', 'Bergen'), (2, 'South', 'Oslo'),
                   (3, 'East', 'Bodo');
               CREATE TABLE crate (c_cratekey INTEGER, c_depotkey INTEGER, c_weight INTEGER);
               INSERT INTO crate VALUES (10, 1, 5), (11, 1, 7), (12, 3, 2), (13, 2, 4);""",
            {("crate", "c_depotkey", "depot", "d_depotkey")},
            id="lower-snake-initials-glued-key",
        ),
        pytest.param(
            """CREATE TABLE T_DEPOT (DPT_ID INTEGER, DPT_CITY TEXT);
               INSERT INTO T_DEPOT VALUES (1, 'Bergen'), (2, 'Narvik'), (3, 'Bodo');
               CREATE TABLE T_CRATE (CRT_ID INTEGER, CRT_DEPOT_ID INTEGER, CRT_WEIGHT INTEGER);
               INSERT INTO T_CRATE VALUES (10, 1, 5), (11, 1, 7), (12, 3, 2);""",
            {("T_CRATE", "CRT_DEPOT_ID", "T_DEPOT", "DPT_ID")},
            id="upper-snake-consonant-code",
        ),
    ],
)
def test_coded_schemas_without_keys(tmp_path, ddl, expected):
    assert _pairs(_sqlite(tmp_path, ddl)) == expected


def test_a_coded_key_spelled_out_wins_over_a_link_table_that_ends_with_its_name(tmp_path):
    # `lkdDepotId` is unique in the few rows of tblLockerDepot by chance; `depoId` is the key
    snapshot = _sqlite(tmp_path, """
        CREATE TABLE tblDepot (depoId INTEGER, depoCity TEXT);
        INSERT INTO tblDepot VALUES (1, 'Bergen'), (2, 'Narvik'), (3, 'Bodo');
        CREATE TABLE tblLockerDepot (ldLockerId INTEGER, ldDepotId INTEGER);
        INSERT INTO tblLockerDepot VALUES (7, 1), (8, 2), (9, 3);
        CREATE TABLE tblCrate (crtId INTEGER, crtDepotId INTEGER);
        INSERT INTO tblCrate VALUES (10, 1), (11, 1), (12, 3);
    """)
    assert {dst for src, _, dst, _ in _pairs(snapshot) if src == "tblCrate"} == {"tblDepot"}


def test_a_short_english_first_word_is_part_of_the_table_name():
    assert name_match("lane", "bus_lanes") == ("named", False)
    assert name_match("buslane", "bus_lanes") == ("named", True)
    assert name_match("lane", "tbl_lanes") == ("named", True)
