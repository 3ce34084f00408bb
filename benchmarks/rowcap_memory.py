"""Row-cap memory: `SELECT *` of a 10-million-row PostgreSQL table through the adapter, capped.

Creates the table with generate_series in a schema of its own (dropped afterwards), then runs
`SELECT * FROM big` through `SQLAlchemyAdapter.execute(row_cap=10_000)` and reports the process's
peak RSS (resource.getrusage) against the baseline taken just before (after a one-row warm-up,
so imports and type loaders are not counted), with the time it took.
For contrast it then reads the first 1,000,000 rows the naive way (a client-side cursor and
fetchall, as a plain DB-API loop would) and reports that peak too.

    python benchmarks/rowcap_memory.py [--rows 10000000] [--cap 10000]
"""

from __future__ import annotations

import argparse
import os
import resource
import time
import uuid

import sqlalchemy as sa

from nl2sql.datasources.sqlalchemy import SQLAlchemyAdapter

DEFAULT_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def peak_mib() -> float:
    """The process's peak resident set size so far, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_mib() -> float:
    """The process's resident set size now, in MiB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def create_table(engine: sa.Engine, schema: str, rows: int) -> float:
    """Create and analyze schema.big with `rows` rows; return the seconds it took."""
    quote = engine.dialect.identifier_preparer.quote
    started = time.perf_counter()
    with engine.begin() as conn:
        conn.exec_driver_sql(f"CREATE SCHEMA {quote(schema)}")
        conn.execute(
            sa.text(
                f"CREATE TABLE {quote(schema)}.big AS SELECT g AS id, g * 0.25 AS amount, "
                "'item ' || (g %% 1000) AS label, DATE '2020-01-01' + (g %% 1000) AS day "
                "FROM generate_series(1, :n) AS g".replace("%%", "%")
            ),
            {"n": rows},
        )
        conn.exec_driver_sql(f"ANALYZE {quote(schema)}.big")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--cap", type=int, default=10_000)
    parser.add_argument("--naive-rows", type=int, default=1_000_000)
    args = parser.parse_args()
    url = sa.engine.make_url(os.environ.get("NL2SQL_TEST_POSTGRES_URL", DEFAULT_URL))
    schema = f"nl2sql_mem_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(url, poolclass=sa.NullPool)
    try:
        print(f"creating {args.rows:,} rows ... {create_table(admin, schema, args.rows):.1f} s")
        scoped = url.update_query_dict({"options": f"-csearch_path={schema}"})
        adapter = SQLAlchemyAdapter("big", scoped, timeout_s=120)
        snapshot_rows = adapter.fetch_schema().table("big").row_count
        # Warm up on one row so the baseline already holds the imports and type loaders.
        adapter.execute("SELECT * FROM big", row_cap=1)
        base_peak, base_now = peak_mib(), current_mib()
        started = time.perf_counter()
        frame = adapter.execute("SELECT * FROM big", row_cap=args.cap)
        elapsed = time.perf_counter() - started
        after_peak = peak_mib()
        adapter.close()
        print(f"catalog row estimate: {snapshot_rows:,} (no scan)")
        print(f"adapter: {frame.row_count:,} rows kept, truncated={frame.truncated}, "
              f"{elapsed:.2f} s")  # fmt: skip
        print(f"  RSS baseline {base_now:.0f} MiB (peak so far {base_peak:.0f} MiB); "
              f"peak while answering {after_peak:.0f} MiB (+{after_peak - base_peak:.0f} MiB)")  # fmt: skip
        naive(admin, schema, args.naive_rows)
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(
                f"DROP SCHEMA IF EXISTS {admin.dialect.identifier_preparer.quote(schema)} CASCADE"
            )
        admin.dispose()


def naive(engine: sa.Engine, schema: str, rows: int) -> None:
    """The contrast: a client-side cursor buffers the whole result before the first row."""
    before = peak_mib()
    started = time.perf_counter()
    with engine.connect() as conn:
        raw = conn.connection.driver_connection
        with raw.cursor() as cur:
            cur.execute(
                f"SELECT * FROM {engine.dialect.identifier_preparer.quote(schema)}.big LIMIT {int(rows)}"
            )
            fetched = len(cur.fetchall())
    after = peak_mib()
    print(f"naive client cursor + fetchall of {fetched:,} rows: {time.perf_counter() - started:.2f} s, "
          f"peak {after:.0f} MiB (+{after - before:.0f} MiB)")  # fmt: skip


if __name__ == "__main__":
    main()
