"""Schema size: introspection and warm `ask()` at 10 / 100 / 400 tables, and snapshot reuse.

A generated SQLite database per size: two tables the question is about (customers, orders) and
filler tables of varied names, each with a text, a number, a date and a foreign key to the one
before (so samples, counts and joins exist at every size). Printed, per size:

- introspection (`fetch_schema()`) vs the catalog fingerprint query alone;
- warm `ask()`, median over interleaved rounds (sizes take turns), and its ratio to 10 tables;
- a second process on the same project folder: whether it introspected or read the snapshot
  back (`SchemaStore.introspected` / `.reused`), and its connect+get time vs the first's.

Run with `make bench` or `python benchmarks/schema_scale.py --repeats 7`.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from interleave import interleaved

import nl2sql

SIZES = (10, 100, 400)
QUESTION = "How many orders were placed in 2024?"
ROWS = 200
_WORDS = ("ledger", "shipment", "warehouse", "supplier", "invoice", "campaign", "ticket",
          "contract", "device", "sensor", "region", "payment", "refund", "review", "session",
          "employee", "project", "budget", "asset", "vendor")


def build(path: Path, tables: int) -> None:
    """A SQLite file with `tables` tables (customers, orders, and fillers)."""
    rnd = random.Random(tables)
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT, city TEXT)")
    con.execute("CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER "
                "REFERENCES customers(customer_id), amount REAL, order_date DATE)")
    con.executemany("INSERT INTO customers VALUES (?, ?, ?)",
                    [(i, f"name {i}", rnd.choice(("Oslo", "Lima", "Pune"))) for i in range(ROWS)])
    con.executemany("INSERT INTO orders VALUES (?, ?, ?, ?)",
                    [(i, rnd.randrange(ROWS), rnd.random() * 100,
                      f"{rnd.choice((2023, 2024))}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}")
                     for i in range(ROWS)])
    previous = "customers"
    for i in range(tables - 2):
        name = f"{_WORDS[i % len(_WORDS)]}_{i:03d}"
        con.execute(f'CREATE TABLE "{name}" (id INTEGER PRIMARY KEY, label TEXT, value REAL, '
                    f'noted_on DATE, parent_id INTEGER REFERENCES "{previous}"(rowid))')
        con.executemany(f'INSERT INTO "{name}" VALUES (?, ?, ?, ?, ?)',
                        [(r, f"{name} {r % 7}", rnd.random(), f"2024-01-{1 + r % 28:02d}", r)
                         for r in range(ROWS)])
        previous = name
    con.commit()
    con.close()


def _median(fn, repeats: int) -> float:
    return interleaved({"it": fn}, repeats)["it"]


_SECOND = """
import sys, time, nl2sql
started = time.perf_counter()
s = nl2sql.connect(config=sys.argv[1])
s.schema("db")
store = s.context.schemas  # an older tree has no counters: -1
print(time.perf_counter() - started, getattr(store, "introspected", -1), getattr(store, "reused", -1))
"""


def _process(config: Path) -> tuple[float, int, int]:
    out = subprocess.run([sys.executable, "-c", _SECOND, str(config)], capture_output=True,
                         text=True, check=True, cwd=config.parent).stdout.split()
    return float(out[0]), int(out[1]), int(out[2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="nl2sql-scale-"))
    try:
        configs = {}
        for n in SIZES:
            folder = work / str(n)
            folder.mkdir()
            build(folder / "db.sqlite", n)
            configs[n] = folder / "nl2sql.toml"
            configs[n].write_text(f'[sources.db]\nurl = "sqlite:///{folder / "db.sqlite"}"\n')
        _report(configs, args.repeats)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _report(configs: dict[int, Path], repeats: int) -> None:
    sessions = {n: nl2sql.connect(config=c) for n, c in configs.items()}
    print(f"schema size, {repeats} rounds (medians; load average {os.getloadavg()[0]:.2f})")
    print(f"  {'tables':>6} {'introspect s':>12} {'catalog q s':>11} {'ratio':>7}")
    next(iter(sessions.values())).context.datasources["db"].fetch_schema()  # lazy imports
    for n, s in sessions.items():
        adapter = s.context.datasources["db"]
        intro = _median(adapter.fetch_schema, max(1, repeats // 2))
        # the cheap catalog query the snapshot's reuse hinges on (an older tree has none: 1 ms)
        catalog = _median(getattr(adapter, "catalog_fingerprint", lambda: time.sleep(0.001)), repeats)
        print(f"  {n:>6} {intro:12.3f} {catalog:11.4f} {intro / catalog:6.0f}x")
    first = {n: s.ask(QUESTION) for n, s in sessions.items()}  # warm: snapshots, indexes
    bad = [n for n, r in first.items() if r.status != "success"]
    if bad:
        raise SystemExit(f"the question failed at {bad} tables")
    warm: dict[int, list[float]] = {n: [] for n in SIZES}
    for _ in range(repeats):
        for n, s in sessions.items():
            started = time.perf_counter()
            s.ask(QUESTION)
            warm[n].append(time.perf_counter() - started)
    base = statistics.median(warm[SIZES[0]])
    print(f"  {'tables':>6} {'warm ask s':>10} {'vs 10':>6}   second process: connect+schema s, introspected, reused")
    for n, s in sessions.items():
        s.close()
        median = statistics.median(warm[n])
        took, introspected, reused = _process(configs[n])
        print(f"  {n:>6} {median:10.3f} {median / base:5.2f}x   {took:.3f} s, {introspected}, {reused}")


if __name__ == "__main__":
    main()
