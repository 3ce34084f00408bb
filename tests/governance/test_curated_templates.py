"""Curated answers as templates: the same question about another value runs the same SQL with
that value, bound by sqlglot; an unknown value, or other words, is never answered by it."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

import nl2sql
from nl2sql.errors import ConfigError
from nl2sql.governance.curated import CuratedAnswer, CuratedStore, load_answers, save_answers
from nl2sql.governance.curated_template import (
    TemplateParameter,
    bind_sql,
    column_values,
    derive_parameters,
)
from nl2sql.schema.models import Column, SchemaSnapshot, Table

REGIONS = ["North", "South", "East", "West", "New England"]

DDL = """
CREATE TABLE sales_orders (order_id INTEGER, region_name TEXT, order_year INTEGER, total_amount REAL);
CREATE TABLE shipLog (shipId INTEGER, carrierName TEXT, weightKg REAL);
CREATE TABLE T_EMP (EMP_ID INTEGER, EMP_DEPT_CD TEXT, EMP_SAL REAL);
"""

CURATED = """\
answers:
  - question: What is the total amount of orders in the West region in 2024?
    datasource: biz
    sql: SELECT SUM(total_amount) AS total FROM sales_orders WHERE region_name = 'West' AND order_year = 2024
    parameters:
      region: {value: West, column: sales_orders.region_name}
      year: {value: 2024}
  - question: How many shipments did DHL carry?
    datasource: biz
    sql: SELECT COUNT(*) AS shipments FROM shipLog WHERE carrierName = 'DHL'
    parameters:
      carrier: {value: DHL, column: shipLog.carrierName}
  - question: How many shipments did UPS carry?
    datasource: biz
    sql: SELECT 1000 AS shipments
"""


def _build(path: Path) -> Path:
    con = sqlite3.connect(path)
    con.executescript(DDL)
    con.executemany("INSERT INTO sales_orders VALUES (?, ?, ?, ?)",
                    [(i, REGIONS[i % 5], 2022 + i % 3, 10.0 + i) for i in range(90)])
    con.executemany("INSERT INTO shipLog VALUES (?, ?, ?)",
                    [(i, ["DHL", "UPS", "FedEx", "O'Neil Freight"][i % 4], 1.5 * i) for i in range(40)])
    con.executemany("INSERT INTO T_EMP VALUES (?, ?, ?)",
                    [(i, ["ACC", "ENG", "OPS"][i % 3], 1000.0 + 10 * i) for i in range(30)])
    con.commit()
    con.close()
    return path


def _direct(db: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(db)
    try:
        return [tuple(r) for r in con.execute(sql, args).fetchall()]
    finally:
        con.close()


def _rows(result: Any) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in result.to_pandas().itertuples(index=False)]


@pytest.fixture(scope="module")
def biz(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("templates")
    db = _build(folder / "biz.sqlite")
    (folder / "curated.yaml").write_text(CURATED, encoding="utf-8")
    (folder / "nl2sql.toml").write_text('[curated]\nfile = "curated.yaml"\n', encoding="utf-8")
    session = nl2sql.connect(config=folder / "nl2sql.toml", sources={"biz": str(db)},
                             settings={"project_dir": folder / "p"})
    yield session, db
    session.close()


@pytest.mark.parametrize(("question", "region", "year"), [
    ("What is the total amount of orders in the East region in 2023?", "East", 2023),
    ("what is the total amount of orders in the new england region in 2022", "New England", 2022),
    ("What is the total amount of orders in the West region in 2022?", "West", 2022),
])
def test_another_value_runs_the_template_with_it(biz: Any, question: str, region: str, year: int) -> None:
    session, db = biz
    result = session.ask(question)
    assert result.status == "success", result.errors
    assert result.verified_match.method == "template"
    assert result.verified_match.bindings == {"region": region, "year": year}
    expected = _direct(db, "SELECT SUM(total_amount) FROM sales_orders WHERE region_name = ? AND order_year = ?",
                       region, year)
    assert _rows(result) == expected and expected[0][0] is not None
    note = ("answered from curated template 'What is the total amount of orders in the {region} region "
            f"in {{year}}?' with region={region!r}, year={year}")
    assert any(note in str(e.get("content")) for e in result.reasoning)


def test_a_stored_value_with_a_quote_is_bound_as_a_literal(biz: Any) -> None:
    session, db = biz
    result = session.ask("How many shipments did O'Neil Freight carry?")
    assert result.verified_match.method == "template" and "'O''Neil Freight'" in result.sql
    assert _rows(result) == _direct(db, "SELECT COUNT(*) FROM shipLog WHERE carrierName = ?", "O'Neil Freight")


def test_an_exact_answer_comes_before_a_template(biz: Any) -> None:
    session, _ = biz
    result = session.ask("How many shipments did UPS carry?")
    assert result.verified_match.method == "exact" and _rows(result) == [(1000,)]


@pytest.mark.parametrize("question", [
    "How many shipments did Acme carry?",  # not a carrier of the data
    "How many shipments did DHL or FedEx carry?",  # not one stored value
    "What is the total amount of orders in the Mars region in 2024?",
    "What is the average amount of orders in the East region in 2024?",  # another word
])
def test_an_unknown_value_or_other_words_never_use_the_template(biz: Any, question: str) -> None:
    session, _ = biz
    result = session.ask(question)
    assert result.verified_match is None or result.verified_match.method != "template"
    assert not any("curated template" in str(e.get("content")) for e in result.reasoning)


def test_a_verified_run_saved_as_a_template_answers_another_value(tmp_path: Path) -> None:
    db = _build(tmp_path / "biz.sqlite")
    (tmp_path / "nl2sql.toml").write_text('[curated]\nthreshold = 0.9\n', encoding="utf-8")
    layer = {"terms": [{"term": "employee", "means": "T_EMP"}, {"term": "salary", "means": "T_EMP.EMP_SAL"},
                       {"term": "department", "means": "T_EMP.EMP_DEPT_CD"}]}
    with nl2sql.connect(config=tmp_path / "nl2sql.toml", sources={"biz": str(db)},
                        semantic={"sources": {"biz": layer}}, settings={"project_dir": tmp_path / "p"}) as session:
        first = session.ask("What is the total salary of employees in department ENG?")
        assert first.status == "success", first.errors
        saved = first.verify(template=True)
        assert saved.parameters == {"emp_dept_cd": TemplateParameter(value="ENG", column="T_EMP.EMP_DEPT_CD")}
        assert saved.template == "What is the total salary of employees in department {emp_dept_cd}?"
        again = session.ask("What is the total salary of employees in department OPS?")
        assert again.verified_match.method == "template"
        assert _rows(again) == _direct(db, "SELECT SUM(EMP_SAL) FROM T_EMP WHERE EMP_DEPT_CD = 'OPS'")
        assert load_answers(tmp_path / "p" / "curated.yaml")[0].parameters == saved.parameters
        nothing = session.ask("How many employees are there?")
        assert nothing.status == "success", nothing.errors
        with pytest.raises(ValueError, match="cannot be a template"):
            nothing.verify(template=True)


# -- the store and the binding, without a database ---------------------------------------------

SNAPSHOT = SchemaSnapshot(datasource_id="crm", dialect="sqlite", tables=[
    Table(name="accounts", columns=[Column(name="Tier", type="TEXT", samples=["Gold", "Silver", "Bronze"]),
                                    Column(name="id", type="INTEGER")]),
])


def _store(tmp_path: Path, *answers: CuratedAnswer) -> CuratedStore:
    path = tmp_path / "curated.yaml"
    save_answers(path, list(answers))
    return CuratedStore([path], tmp_path / "promoted.yaml", index_path=None)


def _values(datasource: str, ref: str) -> dict[str, str]:
    assert datasource == "crm"
    return column_values(SNAPSHOT, ref)


def test_the_store_matches_templates_only_with_known_values(tmp_path: Path) -> None:
    answer = CuratedAnswer(question="How many Gold accounts are there?", datasource="crm",
                           sql="SELECT COUNT(*) FROM accounts WHERE Tier = 'Gold'",
                           parameters={"tier": TemplateParameter(value="Gold", column="accounts.Tier")})
    store = _store(tmp_path, answer)
    hit = store.match("How many silver accounts are there?", ["crm"], _values)
    assert hit is not None and (hit.method, hit.bindings) == ("template", {"tier": "Silver"})
    assert store.match("How many Platinum accounts are there?", ["crm"], _values) is None
    assert store.match("How many silver accounts are there?", ["crm"]) is None  # no values: no template
    assert store.match("How many Gold accounts are there", ["crm"], _values).method == "exact"


def test_bound_values_are_sqlglot_literals_never_text() -> None:
    params = {"tier": TemplateParameter(value="Gold", column="accounts.Tier"), "n": TemplateParameter(value=5)}
    sql = "SELECT id FROM accounts WHERE Tier = 'Gold' LIMIT 5"
    bound = bind_sql(sql, params, {"tier": "x' OR '1'='1", "n": 7}, "sqlite")
    assert bound == "SELECT id FROM accounts WHERE Tier = 'x'' OR ''1''=''1' LIMIT 7"
    assert bind_sql(sql, params, {"tier": "Gold", "n": 5}, "sqlite") == sql


def test_parameters_are_derived_from_the_values_the_question_names() -> None:
    sql = "SELECT id FROM accounts AS a WHERE a.Tier = 'Gold' AND a.id > 100 AND a.Tier <> 'Lead' LIMIT 3"
    found = derive_parameters("Top 3 Gold accounts with an id over 100", sql, SNAPSHOT, "sqlite")
    assert found == {"tier": TemplateParameter(value="Gold", column="accounts.Tier"),
                     "id": TemplateParameter(value=100), "limit": TemplateParameter(value=3)}


@pytest.mark.parametrize(("parameters", "message"), [
    ("tier: {value: Gold}", "a text value needs `column"),
    ("tier: {value: Silver, column: accounts.Tier}", "must be written exactly once in the question"),
    ("n: {value: 7}", "must be written exactly once"),
    ("tier: {value: Gold, column: accounts.Tier}\n      n: {value: 5}", "5 is not a literal of the SQL"),
    ("1tier: {value: Gold, column: accounts.Tier}", "is not a name"),
])
def test_a_bad_template_is_a_one_line_error(tmp_path: Path, parameters: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("answers:\n  - question: How many Gold accounts, 5 or more?\n    datasource: crm\n"
                    "    sql: SELECT COUNT(*) FROM accounts WHERE Tier = 'Gold'\n"
                    f"    parameters:\n      {parameters}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad.yaml: answers\[0\]") as raised:
        load_answers(path)
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_a_paraphrase_with_another_value_is_never_an_embedding_match(tmp_path: Path) -> None:
    answer = CuratedAnswer(question="How many Gold accounts are there?", datasource="crm",
                           sql="SELECT COUNT(*) FROM accounts WHERE Tier = 'Gold'",
                           parameters={"tier": TemplateParameter(value="Gold", column="accounts.Tier")})
    path = tmp_path / "curated.yaml"
    save_answers(path, [answer])
    anything = CuratedStore([path], tmp_path / "promoted.yaml", threshold=0.0, index_path=None)
    assert anything.match("Count the Gold accounts please", ["crm"], _values).method == "embedding"
    assert anything.match("Count the Platinum accounts please", ["crm"], _values) is None


def test_known_values_come_from_samples_the_vocabulary_and_value_terms() -> None:
    from nl2sql.schema.models import SemanticTerm, TableSemantics

    semantic = TableSemantics(values={"state": ["Nevada", "New Mexico"]},
                              terms=[SemanticTerm(term="CA", column="state", value="California")])
    snapshot = SchemaSnapshot(datasource_id="s", dialect="sqlite", tables=[Table(
        name="people", columns=[Column(name="state", type="TEXT", samples=["Ohio"])], semantic=semantic)])
    assert column_values(snapshot, "people.state") == {
        "ohio": "Ohio", "nevada": "Nevada", "new mexico": "New Mexico", "ca": "California"}
    assert column_values(snapshot, "people.city") == {} and column_values(snapshot, "nobody.state") == {}
