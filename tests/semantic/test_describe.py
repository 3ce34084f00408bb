"""`nl2sql describe`: a draft layer from the data, checked in the database, that loads as is and
answers the join questions a source without declared keys refused; doctor's warning."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import yaml

import nl2sql
from nl2sql.cli.main import main
from nl2sql.schema.relationships import InferredRelationship
from nl2sql.semantic.describe import Draft, check_inclusion, render_draft


def _config(folder: Path, db: Path, extra: str = "") -> Path:
    path = folder / "nl2sql.toml"
    path.write_text(f'[sources.shop]\npath = "{db}"\n[settings]\nproject_dir = "{folder / "p"}"\n{extra}',
                    encoding="utf-8")
    return path


def test_describe_writes_a_reviewed_file_that_answers_join_questions(shop_db: Path, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    config = _config(tmp_path, shop_db)
    out = tmp_path / "semantic.yaml"
    assert main(["describe", "shop", "-c", str(config), "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    text = out.read_text(encoding="utf-8")
    layer = yaml.safe_load(text)["sources"]["shop"]
    assert {"from": "orders.custRef", "to": "customers.id", "cardinality": "many-to-one"} in layer["relationships"]
    assert "30 of 30 distinct values of orders.custRef found in customers.id (checked in the data)" in text
    assert layer["labels"]["customers"] == ["full_name"]
    assert layer["columns"]["products.weight_kg"] == {"unit": "kg"}
    assert layer["columns"]["customers.state"] == {"values": ["California", "Oregon", "Texas"]}
    question = "How many orders were placed by customers in Texas?"
    with nl2sql.connect(config=config) as plain:
        assert plain.ask(question).status == "error"
    config = _config(tmp_path, shop_db, '[semantic]\nfile = "semantic.yaml"\n')
    with nl2sql.connect(config=config) as described:
        result = described.ask(question)
    assert result.status == "success", result.errors
    assert result.to_pandas().iloc[0, 0] == 20


def test_describe_prints_the_draft_without_output_file(shop_db: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["describe", "shop", "-c", str(_config(tmp_path, shop_db))]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("# Drafted by `nl2sql describe shop`")
    assert yaml.safe_load(printed)["sources"]["shop"]["relationships"]


def test_describe_unknown_source_is_one_line(shop_db: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["describe", "shops", "-c", str(_config(tmp_path, shop_db))]) == 1
    err = capsys.readouterr().err.strip()
    assert "unknown datasource 'shops'" in err and "'shop'" in err and "\n" not in err


def test_inclusion_is_checked_in_the_database(shop_db: Path, tmp_path: Path) -> None:
    con = sqlite3.connect(shop_db)
    con.execute("CREATE TABLE returns (return_id INTEGER, custRef INTEGER)")
    # 40 distinct references, 10 of them to no customer: the names agree, the data does not
    con.executemany("INSERT INTO returns VALUES (?, ?)", [(i, i) for i in range(1, 41)])
    con.commit()
    con.close()
    with nl2sql.connect(sources={"shop": str(shop_db)}, settings={"project_dir": tmp_path}) as s:
        snapshot = s.context.schemas.get("shop")
        adapter = s.context.datasources["shop"]
        candidate = InferredRelationship("returns", ("custRef",), "customers", ("id",), 0.6,
                                         ("custRef abbreviates customers",), "many-to-one")
        checked = check_inclusion(adapter, snapshot, candidate)
        good = check_inclusion(adapter, snapshot, InferredRelationship(
            "orders", ("custRef",), "customers", ("id",), 0.6, (), "many-to-one"))
    assert (checked.distinct, checked.found, checked.holds) == (40, 30, False)
    assert (good.distinct, good.found, good.holds) == (30, 30, True)
    text = render_draft(Draft("shop", relationships=[checked, good]))
    layer = yaml.safe_load(text)["sources"]["shop"]
    assert layer["relationships"] == [{"from": "orders.custRef", "to": "customers.id",
                                       "cardinality": "many-to-one"}]
    assert "# not proposed: returns.custRef -> customers.id" in text and "only 30 of 40" in text


def test_a_check_that_finds_nothing_proposes_nothing(shop_db: Path, tmp_path: Path) -> None:
    with nl2sql.connect(sources={"shop": str(shop_db)}, settings={"project_dir": tmp_path}) as s:
        snapshot = s.context.schemas.get("shop")
        adapter = s.context.datasources["shop"]
        gone = InferredRelationship("orders", ("no_such",), "customers", ("id",), 0.6, (), "many-to-one")
        checked = check_inclusion(adapter, snapshot, gone)
    assert not checked.holds and checked.found == 0


def test_doctor_warns_about_a_source_without_relationships(shop_db: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    config = _config(tmp_path, shop_db)
    assert main(["doctor", "--offline", "-c", str(config)]) == 0  # a warning, not a problem
    warned = [line for line in capsys.readouterr().out.splitlines() if line.startswith("!")]
    assert len(warned) == 1 and "shop: 4 tables and no relationship" in warned[0]
    assert "nl2sql describe shop" in warned[0]
    main(["describe", "shop", "-c", str(config), "-o", str(tmp_path / "semantic.yaml")])
    capsys.readouterr()
    config = _config(tmp_path, shop_db, '[semantic]\nfile = "semantic.yaml"\n')
    assert main(["doctor", "--offline", "-c", str(config)]) == 0
    assert not [line for line in capsys.readouterr().out.splitlines() if line.startswith("!")]


def test_doctor_reports_a_bad_layer_as_one_problem(shop_db: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    (tmp_path / "semantic.yaml").write_text(
        "sources:\n  shop:\n    terms:\n      - {term: client, means: customer}\n", encoding="utf-8")
    config = _config(tmp_path, shop_db, '[semantic]\nfile = "semantic.yaml"\n')
    assert main(["doctor", "--offline", "-c", str(config)]) == 1
    problems = [line for line in capsys.readouterr().out.splitlines() if line.startswith("✗")]
    assert len(problems) == 1 and "terms[0] (term 'client')" in problems[0] and "'customers'" in problems[0]


def test_describe_finds_references_names_alone_do_not_settle(tmp_path: Path) -> None:
    """Ids stored as text, a column ending with the table's name, a shared unique name: proposed
    only when the data agrees."""
    db = tmp_path / "fleet.sqlite"
    con = sqlite3.connect(db)
    con.executescript(
        """
        CREATE TABLE battle (id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE ship (id INTEGER PRIMARY KEY, name TEXT, lost_in_battle INTEGER);
        CREATE TABLE crew_loss (loss_id INTEGER PRIMARY KEY, caused_by_ship_id TEXT, killed INTEGER);
        INSERT INTO battle VALUES (1, 'Hastings'), (2, 'Lepanto'), (3, 'Trafalgar');
        INSERT INTO ship VALUES (1, 'Rose', 1), (2, 'Lion', 2), (3, 'Swan', 2), (4, 'Hind', 3);
        INSERT INTO crew_loss VALUES (1, '1', 10), (2, '2', 4), (3, '2', 7), (4, '4', 1);
        """
    )
    con.commit()
    con.close()
    with nl2sql.connect(sources={"fleet": str(db)}, settings={"project_dir": tmp_path / "p"}) as s:
        from nl2sql.semantic.describe import draft_file

        text, _ = draft_file(s.context.datasources["fleet"], s.context.schemas.get("fleet"))
    relationships = yaml.safe_load(text)["sources"]["fleet"]["relationships"]
    pairs = {(r["from"], r["to"]) for r in relationships}
    assert pairs == {("ship.lost_in_battle", "battle.id"), ("crew_loss.caused_by_ship_id", "ship.id")}
    assert "# not proposed: battle.name -> ship.name" in text or "# not proposed: ship.name -> battle.name" in text
    question = "What is the total killed for ships lost in the battle Lepanto?"
    with nl2sql.connect(sources={"fleet": str(db)}, settings={"project_dir": tmp_path / "q"},
                        semantic=yaml.safe_load(text)) as described:
        result = described.ask(question)
    assert result.status == "success", result.errors
    assert result.to_pandas().iloc[0, 0] == 11
