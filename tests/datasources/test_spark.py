"""What only the Spark source does: its locations, its session checks, its catalog (partition
columns, statistics), refusing Spark's own statements, and stopping jobs on timeout and cancel."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from nl2sql.context import CancelToken
from nl2sql.datasources.base import ResultError
from nl2sql.datasources.factory import open_datasource
from nl2sql.datasources.locations import spark_location
from nl2sql.datasources.spark import SparkAdapter
from nl2sql.datasources.spark_catalog import PARTITION_NOTE
from nl2sql.errors import ConfigError

from .conformance.servers import spark_database, spark_load_table

# Mixed-case names and a partitioned table: a catalog unlike the shop's.
SCHEMAS = {
    "FlightLegs": "LegId INT, Carrier STRING, Minutes INT, FlownOn DATE",
    "carrier_names": "Carrier STRING, FullName STRING",
}
CARRIERS = ["North Air"] * 5 + ["Blue Wing"] * 3 + ["Pacifica"]
#: Runs for minutes; interruptible between the rows of the large table it scans (`ticks`), the
#: analyzed small tables being the broadcast sides.
LONG_CROSS_JOIN = "SELECT COUNT(*) AS n FROM {load} AS t, " + ", ".join(
    f"carrier_names AS c{i}" for i in range(8))


@pytest.fixture(scope="module")
def fleet(spark_session: Any) -> Iterator[tuple[Any, str, str]]:
    """(the test run's session, a database with a partitioned table and a plain one, a large
    table elsewhere for queries that must run long)."""
    from datetime import date

    legs = [(i, CARRIERS[i % len(CARRIERS)], 30 + i, date(2024, 1 + i % 3, 1)) for i in range(90)]
    names = [(c, f"{c} Airlines") for c in sorted(set(CARRIERS))]
    with spark_database(spark_session, {"carrier_names": names}, SCHEMAS) as database:
        frame = spark_session.createDataFrame(legs, SCHEMAS["FlightLegs"])
        frame.write.format("parquet").partitionBy("Carrier").saveAsTable(f"{database}.FlightLegs")
        with spark_load_table(spark_session, 1_000_000) as load:
            yield spark_session, database, load


@pytest.fixture
def adapter(fleet: tuple[Any, str]) -> Iterator[SparkAdapter]:
    spark, database, _ = fleet
    opened = SparkAdapter("fleet", spark.sparkContext.master, database=database)
    yield opened
    opened.close()


def _active_jobs(spark: Any, wait_s: float = 10.0) -> list[int]:
    """The Spark jobs still running once `wait_s` has passed (or earlier, once none run)."""
    deadline = time.monotonic() + wait_s
    while True:
        jobs = list(spark.sparkContext.statusTracker().getActiveJobsIds())
        if not jobs or time.monotonic() > deadline:
            return jobs
        time.sleep(0.1)


def test_locations_name_the_master_and_the_database():
    assert spark_location("s", "local[2]") == ("local[2]", None)
    assert spark_location("s", "local[*]?database=Sales_2024") == ("local[*]", "Sales_2024")
    assert spark_location("s", "spark://10.0.0.5:7077") == ("spark://10.0.0.5:7077", None)
    assert spark_location("s", "sc://h:15002?database=x") == ("sc://h:15002", "x")
    assert spark_location("s", "locally.db") is None
    with pytest.raises(ConfigError, match=r"\?database=NAME"):
        spark_location("s", "local[2]?db=x")


def test_a_missing_java_runtime_is_one_clear_line(monkeypatch: pytest.MonkeyPatch, tmp_path):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))  # holds no bin/java
    with pytest.raises(ConfigError) as info:
        open_datasource("s", "local[3]")
    message = str(info.value)
    assert "Java runtime" in message and "openjdk-17-jre-headless" in message
    assert "\n" not in message


@pytest.mark.parametrize("url", ["spark://127.0.0.1:9", "sc://127.0.0.1:9"])
def test_a_cluster_that_does_not_answer_is_one_clear_line(url: str):
    started = time.monotonic()
    with pytest.raises(ConfigError, match="answers at 127.0.0.1:9") as info:
        open_datasource("s", url)
    assert "\n" not in str(info.value) and time.monotonic() - started < 10


def test_a_second_master_in_the_same_process_is_refused(spark_session: Any):
    with pytest.raises(ConfigError, match="one Spark context"):
        SparkAdapter("other", "local[1]")


def test_an_unknown_database_is_refused(spark_session: Any):
    with pytest.raises(ConfigError, match="no database 'no_such_db'"):
        open_datasource("s", f"{spark_session.sparkContext.master}?database=no_such_db")


def test_the_catalog_names_partition_columns_and_mixed_case_names(adapter: SparkAdapter):
    snapshot = adapter.fetch_schema()
    legs = snapshot.table("FlightLegs")
    assert legs.column("Carrier").description == PARTITION_NOTE
    assert legs.column("Minutes").description is None and legs.column("Minutes").is_numeric
    assert legs.column("FlownOn").is_temporal
    assert legs.row_count is None  # never analyzed: no statistics, and no count by scanning
    assert legs.column("Carrier").samples[:2] == ["North Air", "Blue Wing"]
    assert snapshot.table("carrier_names").row_count == 3


def test_the_fingerprint_follows_the_catalog(fleet: tuple[Any, str, str], adapter: SparkAdapter):
    spark, database, _ = fleet
    before = adapter.catalog_fingerprint()
    assert adapter.catalog_fingerprint() == before
    spark.sql(f"CREATE VIEW {database}.long_legs AS SELECT * FROM {database}.FlightLegs "
              "WHERE Minutes > 60")
    try:
        assert adapter.catalog_fingerprint() != before
    finally:
        spark.sql(f"DROP VIEW {database}.long_legs")


@pytest.mark.parametrize("sql", [
    "CACHE TABLE FlightLegs",
    "UNCACHE TABLE FlightLegs",
    "SET spark.sql.ansi.enabled = false",
    "ADD JAR /tmp/intruder.jar",
    "REFRESH TABLE FlightLegs",
    "INSERT OVERWRITE TABLE carrier_names SELECT * FROM carrier_names",
    "SELECT reflect('java.lang.System', 'exit', 0)",
    "SELECT * FROM parquet.`/tmp`",
])
def test_spark_statements_that_change_or_reach_out_are_refused(
    fleet: tuple[Any, str, str], adapter: SparkAdapter, sql: str
):
    spark, _, _ = fleet
    ansi = spark.conf.get("spark.sql.ansi.enabled")
    with pytest.raises(ResultError) as info:
        adapter.execute(sql, row_cap=5, timeout_s=10)
    assert (info.value.kind, info.value.retryable) == ("read_only", False)
    assert spark.conf.get("spark.sql.ansi.enabled") == ansi
    assert not spark.catalog.isCached(f"{fleet[1]}.FlightLegs")


def test_names_resolve_in_the_source_database(adapter: SparkAdapter):
    frame = adapter.execute(
        "SELECT Carrier, COUNT(*) AS legs FROM FlightLegs GROUP BY Carrier ORDER BY legs DESC",
        row_cap=2, timeout_s=30,
    )
    assert frame.truncated and frame.table.column("Carrier").to_pylist() == ["North Air",
                                                                              "Blue Wing"]


def test_a_timed_out_query_leaves_no_running_job(fleet: tuple[Any, str, str],
                                                 adapter: SparkAdapter):
    spark, _, load = fleet
    started = time.monotonic()
    with pytest.raises(ResultError) as info:
        adapter.execute(LONG_CROSS_JOIN.format(load=load), row_cap=1, timeout_s=1.0)
    assert info.value.kind == "timeout" and time.monotonic() - started < 20
    assert _active_jobs(spark) == []
    # its tasks stopped too: a small query gets both cores at once (it would queue behind them)
    frame = adapter.execute("SELECT COUNT(*) AS n FROM carrier_names", timeout_s=20)
    assert frame.table.to_pylist() == [{"n": 3}]


@dataclass
class _RunContext:
    cancel_token: CancelToken


def test_a_cancelled_run_stops_its_spark_job(fleet: tuple[Any, str, str],
                                             adapter: SparkAdapter):
    """Inside a graph run, cancelling the run's token stops the statement long before its own
    timeout, and no Spark job keeps running."""
    from langgraph.graph import END, START, StateGraph

    spark, _, load = fleet

    def scan(state: dict[str, Any]) -> dict[str, Any]:
        try:
            adapter.execute(LONG_CROSS_JOIN.format(load=load), row_cap=1, timeout_s=120)
        except ResultError as exc:
            return {"outcome": exc.safe_message}
        return {"outcome": "finished"}

    graph = StateGraph(dict, context_schema=_RunContext)
    graph.add_node("scan", scan)
    graph.add_edge(START, "scan")
    graph.add_edge("scan", END)
    token = CancelToken()
    threading.Timer(1.5, token.cancel).start()
    started = time.monotonic()
    result = graph.compile().invoke({"outcome": ""}, context=_RunContext(token))
    assert result["outcome"] == "the run was cancelled and its Spark job was stopped"
    assert time.monotonic() - started < 30
    assert _active_jobs(spark) == []
    frame = adapter.execute("SELECT COUNT(*) AS n FROM carrier_names", timeout_s=20)
    assert frame.table.to_pylist() == [{"n": 3}]
