"""Spark at scale on one machine: aggregate questions over a 50-million-row `local[2]` table.

Generates the table in Spark (`spark.range` and column expressions, saved as a parquet table in a
temporary warehouse), opens it as an nl2sql source on the same session, and times, interleaved
on the warm session, `ask()` of each question against the very SQL it ran through `spark.sql`
directly (Arrow result, as the adapter fetches it): medians and the ratio (goal: at most 1.1x).
Then the Python process's memory for a capped `SELECT *` of the whole table through the adapter:
peak RSS growth (resource.getrusage) and tracemalloc's peak, which follow the row cap, not the
table (the JVM's heap is Spark's own and is not counted).

    python benchmarks/spark_scale.py [--rows 50000000] [--rounds 3] [--cap 10000]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from interleave import interleaved, machine, report

import nl2sql

QUESTIONS = (
    "What is the total fare per district?",
    "How many rides are there per district?",
    "What is the average distance per district?",
)
DISTRICTS = ("Harbor", "Uptown", "Riverside", "Old Town", "Airport")


def peak_mib() -> float:
    """The process's peak resident set size so far, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def ride_columns() -> list[str]:
    """The columns of the rides table as Spark SQL expressions over `id` (spark.range)."""
    names = ", ".join(f"'{d}'" for d in DISTRICTS)
    return [
        "id AS ride_id",
        f"element_at(array({names}), CAST(id % {len(DISTRICTS)} AS INT) + 1) AS district",
        "CAST((id * 7919) % 5000 AS DECIMAL(10, 2)) / 100 AS fare",
        "CAST((id * 104729) % 300 AS DOUBLE) / 10 AS distance",
        "date_add(DATE '2023-01-01', CAST(id % 730 AS INT)) AS ride_date",
    ]


def start_session(warehouse: Path) -> Any:
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]").appName("nl2sql-spark-scale")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.warehouse.dir", str(warehouse / "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={warehouse / 'derby'}")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def create_rides(spark: Any, rows: int) -> float:
    """Create (and analyze) bench.rides with `rows` rows; return the seconds it took."""
    started = time.perf_counter()
    spark.sql("CREATE DATABASE bench")
    frame = spark.range(rows, numPartitions=8).selectExpr(*ride_columns())
    frame.write.format("parquet").saveAsTable("bench.rides")
    spark.sql("ANALYZE TABLE bench.rides COMPUTE STATISTICS")
    spark.catalog.setCurrentDatabase("bench")  # the direct runs name `rides` as ask() does
    return time.perf_counter() - started


def ask_sql(session: Any, question: str) -> str:
    """The one Spark SQL statement `ask()` runs for `question`."""
    result = session.ask(question)
    drafts = [o.sql_draft for o in result.sub_queries if o.sql_draft]
    assert result.status == "success" and len(drafts) == 1, (question, result.errors)
    return drafts[0]


def memory(adapter: Any, cap: int) -> None:
    """Python memory for a capped SELECT * of the whole table (after a one-row warm-up)."""
    adapter.execute("SELECT * FROM rides", row_cap=1)
    base = peak_mib()
    tracemalloc.start()
    started = time.perf_counter()
    frame = adapter.execute("SELECT * FROM rides", row_cap=cap)
    elapsed = time.perf_counter() - started
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    after = peak_mib()
    print(f"\nSELECT * of the whole table, row cap {cap:,}: {frame.row_count:,} rows kept, "
          f"truncated={frame.truncated}, {elapsed:.2f} s, Arrow table "
          f"{frame.table.nbytes / 2**20:.1f} MiB")
    print(f"  peak RSS {base:.0f} MiB before, {after:.0f} MiB after (+{after - base:.0f} MiB); "
          f"tracemalloc peak {traced_peak / 2**20:.1f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cap", type=int, default=10_000)
    args = parser.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory(prefix="nl2sql-spark-") as tmp:
        spark = start_session(Path(tmp))
        print(f"generating {args.rows:,} rows in Spark ... {create_rides(spark, args.rows):.1f} s")
        source = {"url": "local[2]?database=bench", "description": "Taxi rides by district"}
        session = nl2sql.connect(sources={"rides": source}, settings={
            "project_dir": str(Path(tmp) / "project"), "pipeline_timeout_s": 900,
            "statement_timeout_s": 600})
        try:
            started = time.perf_counter()
            rides = session.schema("rides").table("rides")
            print(f"introspection: {time.perf_counter() - started:.1f} s "
                  f"(catalog row count {rides.row_count:,}, no scan)")
            started = time.perf_counter()
            sqls = {q: ask_sql(session, q) for q in QUESTIONS}
            print(f"first ask() of each question: {time.perf_counter() - started:.1f} s "
                  f"for {len(QUESTIONS)}")
            for question, sql in sqls.items():
                print(f"\n{question}\n  {sql}")
                candidates = {"ask()": lambda q=question: session.ask(q),
                              "spark.sql, same SQL": lambda s=sql: spark.sql(s).toArrow()}
                medians = interleaved(candidates, args.rounds)
                report(f"{question!r} over {args.rows:,} rows", medians, "ask()")
            memory(session.context.datasources["rides"], args.cap)
        finally:
            session.close()
            spark.stop()


if __name__ == "__main__":
    main()
