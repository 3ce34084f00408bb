"""Push-down on Spark: a two-table question runs in Spark as one statement; a question across
Spark and PostgreSQL combines locally in DuckDB, within `combine_max_rows`, and is refused above it.

A small depot ledger (parcels and claims, each with a depot) lives in a Spark database of the
test's own in the test run's `local[2]` session; the claims are also in a PostgreSQL schema of
the test's own. Answers are checked against `spark.sql` run directly and against the rows
themselves.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import nl2sql
from nl2sql.decomposition import (
    CombineGroup,
    CombineInput,
    DecomposerResponse,
    JoinKey,
    SubQuery,
    sub_query_id,
)
from nl2sql.errors import ErrorCode

from ..datasources.conformance.servers import insert_rows, run_all, scratch, spark_database

DEPOTS = ("Harbor", "Mill", "Quarry", "Ridge")
PARCELS = [(i, DEPOTS[i % 3], 2 + i) for i in range(1, 21)]  # no parcels from Ridge
CLAIMS = [(i, DEPOTS[(i * 3) % 4], "open" if i % 2 else "closed") for i in range(1, 12)]
SCHEMAS = {"parcels": "parcel_id INT, depot STRING, weight INT",
           "claims": "claim_id INT, depot STRING, status STRING"}
COMPARE = "For each depot, compare the number of parcels with the number of claims"
PER_DEPOT = ("number of parcels per depot", "number of claims per depot")


@pytest.fixture(scope="module")
def ledger(spark_session: Any) -> Iterator[tuple[Any, str]]:
    """(the test run's Spark session, `local[2]?database=…` of the ledger's database)."""
    with spark_database(spark_session, {"parcels": PARCELS, "claims": CLAIMS}, SCHEMAS) as database:
        yield spark_session, f"local[2]?database={database}"


@pytest.fixture(scope="module")
def postgres_claims(postgres_url: str) -> Iterator[str]:
    with scratch(postgres_url) as (engine, url):
        run_all(engine, ["CREATE TABLE claims (claim_id INTEGER PRIMARY KEY, "
                         "depot VARCHAR(20) NOT NULL, status VARCHAR(10) NOT NULL)"])
        insert_rows(engine, "claims", ("claim_id", "depot", "status"), CLAIMS)
        yield url.render_as_string(hide_password=False)


def _rows(frame: pd.DataFrame) -> list[tuple]:
    return sorted(
        tuple(None if pd.isna(v) else (int(v) if isinstance(v, float) and v.is_integer() else v)
              for v in row)
        for row in frame.itertuples(index=False)
    )


def _direct(spark: Any, source: str, sql: str) -> list[tuple]:
    """`sql` run through `spark.sql` itself, in the ledger's database."""
    database = source.split("database=", 1)[1]
    return _rows(spark.sql(sql.format(db=database)).toPandas())


def _said(result) -> str:
    return " ".join(r["content"] for r in result.reasoning)


def _one_spark_statement(result) -> str:
    """The SQL of the run's single statement, after checking the trace says it ran in Spark."""
    assert result.status == "success", [e.one_line() for e in result.errors]
    assert len(result.sub_queries) == 1, _said(result)
    (only,) = result.sub_queries
    assert only.sub_query.pushed_down is not None and len(only.sub_query.pushed_down.parts) == 2
    assert "runs as one query in spark:lake" in _said(result)
    assert "combined locally" not in _said(result)
    (decomposer,) = [r for r in result.reasoning if r["node"] == "decomposer"]
    assert decomposer["runs_in"] == {only.sub_query.id: "spark:lake"}
    (planner,) = [r for r in result.reasoning if r["node"] == "ast_planner"]
    assert planner["runs_in"] == "spark:lake"
    assert len([r for r in result.reasoning if r["node"] == "executor"]) == 1  # one scan
    return str(only.sql_draft)


def test_a_compare_of_two_spark_tables_runs_as_one_spark_query(
    ledger: tuple[Any, str], tmp_path: Path
) -> None:
    spark, source = ledger
    with nl2sql.connect(sources={"lake": source}, settings={"project_dir": tmp_path}) as session:
        result = session.ask(COMPARE)
    sql = _one_spark_statement(result)
    assert "FULL JOIN" in sql.upper() or "FULL OUTER JOIN" in sql.upper()
    expected = _direct(spark, source, """
        SELECT COALESCE(p.depot, c.depot), p.n, c.n, c.n - p.n
        FROM (SELECT depot, COUNT(*) AS n FROM {db}.parcels GROUP BY depot) AS p
        FULL OUTER JOIN (SELECT depot, COUNT(*) AS n FROM {db}.claims GROUP BY depot) AS c
        ON p.depot = c.depot""")
    assert _rows(result.to_pandas()) == expected
    ridge_claims = sum(1 for c in CLAIMS if c[1] == "Ridge")
    assert ("Ridge", None, ridge_claims, None) in expected  # the depot without parcels is kept
    # combined locally instead (two Spark scans), the answer has the same columns and rows
    with nl2sql.connect(sources={"lake": source},
                        settings={"project_dir": tmp_path, "push_down": False}) as session:
        local = session.ask(COMPARE)
    assert local.status == "success" and len(local.sub_queries) == 2
    assert len([r for r in local.reasoning if r["node"] == "executor"]) == 2
    assert list(local.to_pandas().columns) == list(result.to_pandas().columns)
    assert _rows(local.to_pandas()) == expected


@pytest.fixture(scope="module")
def depot_areas(spark_session: Any) -> Iterator[tuple[Any, str]]:
    """Parcels that name their depot by id, and the depots with their area, in another database."""
    depots = [(i + 1, d, "North" if i % 2 else "South") for i, d in enumerate(DEPOTS)]
    parcels = [(p[0], 1 + p[0] % 3, p[2]) for p in PARCELS]
    schemas = {"parcels": "parcel_id INT, depot_id INT, weight INT",
               "depots": "depot_id INT, depot_name STRING, area STRING"}
    with spark_database(spark_session, {"parcels": parcels, "depots": depots}, schemas) as database:
        yield spark_session, f"local[2]?database={database}"


def test_a_count_over_a_join_of_two_spark_tables_is_one_spark_query(
    depot_areas: tuple[Any, str], tmp_path: Path
) -> None:
    spark, source = depot_areas
    with nl2sql.connect(sources={"lake": source}, settings={"project_dir": tmp_path}) as session:
        result = session.ask("number of parcels per area")
    assert result.status == "success", [e.one_line() for e in result.errors]
    (only,) = result.sub_queries
    (decomposer,) = [r for r in result.reasoning if r["node"] == "decomposer"]
    assert decomposer["runs_in"] == {only.sub_query.id: "spark:lake"}
    assert "joined parcels.depot_id = depots.depot_id" in _said(result)
    assert len([r for r in result.reasoning if r["node"] == "executor"]) == 1  # one scan
    assert "JOIN" in str(only.sql_draft).upper()
    expected = _direct(spark, source, """
        SELECT d.area, COUNT(*) FROM {db}.parcels AS p JOIN {db}.depots AS d
        ON p.depot_id = d.depot_id GROUP BY d.area""")
    assert _rows(result.to_pandas()) == expected and len(expected) == 2


class Scripted:
    """A decomposer skill with a fixed answer: the parcels and the claims per depot, one group.
    `sources` names the datasource of each part."""

    def __init__(self, operation: str, sources: tuple[str, str]) -> None:
        self.operation, self.sources = operation, sources

    def decompose(self, request) -> DecomposerResponse:
        subs = [SubQuery(id=sub_query_id(ds, t, i), datasource_id=ds, intent=t)
                for i, (ds, t) in enumerate(zip(self.sources, PER_DEPOT, strict=True))]
        group = CombineGroup(
            group_id="g", operation=self.operation,
            inputs=[CombineInput(subquery_id=s.id, role=r)
                    for s, r in zip(subs, ("parcels", "claims"), strict=True)],
            join_keys=[JoinKey(left="depot", right="depot")],
        )
        return DecomposerResponse(sub_queries=subs, combine_groups=[group], reasoning="scripted")


def test_a_join_of_two_spark_tables_runs_as_one_spark_query(
    ledger: tuple[Any, str], tmp_path: Path
) -> None:
    spark, source = ledger
    with nl2sql.connect(sources={"lake": source}, models={"decomposer": Scripted("join", ("lake", "lake"))},
                        settings={"project_dir": tmp_path}) as session:
        result = session.ask(" and ".join(PER_DEPOT))
    sql = _one_spark_statement(result)
    assert "JOIN" in sql.upper() and "FULL" not in sql.upper()
    expected = _direct(spark, source, """
        SELECT p.depot, p.n, c.n
        FROM (SELECT depot, COUNT(*) AS n FROM {db}.parcels GROUP BY depot) AS p
        JOIN (SELECT depot, COUNT(*) AS n FROM {db}.claims GROUP BY depot) AS c
        ON p.depot = c.depot""")
    assert _rows(result.to_pandas()) == expected and len(expected) == 3


# -- Spark × PostgreSQL: combined locally, within the budget ------------------------------------


def _across(ledger: tuple[Any, str], postgres_claims: str, tmp_path: Path, **settings: object):
    sources = {"lake": ledger[1], "pg": postgres_claims}
    with nl2sql.connect(sources=sources, models={"decomposer": Scripted("compare", ("lake", "pg"))},
                        settings={"project_dir": tmp_path, **settings}) as session:
        return session.ask("parcels and claims per depot")


def test_a_compare_across_spark_and_postgres_combines_locally(
    ledger: tuple[Any, str], postgres_claims: str, tmp_path: Path
) -> None:
    result = _across(ledger, postgres_claims, tmp_path)
    assert result.status == "success", [e.one_line() for e in result.errors]
    assert {o.sub_query.datasource_id for o in result.sub_queries} == {"lake", "pg"}
    assert "compare (combined locally in DuckDB)" in _said(result)
    (decomposer,) = [r for r in result.reasoning if r["node"] == "decomposer"]
    assert sorted(decomposer["runs_in"].values()) == ["local DuckDB", "postgres:pg", "spark:lake"]
    parcels = {d: sum(1 for p in PARCELS if p[1] == d) or None for d in DEPOTS}
    claims = {d: sum(1 for c in CLAIMS if c[1] == d) or None for d in DEPOTS}
    expected = sorted((d, parcels[d], claims[d],
                       None if parcels[d] is None else claims[d] - parcels[d]) for d in DEPOTS)
    assert _rows(result.to_pandas()) == expected


@pytest.mark.parametrize("setting", ["combine_max_rows", "combine_max_bytes"])
def test_a_compare_across_spark_and_postgres_over_the_budget_is_refused(
    setting: str, ledger: tuple[Any, str], postgres_claims: str, tmp_path: Path
) -> None:
    result = _across(ledger, postgres_claims, tmp_path, **{setting: 5})
    assert result.status == "error"
    (refusal,) = [e for e in result.errors if e.error_code == ErrorCode.COMBINE_TOO_LARGE]
    assert "\n" not in refusal.message
    # 3 depots with parcels (Spark) + 4 with claims (PostgreSQL), against a budget of 5
    assert "would combine 7 rows" in refusal.message and setting in refusal.message
    assert refusal.details["rows"] == 7 and refusal.details["bytes"] > 0
