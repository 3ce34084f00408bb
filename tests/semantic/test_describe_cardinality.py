"""What `nl2sql describe` drafts as a relationship's cardinality: one-to-one only when the data
says more than chance (the referencing column is its table's own key, or unique over many rows);
a few rows with distinct values stay many-to-one, so a sum over the join is still checked."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import yaml

import nl2sql
from nl2sql.semantic.candidates import SHARED_KEYS
from nl2sql.semantic.describe import draft_file

FLEET = """
CREATE TABLE depot (depot_id INTEGER PRIMARY KEY, city TEXT, budget REAL);
CREATE TABLE truck (truck_no INTEGER PRIMARY KEY, depot_id INTEGER, payload REAL);
CREATE TABLE depot_lease (depot_id INTEGER PRIMARY KEY, rent REAL);
"""


def _fleet(folder: Path, trucks: int) -> Path:
    """Depots 1..max(4, trucks), one lease each, and `trucks` trucks each at a depot of its own."""
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "fleet.sqlite"
    depots = max(4, trucks)
    with sqlite3.connect(db) as con:
        con.executescript(FLEET)
        con.executemany("INSERT INTO depot VALUES (?, ?, ?)",
                        [(i, f"City {i}", 100.0 * i) for i in range(1, depots + 1)])
        con.executemany("INSERT INTO truck VALUES (?, ?, ?)",
                        [(10 + i, i, 3.0 + i) for i in range(1, trucks + 1)])
        con.executemany("INSERT INTO depot_lease VALUES (?, ?)",
                        [(i, 10.0 * i) for i in range(1, depots + 1)])
    return db


def _drafted(db: Path, folder: Path) -> tuple[dict[str, object], set[tuple[str, str, str]]]:
    with nl2sql.connect(sources={"fleet": str(db)}, settings={"project_dir": folder / "p"}) as s:
        text, _ = draft_file(s.context.datasources["fleet"], s.context.schemas.get("fleet"))
    layer = yaml.safe_load(text)
    found = layer["sources"]["fleet"]["relationships"]
    return layer, {(r["from"], r["to"], r["cardinality"]) for r in found}


def test_a_few_distinct_references_are_many_to_one_and_a_sum_over_them_is_checked(
    tmp_path: Path,
) -> None:
    """Three trucks at three depots: distinct by chance, many-to-one; the lease table's own key
    is depot_id: one-to-one. The sum over trucks is answered and warns that the join may repeat
    depot rows; the sum over leases does not."""
    db = _fleet(tmp_path, trucks=3)
    layer, pairs = _drafted(db, tmp_path)
    assert pairs == {("truck.depot_id", "depot.depot_id", "many-to-one"),
                     ("depot_lease.depot_id", "depot.depot_id", "one-to-one")}
    with nl2sql.connect(sources={"fleet": str(db)}, settings={"project_dir": tmp_path / "q"},
                        semantic=layer) as described:
        over_trucks = described.ask(
            "What is the total budget of depots with trucks whose payload is above 4?"
        )
        over_leases = described.ask("What is the total rent of depots in City 2 or City 3?")
    assert over_trucks.to_pandas().values.tolist() == [[500.0]]  # depots 2 and 3 (payloads 5, 6)
    assert "JOIN_FAN_OUT" in [w.code for w in over_trucks.warnings]
    assert over_leases.to_pandas().values.tolist() == [[50.0]]
    assert over_leases.warnings == []


def test_distinct_references_over_many_rows_are_one_to_one(tmp_path: Path) -> None:
    _, pairs = _drafted(_fleet(tmp_path, trucks=SHARED_KEYS), tmp_path)
    assert ("truck.depot_id", "depot.depot_id", "one-to-one") in pairs
