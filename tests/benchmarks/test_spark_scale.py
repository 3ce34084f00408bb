"""The Spark benchmark's generated table (the 50-million-row run itself is `benchmarks/
spark_scale.py`): a few rows of it in the test run's Spark session hold what its questions ask."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from .conftest import load_benchmark


@pytest.fixture(scope="module")
def spark_scale():
    return load_benchmark("spark_scale")


def test_the_generated_rides_have_plain_columns_and_every_district(spark_scale, spark_session: Any):
    rows = spark_session.range(1000).selectExpr(*spark_scale.ride_columns()).collect()
    assert list(rows[0].asDict()) == ["ride_id", "district", "fare", "distance", "ride_date"]
    assert {r.district for r in rows} == set(spark_scale.DISTRICTS)
    assert all(Decimal(0) <= r.fare < Decimal(50) and 0 <= r.distance < 30 for r in rows)
    assert len({r.ride_date for r in rows}) > 300  # two years of dates, not one day
    assert [r.ride_id for r in rows] == list(range(1000))
