"""The Spark source through a Spark Connect server (`sc://`): the same adapter, no JVM in the
client; statements are stopped through operation tags instead of job groups."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from nl2sql.datasources.base import ResultError
from nl2sql.datasources.factory import open_datasource
from nl2sql.datasources.spark import SparkAdapter
from nl2sql.datasources.spark_session import is_connect

from .conformance.servers import unique_name

#: Runs for minutes (10^6 x 120^2 rows); interruptible between the batches of the large table
#: it streams (`ticks`). A wider product (one more `readings`) makes each batch of ticks
#: thousands of times longer, so the interrupt is only noticed after minutes.
LONG_CROSS_JOIN = "SELECT COUNT(*) AS n FROM ticks AS t, readings AS a, readings AS b"


@pytest.fixture(scope="module")
def sensors(spark_connect_url: str) -> Iterator[tuple[str, str]]:
    """(the server's URL, a database on it with one analyzed table of sensor readings)."""
    from pyspark.sql.connect.session import SparkSession

    writer = SparkSession.builder.remote(spark_connect_url).create()
    database = unique_name()
    writer.sql(f"CREATE DATABASE {database}")
    writer.sql(
        f"CREATE TABLE {database}.readings USING parquet AS SELECT id AS reading_id, "
        "element_at(array('roof', 'cellar', 'attic'), CAST(id % 3 AS INT) + 1) AS sensor_room, "
        "CAST(id % 40 AS DOUBLE) / 2 AS celsius FROM range(120)"
    )
    writer.sql(f"ANALYZE TABLE {database}.readings COMPUTE STATISTICS")
    writer.sql(f"CREATE TABLE {database}.ticks USING parquet AS SELECT id FROM range(1000000)")
    writer.sql(f"ANALYZE TABLE {database}.ticks COMPUTE STATISTICS")
    try:
        yield spark_connect_url, database
    finally:
        writer.sql(f"DROP DATABASE {database} CASCADE")
        writer.stop()


@pytest.fixture
def adapter(sensors: tuple[str, str]) -> Iterator[SparkAdapter]:
    url, database = sensors
    opened = open_datasource("sensors", f"{url}?database={database}")
    assert isinstance(opened, SparkAdapter) and is_connect(opened.master)
    yield opened
    opened.close()


def test_the_catalog_and_a_capped_query(adapter: SparkAdapter):
    snapshot = adapter.fetch_schema()
    readings = snapshot.table("readings")
    assert snapshot.dialect == "spark" and readings.row_count == 120
    assert [c.name for c in readings.columns] == ["reading_id", "sensor_room", "celsius"]
    assert sorted(readings.column("sensor_room").samples) == ["attic", "cellar", "roof"]
    frame = adapter.execute(
        "SELECT sensor_room, AVG(celsius) AS mean FROM readings GROUP BY sensor_room "
        "ORDER BY sensor_room", row_cap=2, timeout_s=60)
    assert frame.truncated and frame.table.column("sensor_room").to_pylist() == ["attic", "cellar"]


def test_writes_are_refused_before_they_reach_the_server(adapter: SparkAdapter):
    for sql in ("DROP TABLE readings", "CACHE TABLE readings", "SET spark.sql.ansi.enabled = false"):
        with pytest.raises(ResultError) as info:
            adapter.execute(sql, row_cap=1, timeout_s=10)
        assert info.value.kind == "read_only"
    assert adapter.execute("SELECT COUNT(*) AS n FROM readings").table.to_pylist() == [{"n": 120}]


def test_a_slow_query_is_interrupted_by_its_tag(adapter: SparkAdapter, sensors: Any):
    started = time.monotonic()
    with pytest.raises(ResultError) as info:
        adapter.execute(LONG_CROSS_JOIN, row_cap=1, timeout_s=1.0)
    assert info.value.kind == "timeout" and time.monotonic() - started < 30
    # its tasks stopped too: a small query gets the server's cores (it would queue for minutes
    # behind them); a minute's bound, as the server shares two cores with the test run
    frame = adapter.execute("SELECT COUNT(*) AS n FROM readings", timeout_s=60)
    assert frame.table.to_pylist() == [{"n": 120}]


def test_a_closed_source_refuses_to_run(sensors: tuple[str, str]):
    url, database = sensors
    opened = open_datasource("sensors", f"{url}?database={database}")
    opened.close()
    with pytest.raises(ResultError) as info:
        opened.execute("SELECT 1 AS x")
    assert info.value.kind == "connection"
