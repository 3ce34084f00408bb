"""Relationships across sources in use: a question over two databases joined on the declared keys.

Orders live in a DuckDB warehouse (`cust_ref`, snake_case), customers in a SQLite CRM (`Code`,
camelCase columns); the layer relates `warehouse:orders.cust_ref` → `crm:customers.code`. Some
orders name a customer the CRM does not have, one CRM customer has no orders and some amounts are
missing, so a wrong join or a double count shows in the rows, which are checked against one
DuckDB query over copies of both tables.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

import nl2sql
from nl2sql.decomposition import DecomposerResponse
from nl2sql.errors import ConfigError
from nl2sql.plan import Aggregate, ColumnRef, PlanModel, SelectItem, TableRef
from nl2sql.reasoning.base import DecomposeRequest
from nl2sql.reasoning.llm import builders
from nl2sql.reasoning.offline.engine import OfflineEngine
from nl2sql.reasoning.offline.plan.keyed import keyed_plan
from nl2sql.reasoning.offline.shapes.spec import Unclear
from nl2sql.semantic.across import relevant_relationships

RELATIONSHIP = {"from": "warehouse:orders.cust_ref", "to": "crm:customers.code",
                "cardinality": "many-to-one"}
USED = "joined across sources by relationship warehouse:orders.cust_ref → crm:customers.code"
SEGMENTS = ("Retail", "Wholesale", "Online")


def _orders() -> list[tuple[Any, ...]]:
    # keys K-000 … K-010; the CRM knows K-000 … K-008 (K-009 and K-010 are orphans)
    return [(i, f"K-{(i * 7) % 11:03d}", None if i % 13 == 0 else round(5 + (i * 37) % 90 + 0.25, 2),
             ("open", "shipped")[i % 2], f"202{4 + i % 2}-0{1 + i % 9}-1{i % 9}")
            for i in range(1, 61)]


def _customers() -> list[tuple[Any, ...]]:
    return [(f"K-{n:03d}", f"Client {n}", SEGMENTS[n % 3], ("North", "South")[n // 5 % 2])
            for n in [*range(9), 11]]  # K-011 has no orders


@pytest.fixture(scope="module")
def databases(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("xsource")
    warehouse, crm = folder / "warehouse.duckdb", folder / "crm.sqlite"
    con = duckdb.connect(str(warehouse))
    con.execute("CREATE TABLE orders (order_id INTEGER, cust_ref VARCHAR, amount DECIMAL(10, 2), "
                "status VARCHAR, ordered_on DATE)")
    con.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?)", _orders())
    con.close()
    lite = sqlite3.connect(crm)
    lite.execute('CREATE TABLE customers ("Code" TEXT, "fullName" TEXT, "customerSegment" TEXT, '
                 '"homeRegion" TEXT)')
    lite.executemany("INSERT INTO customers VALUES (?, ?, ?, ?)", _customers())
    lite.commit()
    lite.close()
    return warehouse, crm


@pytest.fixture(scope="module")
def reference(databases: tuple[Path, Path]) -> Iterator[duckdb.DuckDBPyConnection]:
    """Both tables copied into one in-memory DuckDB, read from the two database files."""
    warehouse, crm = databases
    con = duckdb.connect()
    con.execute(f"ATTACH '{warehouse}' AS wh (READ_ONLY)")
    con.execute("CREATE TABLE orders AS SELECT * FROM wh.orders")
    con.execute("DETACH wh")
    lite = sqlite3.connect(crm)
    rows = lite.execute("SELECT * FROM customers").fetchall()
    lite.close()
    con.execute('CREATE TABLE customers ("Code" VARCHAR, "fullName" VARCHAR, '
                '"customerSegment" VARCHAR, "homeRegion" VARCHAR)')
    con.executemany("INSERT INTO customers VALUES (?, ?, ?, ?)", rows)
    yield con
    con.close()


def _connect(databases: tuple[Path, Path], folder: Path, **options: Any) -> nl2sql.Session:
    warehouse, crm = databases
    return nl2sql.connect(sources={"warehouse": f"duckdb:///{warehouse}", "crm": f"sqlite:///{crm}"},
                          settings={"project_dir": folder}, **options)


@pytest.fixture(scope="module")
def session(databases: tuple[Path, Path], reference: duckdb.DuckDBPyConnection,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[nl2sql.Session]:
    with _connect(databases, tmp_path_factory.mktemp("project"),
                  semantic={"relationships": [RELATIONSHIP]}) as opened:
        yield opened


def _expected(reference: duckdb.DuckDBPyConnection, group: str, measure: str,
              where: str = "TRUE") -> list[tuple[Any, ...]]:
    column = group if "." in group else f'c."{group}"'  # a CRM column unless qualified
    rows = reference.execute(
        f'SELECT {column}, {measure} FROM orders o JOIN customers c ON o.cust_ref = c."Code" '
        f"WHERE {where} GROUP BY 1 ORDER BY 1").fetchall()
    return [(g, round(float(v), 6)) for g, v in rows]


def _rows(result: nl2sql.QueryResult) -> list[tuple[Any, ...]]:
    table = result.to_pandas()
    return sorted((row[0], round(float(row[-1]), 6)) for row in table.itertuples(index=False))


def _decomposer_note(result: nl2sql.QueryResult) -> str:
    return str(next(r["content"] for r in result.reasoning if r["node"] == "decomposer"))


def _sql_by_source(result: nl2sql.QueryResult) -> dict[str, str]:
    return {o.sub_query.datasource_id: o.sql_draft or "" for o in result.sub_queries if o.sub_query}


@pytest.mark.parametrize(("question", "group", "measure", "where"), [
    ("total order amount per customer segment", "customerSegment", "SUM(o.amount)", "TRUE"),
    ("average order amount per customer segment", "customerSegment", "AVG(o.amount)", "TRUE"),
    ("For each home region, the number of orders", "homeRegion", "COUNT(*)", "TRUE"),
    ("highest order amount per customer segment", "customerSegment", "MAX(o.amount)", "TRUE"),
    ("total amount of shipped orders per customer segment", "customerSegment", "SUM(o.amount)",
     "o.status = 'shipped'"),
    ("number of orders per customer segment in 2025", "customerSegment", "COUNT(*)",
     "year(o.ordered_on) = 2025"),
])
def test_a_question_across_two_sources_joins_on_the_declared_keys(
        session: nl2sql.Session, reference: duckdb.DuckDBPyConnection, question: str, group: str,
        measure: str, where: str) -> None:
    result = session.ask(question)
    assert result.status == "success", [e.one_line() for e in result.errors]
    assert _rows(result) == _expected(reference, group, measure, where)
    assert list(result.to_pandas().columns)[0] == group
    assert USED in _decomposer_note(result)
    sqls = _sql_by_source(result)
    assert set(sqls) == {"warehouse", "crm"}
    assert 'GROUP BY "t1"."cust_ref"' in sqls["warehouse"]  # the many side, per key
    assert sqls["crm"].startswith('SELECT DISTINCT "t1"."Code"')


def test_the_average_weighs_every_order_not_every_customer(
        session: nl2sql.Session, reference: duckdb.DuckDBPyConnection) -> None:
    result = session.ask("average order amount per customer segment")
    per_key = reference.execute(
        'SELECT c."customerSegment", AVG(k.a) FROM (SELECT cust_ref, AVG(amount) a FROM orders '
        'GROUP BY 1) k JOIN customers c ON k.cust_ref = c."Code" GROUP BY 1 ORDER BY 1').fetchall()
    assert _rows(result) != [(g, round(float(v), 6)) for g, v in per_key]  # the data tell them apart
    warehouse = _sql_by_source(result)["warehouse"]
    assert "SUM(" in warehouse and "COUNT(" in warehouse


def test_each_customer_named_by_the_relationship(
        session: nl2sql.Session, reference: duckdb.DuckDBPyConnection) -> None:
    result = session.ask("For each customer, the number of orders")
    assert result.status == "success", [e.one_line() for e in result.errors]
    table = result.to_pandas()
    got = sorted((row.cust_ref, row.fullName, int(row.count_orders))
                 for row in table.itertuples(index=False))
    expected = reference.execute(
        'SELECT c."Code", c."fullName", COUNT(*) FROM orders o JOIN customers c '
        'ON o.cust_ref = c."Code" GROUP BY 1, 2 ORDER BY 1').fetchall()
    assert got == [tuple(r) for r in expected]


def test_the_relationship_declared_the_other_way_round_gives_the_same_rows(
        databases: tuple[Path, Path], reference: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    reverse = {"from": "crm:customers.Code", "to": "warehouse:orders.CUST_REF",
               "cardinality": "one-to-many"}
    with _connect(databases, tmp_path, semantic={"relationships": [reverse]}) as opened:
        result = opened.ask("total order amount per customer segment")
    assert _rows(result) == _expected(reference, "customerSegment", "SUM(o.amount)")
    assert ("joined across sources by relationship crm:customers.Code → warehouse:orders.CUST_REF"
            in _decomposer_note(result))


def test_without_the_relationship_the_question_is_refused_as_before(
        databases: tuple[Path, Path], tmp_path: Path) -> None:
    with _connect(databases, tmp_path) as opened:
        result = opened.ask("total order amount per customer segment")
    assert result.status == "error"
    assert [e.error_code.value for e in result.errors] == ["PLANNING_FAILURE"]
    assert len(result.sub_queries) == 1 and "joined across sources" not in _decomposer_note(result)


@pytest.mark.parametrize(("relationship", "words"), [
    ({"from": "warehouse:orders.custref", "to": "crm:customers.code"},
     ["unknown column 'custref' in orders", "did you mean 'cust_ref'?"]),
    ({"from": "warehouse:orders.cust_ref", "to": "crm:customer.code"},
     ["unknown table 'customer' in crm", "did you mean 'customers'?"]),
    ({"from": "warehous:orders.cust_ref", "to": "crm:customers.code"},
     ["unknown datasource 'warehous'", "did you mean 'warehouse'?"]),
    ({"from": "warehouse:orders.amount", "to": "crm:customers.code"},
     ["orders.amount", "customers.Code", "cannot be equal"]),
    ({"from": "crm:customers.code", "to": "crm:customers.fullName"},
     ["both ends are in crm", "sources.crm.relationships"]),
])
def test_a_bad_cross_source_entry_is_one_line_naming_it(
        databases: tuple[Path, Path], tmp_path: Path, relationship: dict[str, str],
        words: list[str]) -> None:
    with pytest.raises(ConfigError) as caught:
        _connect(databases, tmp_path, semantic={"relationships": [RELATIONSHIP, relationship]})
    message = str(caught.value)
    assert "\n" not in message
    assert f"relationships[1] ({relationship['from']} -> {relationship['to']})" in message
    for word in words:
        assert word in message


def test_the_chat_prompt_lists_only_the_relationships_of_its_sources(session: nl2sql.Session) -> None:
    declared = [*session.context.relationships,
                _relationship("warehouse:orders.status", "support:tickets.state")]
    snapshots = {sid: session.schema(sid) for sid in ("warehouse", "crm")}
    relevant = relevant_relationships(declared, snapshots)
    assert [r.written for r in relevant] == ["warehouse:orders.cust_ref → crm:customers.code"]
    prompt = builders.decomposer_prompt(DecomposeRequest("q", snapshots, {}, relevant), 6000)
    assert "- warehouse:orders.cust_ref → crm:customers.code (many-to-one)" in prompt.user
    assert "support" not in prompt.user and "key_columns" in prompt.user
    alone = builders.decomposer_prompt(DecomposeRequest("q", {"crm": snapshots["crm"]}, {},
                                                        relevant_relationships(declared, {"crm": snapshots["crm"]})), 6000)
    assert "Relationships across data sources" not in alone.user


class _Recording:
    """The offline decomposer, keeping the request it was given."""

    def __init__(self) -> None:
        self.requests: list[DecomposeRequest] = []

    def decompose(self, request: DecomposeRequest) -> DecomposerResponse:
        self.requests.append(request)
        return OfflineEngine().decompose(request)


def test_the_decomposer_is_given_the_relationships_of_the_resolved_sources(
        databases: tuple[Path, Path], tmp_path: Path) -> None:
    recording = _Recording()
    with _connect(databases, tmp_path, semantic={"relationships": [RELATIONSHIP]},
                  models={"decomposer": recording}) as opened:
        assert opened.ask("total order amount per customer segment").status == "success"
        assert opened.ask("number of orders per status").status == "success"
    first, second = recording.requests
    assert [r.text() for r in first.relationships] == [
        "warehouse:orders.cust_ref → crm:customers.code (many-to-one)"]
    assert set(second.datasources) == {"warehouse"} and not second.relationships


def _relationship(source: str, target: str) -> Any:
    from nl2sql.semantic.models import Relationship

    return Relationship.model_validate({"from": source, "to": target})


def _plan(*items: SelectItem) -> PlanModel:
    return PlanModel(tables=[TableRef(name="orders", alias="t1")], select=list(items))


def test_a_distinct_count_cannot_be_finished_after_the_join(session: nl2sql.Session) -> None:
    snapshot = session.schema("warehouse")
    distinct = Aggregate(func="count", arg=ColumnRef(table="t1", name="status"), distinct=True)
    with pytest.raises(Unclear, match="distinct"):
        keyed_plan(_plan(SelectItem(expr=distinct, alias="n")), ["orders.cust_ref"], snapshot)
    with pytest.raises(Unclear, match="not in warehouse"):
        keyed_plan(_plan(SelectItem(expr=Aggregate(func="count"), alias="n")), ["orders.ref"], snapshot)


def test_a_chat_model_decomposer_is_shown_the_relationship_and_its_plan_runs(
        databases: tuple[Path, Path], reference: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    from tests.reasoning.llm.conftest import scripted_skill

    def column(name: str) -> dict[str, str]:
        return {"kind": "column", "name": name}

    answer = {
        "sub_queries": [
            {"id": "q1", "datasource_id": "warehouse", "intent": "total order amount",
             "key_columns": ["orders.cust_ref"], "expected_schema": ["cust_ref", "sum_amount"]},
            {"id": "q2", "datasource_id": "crm", "intent": "list the customer segment",
             "key_columns": ["customers.Code"], "expected_schema": ["Code", "customerSegment"]},
        ],
        "combine_groups": [{"group_id": "g1", "operation": "join",
                            "inputs": [{"subquery_id": "q1", "role": "left"},
                                       {"subquery_id": "q2", "role": "right"}],
                            "join_keys": [{"left": "cust_ref", "right": "Code"}]}],
        "post_combine_ops": [{"op_id": "p1", "group_id": "g1", "op": "aggregate",
                              "group_by": ["customerSegment"],
                              "aggregates": [{"expr": {"kind": "aggregate", "func": "sum",
                                                       "arg": column("sum_amount")},
                                              "alias": "total_amount"}]}],
        "reasoning": "orders per customer code, joined to the customers' segments",
    }
    skill, fake = scripted_skill(answer)
    with _connect(databases, tmp_path, semantic={"relationships": [RELATIONSHIP]},
                  models={"decomposer": skill}) as opened:
        result = opened.ask("total order amount per customer segment")
    assert result.status == "success", [e.one_line() for e in result.errors]
    assert _rows(result) == _expected(reference, "customerSegment", "SUM(o.amount)")
    prompt = fake.calls[0]["messages"][-1].content
    assert "- warehouse:orders.cust_ref → crm:customers.code (many-to-one)" in prompt


def test_a_measure_on_the_one_side_counts_each_key_once_per_group(
        session: nl2sql.Session, reference: duckdb.DuckDBPyConnection) -> None:
    result = session.ask("number of customers per status")
    assert result.status == "success", [e.one_line() for e in result.errors]
    # each customer once per status of its orders, however many orders it has
    assert _rows(result) == _expected(reference, "o.status", 'COUNT(DISTINCT c."Code")')
    assert "key with several status values counts in each" in _decomposer_note(result)
