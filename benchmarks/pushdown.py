"""Push-down: a compare on one source run as one query there vs fetched twice and combined locally.

A per-customer compare (orders vs support tickets) returns one row per customer from each part,
so the local combine moves both parts' rows out of the engine and joins them in DuckDB, while the
pushed-down query joins them where they live and returns only the compared rows. Interleaved
`ask()` timings of both (`push_down = true / false`), on DuckDB and, when NL2SQL_TEST_POSTGRES_URL
is set, on PostgreSQL.

    python benchmarks/pushdown.py [--customers 50000] [--rounds 7]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
from interleave import interleaved, machine, report

import nl2sql

QUESTION = "For each customer, compare the number of orders with the number of support tickets"
DDL = [
    "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, customer_name VARCHAR(40) NOT NULL)",
    "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL "
    "REFERENCES customers (customer_id), amount INTEGER NOT NULL)",
    "CREATE TABLE support_tickets (ticket_id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL "
    "REFERENCES customers (customer_id), priority VARCHAR(10) NOT NULL)",
]


def fill_sql(customers: int) -> list[str]:
    """Deterministic rows: 10 orders and 4 tickets per customer on average, spread unevenly."""
    return [
        f"INSERT INTO customers SELECT i, 'Customer ' || i FROM generate_series(1, {customers}) AS g(i)",
        f"INSERT INTO orders SELECT i, 1 + mod(CAST(i AS BIGINT) * 7919, {customers}), mod(i, 100) "
        f"FROM generate_series(1, {customers * 10}) AS g(i)",
        f"INSERT INTO support_tickets SELECT i, 1 + mod(CAST(i AS BIGINT) * 104729, {customers}), "
        f"CASE WHEN mod(i, 3) = 0 THEN 'high' ELSE 'low' END FROM generate_series(1, {customers * 4}) AS g(i)",
    ]


def duckdb_source(folder: Path, customers: int) -> str:
    path = folder / "shop.duckdb"
    con = duckdb.connect(str(path))
    for statement in [*DDL, *fill_sql(customers)]:
        con.execute(statement)
    con.close()
    return f"duckdb:///{path}"


@contextmanager
def postgres_source(customers: int) -> Iterator[str | None]:
    url = os.environ.get("NL2SQL_TEST_POSTGRES_URL")
    if not url:
        yield None
        return
    import sqlalchemy as sa

    schema = f"bench_pushdown_{os.getpid()}"
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    with engine.begin() as conn:
        conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
        conn.exec_driver_sql(f"SET search_path = {schema}")
        for statement in [*DDL, *fill_sql(customers)]:
            conn.exec_driver_sql(statement)
        conn.exec_driver_sql("ANALYZE")
    try:
        yield str(sa.make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
                  .render_as_string(hide_password=False))
    finally:
        with engine.begin() as conn:
            conn.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")


def compare(name: str, url: str, folder: Path, customers: int, rounds: int) -> None:
    settings = {"row_cap": customers + 1, "pipeline_timeout_s": 600, "artifact_retention": 10}
    sessions = {
        mode: nl2sql.connect(sources={"shop": url}, settings={
            **settings, "project_dir": folder / f"{name}-{mode}", "push_down": mode == "pushed"})
        for mode in ("pushed", "local")
    }
    try:
        first = {mode: s.ask(QUESTION) for mode, s in sessions.items()}  # warm: snapshots, models
        for mode, result in first.items():
            assert result.status == "success", (mode, [e.one_line() for e in result.errors])
        pushed, local = first["pushed"], first["local"]
        assert len(pushed.sub_queries) == 1 and len(local.sub_queries) == 2
        assert sorted(map(tuple, pushed.to_pandas().fillna(-1).values.tolist())) == sorted(
            map(tuple, local.to_pandas().fillna(-1).values.tolist()))
        moved = {m: sum(o.artifact.row_count for o in r.sub_queries if o.artifact) for m, r in first.items()}
        print(f"{name}: rows fetched from the engine: pushed {moved['pushed']:,}, local {moved['local']:,}")
        medians = interleaved({m: (lambda s=s: s.ask(QUESTION)) for m, s in sessions.items()}, rounds)
        report(f"{name}: ask() of a per-customer compare ({customers:,} customers)", medians, "pushed")
    finally:
        for s in sessions.values():
            s.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--customers", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        compare("duckdb", duckdb_source(folder, args.customers), folder, args.customers, args.rounds)
        with postgres_source(args.customers) as url:
            if url is not None:
                compare("postgres", url, folder, args.customers, args.rounds)


if __name__ == "__main__":
    main()
