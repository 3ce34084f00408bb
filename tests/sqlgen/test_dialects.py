"""Dialect names and the per-dialect rewrites, checked on the SQL text and on real engines."""

from __future__ import annotations

import sqlite3

import duckdb
import pytest
from sqlglot.dialects.dialect import Dialect

from nl2sql.dialects import DIALECTS
from nl2sql.errors import NL2SQLError
from nl2sql.plan import PlanModel
from nl2sql.sqlgen import SQLGenError, render_plan, sqlglot_dialect


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("postgresql", "postgres"),
        ("postgresql+psycopg", "postgres"),
        ("mysql+pymysql", "mysql"),
        ("mariadb", "mysql"),
        ("mssql", "tsql"),
        ("sqlite", "sqlite"),
        ("duckdb", "duckdb"),
        ("BigQuery", "bigquery"),
        ("snowflake", "snowflake"),
        ("redshift+psycopg2", "redshift"),
        ("oracle", "oracle"),
        ("trino", "trino"),
        ("awsathena", "athena"),
    ],
)
def test_sqlalchemy_names_map_to_sqlglot_names(name, expected):
    assert sqlglot_dialect(name) == expected


def test_every_mapped_name_is_a_sqlglot_dialect():
    for target in set(DIALECTS.values()):
        assert Dialect.get_or_raise(target) is not None


def test_unknown_dialect_is_a_clear_sqlgen_error():
    with pytest.raises(SQLGenError, match="Unknown SQL dialect 'informix'.*postgresql") as info:
        sqlglot_dialect("informix")
    assert isinstance(info.value, NL2SQLError) and info.value.dialect == "informix"


def _plan(data: dict) -> PlanModel:
    return PlanModel.model_validate(data)


def _col(name: str, table: str = "t") -> dict:
    return {"kind": "column", "table": table, "name": name}


def _one_table(select: list, **extra) -> PlanModel:
    return _plan({"tables": [{"name": "t", "alias": "t"}], "select": select, **extra})


def test_nested_division_casts_once_on_mysql():
    div = {"kind": "arithmetic", "op": "/", "left": _col("a"), "right": _col("b")}
    plan = _one_table(
        [{"expr": {"kind": "arithmetic", "op": "/", "left": div, "right": _col("c")}}]
    )
    sql = render_plan(plan, "mysql")
    assert sql.count("CAST(") == 1 and "CAST(`t`.`a` AS DOUBLE) / NULLIF(`t`.`b`, 0)" in sql


def test_bare_decimal_cast_keeps_its_fraction_on_duckdb_and_mysql():
    cast = {"kind": "cast", "to": "decimal", "expr": {"kind": "literal", "value": 2.75}}
    plan = _one_table([{"expr": cast, "alias": "d"}])
    assert "DECIMAL(38, 10)" in render_plan(plan, "mysql")
    assert "DECIMAL(38, 10)" in render_plan(plan, "duckdb")
    assert "AS REAL" in render_plan(plan, "sqlite")
    conn = duckdb.connect()
    conn.execute("CREATE TABLE t (a INT)")
    conn.execute("INSERT INTO t VALUES (1)")
    assert float(conn.execute(render_plan(plan, "duckdb")).fetchone()[0]) == 2.75


def test_sqlite_quarter_is_integer_arithmetic_on_the_month():
    extract = {"kind": "extract", "part": "quarter", "expr": _col("d")}
    plan = _one_table([{"expr": extract, "alias": "q"}], order_by=[{"expr": _col("d")}])
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (d DATE)")
    conn.executemany(
        "INSERT INTO t VALUES (?)",
        [("2024-01-31",), ("2024-03-01",), ("2024-04-01",), ("2024-12-31",)],
    )
    sql = render_plan(plan, "sqlite")
    assert "EXTRACT" not in sql and "STRFTIME('%m'" in sql
    assert conn.execute(sql).fetchall() == [(1,), (1,), (2,), (4,)]


def test_explicit_date_cast_on_sqlite_stays_a_date_string():
    cast = {"kind": "cast", "to": "date", "expr": {"kind": "literal", "value": "2024-03-01"}}
    plan = _one_table([{"expr": cast, "alias": "d"}])
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (a INT)")
    conn.execute("INSERT INTO t VALUES (1)")
    # a plain CAST(... AS DATE) has NUMERIC affinity in SQLite and would give 2024
    assert conn.execute(render_plan(plan, "sqlite")).fetchall() == [("2024-03-01",)]


def test_postgres_round_of_a_double_is_cast_to_numeric():
    rnd = {
        "kind": "function",
        "name": "round",
        "args": [_col("x"), {"kind": "literal", "value": 1}],
    }
    assert 'ROUND(CAST("t"."x" AS DECIMAL), 1)' in render_plan(
        _one_table([{"expr": rnd}]), "postgres"
    )
    one_arg = {"kind": "function", "name": "round", "args": [_col("x")]}
    assert 'ROUND("t"."x")' in render_plan(_one_table([{"expr": one_arg}]), "postgres")


def test_other_dialects_render_through_sqlglot():
    plan = _one_table(
        [{"expr": _col("a")}],
        where={"kind": "like", "expr": _col("a"), "pattern": "x%", "case_insensitive": True},
        order_by=[{"expr": _col("a"), "direction": "desc"}],
        limit=5,
    )
    tsql = render_plan(plan, "mssql")
    assert "TOP 5" in tsql and "[t]" in tsql and "LIKE" in tsql
    assert "ILIKE" in render_plan(plan, "snowflake")
