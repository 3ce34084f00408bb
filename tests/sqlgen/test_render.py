"""Golden cases: each plan renders to the expected SQL per dialect and returns the expected rows
on the shop database in DuckDB and SQLite (and PostgreSQL / MariaDB when their URLs are set)."""

from __future__ import annotations

import duckdb
import pytest
from sqlglot import exp

from nl2sql.plan import PlanModel, walk
from nl2sql.schema.models import Column, SchemaSnapshot, Table
from nl2sql.sqlgen import plan_to_expression, render_plan
from nl2sql.validation import validate_plan

from .golden import DIALECTS, canonical, load_cases, normalize_rows
from .shop import snapshot

CASES = load_cases()
EXECUTED = [c for c in CASES if c.rows is not None]


def _snapshot(case):
    return snapshot() if case.use_snapshot else None


def test_the_golden_set_covers_every_construct():
    kinds = {type(n).__name__ for c in CASES for n in walk(c.plan)}
    assert len(CASES) >= 25
    assert {
        "Aggregate",
        "Arithmetic",
        "Between",
        "BoolOp",
        "Case",
        "Cast",
        "Comparison",
        "Exists",
        "Extract",
        "Function",
        "InList",
        "IsNull",
        "Like",
        "Literal_",
        "Not",
        "ScalarSubquery",
        "SetOperation",
        "Join",
        "Star",
    } <= kinds


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_golden_sql(case, dialect):
    sql = render_plan(case.plan, dialect, _snapshot(case))
    assert canonical(sql, dialect) == canonical(case.expected[dialect], dialect)


@pytest.mark.parametrize("shop", DIALECTS, indirect=True)
@pytest.mark.parametrize("case", EXECUTED, ids=lambda c: c.name)
def test_golden_rows(case, shop, request):
    dialect = request.node.callspec.params["shop"]
    rows = shop(render_plan(case.plan, dialect, _snapshot(case)))
    assert normalize_rows(rows, case.ordered) == case.rows


@pytest.mark.parametrize("case", EXECUTED, ids=lambda c: c.name)
def test_duckdb_and_sqlite_return_the_same_rows(case, duckdb_shop, sqlite_shop):
    on_duckdb = duckdb_shop(render_plan(case.plan, "duckdb", _snapshot(case)))
    on_sqlite = sqlite_shop(render_plan(case.plan, "sqlite", _snapshot(case)))
    assert normalize_rows(on_duckdb, case.ordered) == normalize_rows(on_sqlite, case.ordered)
    assert on_duckdb  # a golden case that returns nothing would prove little


def test_sqlalchemy_dialect_names_render_like_sqlglot_names():
    plan = CASES[0].plan
    assert render_plan(plan, "postgresql+psycopg") == render_plan(plan, "postgres")
    assert render_plan(plan, "mariadb") == render_plan(plan, "mysql")


def test_every_identifier_is_quoted():
    for case in CASES:
        tree = plan_to_expression(case.plan, _snapshot(case))
        assert isinstance(tree, exp.Query)
        names = [i.this for i in tree.find_all(exp.Identifier) if not i.quoted]
        assert names == [], case.name


def _plan(data: dict) -> PlanModel:
    return PlanModel.model_validate(data)


def test_schema_qualified_table_renders_from_the_snapshot_and_runs(tmp_path):
    conn = duckdb.connect(str(tmp_path / "s.duckdb"))
    conn.execute('CREATE SCHEMA "Sales"')
    conn.execute('CREATE TABLE "Sales"."Orders" ("Amount" DOUBLE)')
    conn.execute('INSERT INTO "Sales"."Orders" VALUES (1.5), (2.5)')
    table = Table(
        name="Orders", schema_name="Sales", columns=[Column(name="Amount", type="DOUBLE")]
    )
    snap = SchemaSnapshot(datasource_id="d", dialect="duckdb", tables=[table])
    plan = _plan(
        {
            "tables": [{"name": "sales.orders", "alias": "o"}],
            "select": [
                {
                    "expr": {
                        "kind": "aggregate",
                        "func": "sum",
                        "arg": {"kind": "column", "name": "amount"},
                    }
                }
            ],
        }
    )
    sql = render_plan(plan, "duckdb", snap)
    assert '"Sales"."Orders" AS "o"' in sql and 'SUM("o"."Amount") AS "sum_amount"' in sql
    assert conn.execute(sql).fetchall() == [(4.0,)]


def test_quotes_inside_names_and_values_cannot_break_out(tmp_path):
    conn = duckdb.connect(str(tmp_path / "q.duckdb"))
    conn.execute('CREATE TABLE "we""ird" ("na""me" VARCHAR)')
    conn.execute("""INSERT INTO "we""ird" VALUES ('it''s'), ('x')""")
    plan = _plan(
        {
            "tables": [{"name": 'we"ird', "alias": 'w"'}],
            "select": [{"expr": {"kind": "column", "table": 'w"', "name": 'na"me'}}],
            "where": {
                "kind": "comparison",
                "op": "!=",
                "left": {"kind": "column", "table": 'w"', "name": 'na"me'},
                "right": {"kind": "literal", "value": 'x\'; DROP TABLE "we""ird"; --'},
            },
        }
    )
    assert sorted(conn.execute(render_plan(plan, "duckdb")).fetchall()) == [("it's",), ("x",)]
    assert conn.execute('SELECT COUNT(*) FROM "we""ird"').fetchone() == (2,)


@pytest.mark.parametrize("case", EXECUTED, ids=lambda c: c.name)
def test_golden_plans_pass_the_logical_validator(case):
    assert [c.message for c in validate_plan(case.plan, snapshot()) if not c.passed] == []
