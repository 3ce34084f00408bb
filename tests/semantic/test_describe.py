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
    db = tmp_path / "sport.sqlite"
    con = sqlite3.connect(db)
    con.executescript(
        """
        CREATE TABLE league (id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT, plays_in_league INTEGER);
        CREATE TABLE injury (injury_id INTEGER PRIMARY KEY, suffered_by_team_id TEXT, games_missed INTEGER);
        INSERT INTO league VALUES (1, 'Northern'), (2, 'Coastal'), (3, 'Highland');
        INSERT INTO team VALUES (1, 'Rovers', 1), (2, 'Lions', 2), (3, 'Swans', 2), (4, 'Hinds', 3);
        INSERT INTO injury VALUES (1, '1', 10), (2, '2', 4), (3, '2', 7), (4, '4', 1);
        """
    )
    con.commit()
    con.close()
    with nl2sql.connect(sources={"sport": str(db)}, settings={"project_dir": tmp_path / "p"}) as s:
        from nl2sql.semantic.describe import draft_file

        text, _ = draft_file(s.context.datasources["sport"], s.context.schemas.get("sport"))
    relationships = yaml.safe_load(text)["sources"]["sport"]["relationships"]
    pairs = {(r["from"], r["to"]) for r in relationships}
    assert pairs == {("team.plays_in_league", "league.id"), ("injury.suffered_by_team_id", "team.id")}
    assert "# not proposed: league.name -> team.name" in text or "# not proposed: team.name -> league.name" in text
    question = "What is the total games missed for teams that play in the league Coastal?"
    with nl2sql.connect(sources={"sport": str(db)}, settings={"project_dir": tmp_path / "q"},
                        semantic=yaml.safe_load(text)) as described:
        result = described.ask(question)
    assert result.status == "success", result.errors
    assert result.to_pandas().iloc[0, 0] == 11


def _draft(tmp_path: Path, script: str, rows: dict[str, list[tuple[object, ...]]]) -> tuple[str, dict[str, object]]:
    """Build a SQLite database from `script` and `rows`, draft its layer: (YAML text, its source)."""
    from nl2sql.semantic.describe import draft_file

    tmp_path.mkdir(parents=True, exist_ok=True)
    db = tmp_path / "src.sqlite"
    con = sqlite3.connect(db)
    con.executescript(script)
    for table, values in rows.items():
        con.executemany(f'INSERT INTO "{table}" VALUES ({",".join("?" * len(values[0]))})', values)
    con.commit()
    con.close()
    with nl2sql.connect(sources={"src": str(db)}, settings={"project_dir": tmp_path / "p"}) as s:
        text, _ = draft_file(s.context.datasources["src"], s.context.schemas.get("src"))
    return text, yaml.safe_load(text)["sources"]["src"]


def _pairs(layer: dict[str, object]) -> set[tuple[str, str, str]]:
    found = layer.get("relationships") or []
    assert isinstance(found, list)
    return {(r["from"], r["to"], r["cardinality"]) for r in found}


def _extension_rows(n: int, offset: int = 0) -> dict[str, list[tuple[object, ...]]]:
    return {
        "series": [(f"m{i}", f"Series {i}") for i in range(10)],
        "bikeNames": [(i, f"m{i % 10}", f"Bike {i}") for i in range(1, n + 1)],
        "bikeSpecs": [(i + offset, 10.0 + i % 7, 4 + i % 3) for i in range(1, n + 1)],
    }


EXTENSION = """
CREATE TABLE series (seriesCode TEXT PRIMARY KEY, title TEXT);
CREATE TABLE bikeNames (frameId INTEGER PRIMARY KEY, seriesCode TEXT, label TEXT);
CREATE TABLE bikeSpecs (id INTEGER PRIMARY KEY, gears REAL, weight INTEGER);
"""


def test_tables_sharing_their_keys_are_one_to_one(tmp_path: Path) -> None:
    """camelCase: bikeSpecs extends bikeNames (same 60 key values, a shared word, no other link);
    the table the rest of the schema links to is the referenced one."""
    _, layer = _draft(tmp_path, EXTENSION, _extension_rows(60))
    assert _pairs(layer) == {("bikeNames.seriesCode", "series.seriesCode", "many-to-one"),
                             ("bikeSpecs.id", "bikeNames.frameId", "one-to-one")}


def test_shared_keys_need_every_value_many_values_and_a_shared_word(tmp_path: Path) -> None:
    text, layer = _draft(tmp_path / "off", EXTENSION, _extension_rows(60, offset=1))
    assert ("bikeSpecs.id", "bikeNames.frameId", "one-to-one") not in _pairs(layer)
    assert "# not proposed: bikeSpecs.id -> bikeNames.frameId" in text and "only 59 of 60" in text
    _, layer = _draft(tmp_path / "few", EXTENSION, _extension_rows(20))  # 1..20 twice: chance
    assert _pairs(layer) == {("bikeNames.seriesCode", "series.seriesCode", "many-to-one")}
    renamed = EXTENSION.replace("bikeSpecs", "wheelSpecs")
    rows = _extension_rows(60)
    rows["wheelSpecs"] = rows.pop("bikeSpecs")
    _, layer = _draft(tmp_path / "unnamed", renamed, rows)
    assert _pairs(layer) == {("bikeNames.seriesCode", "series.seriesCode", "many-to-one")}


def test_a_key_shared_by_several_tables_is_no_evidence(tmp_path: Path) -> None:
    """Coded prefixes: `tbl` is in every name (no evidence); three `Bike` tables with keys
    1..60 could be any pair of them: nothing proposed."""
    script = """
    CREATE TABLE tblBikeNames (frameId INTEGER PRIMARY KEY, label TEXT);
    CREATE TABLE tblBikeSpecs (specNo INTEGER PRIMARY KEY, gears REAL);
    CREATE TABLE tblBikePrices (priceNo INTEGER PRIMARY KEY, price REAL);
    """
    rows: dict[str, list[tuple[object, ...]]] = {
        "tblBikeNames": [(i, f"Bike {i}") for i in range(1, 61)],
        "tblBikeSpecs": [(i, 10.0 + i % 7) for i in range(1, 61)],
        "tblBikePrices": [(i, 1000.0 * i) for i in range(1, 61)]}
    _, layer = _draft(tmp_path, script, rows)
    assert _pairs(layer) == set()
    two = script.replace("    CREATE TABLE tblBikePrices (priceNo INTEGER PRIMARY KEY, price REAL);\n", "")
    del rows["tblBikePrices"]
    _, layer = _draft(tmp_path / "two", two + "CREATE TABLE tblRider (riderNo INTEGER);",
                      {**rows, "tblRider": [(1,)]})
    assert _pairs(layer) == {("tblBikeNames.frameId", "tblBikeSpecs.specNo", "one-to-one")}


def test_a_plural_of_a_table_name_counts_its_rows(tmp_path: Path) -> None:
    """snake_case: `num_seasons` and `helps_members` hold small numbers all found among
    the keys 1..n, but name several rows: not references; `season` names one."""
    script = """
    CREATE TABLE season (season_id INTEGER PRIMARY KEY, label TEXT);
    CREATE TABLE member (member_id INTEGER PRIMARY KEY, full_name TEXT);
    CREATE TABLE club (club_id INTEGER PRIMARY KEY, title TEXT, num_seasons INTEGER);
    CREATE TABLE club_review (review_id INTEGER PRIMARY KEY, club_ref INTEGER, helps_members INTEGER);
    CREATE TABLE fixture (fixture_id INTEGER PRIMARY KEY, season INTEGER);
    """
    rows: dict[str, list[tuple[object, ...]]] = {
        "season": [(i, f"Season {i}") for i in range(1, 5)],
        "member": [(i, f"Member {i}") for i in range(1, 6)],
        "club": [(i, f"Club {i}", 1 + i % 2) for i in range(1, 5)],
        "club_review": [(i, 1 + i % 4, 3 + i % 3) for i in range(1, 9)],
        "fixture": [(i, 1 + i % 4) for i in range(1, 9)]}
    _, layer = _draft(tmp_path, script, rows)
    pairs = {(a, b) for a, b, _ in _pairs(layer)}
    assert ("fixture.season", "season.season_id") in pairs
    assert not {p for p in pairs if p[0] in ("club.num_seasons", "club_review.helps_members")}


def test_two_unique_columns_of_one_name_are_proposed_once(tmp_path: Path) -> None:
    script = """
    CREATE TABLE Shipment (shipmentNo INTEGER PRIMARY KEY, routeCode TEXT);
    CREATE TABLE RoutePlan (routeCode TEXT, carrier TEXT);
    """
    rows: dict[str, list[tuple[object, ...]]] = {
        "Shipment": [(i, f"S{i}") for i in range(1, 9)],
        "RoutePlan": [(f"S{i}", f"A{i % 3}") for i in range(1, 9)]}
    _, layer = _draft(tmp_path, script, rows)
    assert len({frozenset((a, b)) for a, b, _ in _pairs(layer)}) == len(_pairs(layer)) == 1


def test_no_vocabulary_for_numbers_or_joined_keys(tmp_path: Path) -> None:
    """Years and ids stored as text are not words; a text key's values are references."""
    script = """
    CREATE TABLE region (region_code TEXT PRIMARY KEY, region_name TEXT);
    CREATE TABLE store (store_id INTEGER PRIMARY KEY, region_code TEXT, opened TEXT, kind TEXT);
    """
    rows: dict[str, list[tuple[object, ...]]] = {
        "region": [("N", "North"), ("S", "South"), ("E", "East")],
        "store": [(i, "NSE"[i % 3], str(2010 + i % 4), ["mall", "street"][i % 2]) for i in range(12)]}
    _, layer = _draft(tmp_path, script, rows)
    assert ("store.region_code", "region.region_code", "many-to-one") in _pairs(layer)
    columns = layer["columns"]
    assert isinstance(columns, dict)
    assert columns == {"store.kind": {"values": ["mall", "street"]}}


def test_a_glued_name_ending_with_a_key_refers_to_it(tmp_path: Path) -> None:
    """All lower case, no separators: `targetpageid` ends with page's key `pageid`; the data
    decides (`oldpageid` holds numbers no page has)."""
    script = """
    CREATE TABLE page (pageid INTEGER, title TEXT);
    CREATE TABLE link (sourcepageid INTEGER, targetpageid INTEGER, oldpageid INTEGER);
    """
    rows: dict[str, list[tuple[object, ...]]] = {
        "page": [(i, f"Page {i}") for i in range(1, 9)],
        "link": [(1 + i % 8, 1 + (i * 3) % 8, 100 + i) for i in range(12)]}
    text, layer = _draft(tmp_path, script, rows)
    assert _pairs(layer) == {("link.sourcepageid", "page.pageid", "many-to-one"),
                             ("link.targetpageid", "page.pageid", "many-to-one")}
    assert "# not proposed: link.oldpageid -> page.pageid" in text
