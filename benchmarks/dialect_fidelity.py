"""Dialect fidelity: Spider's gold SQLite queries, transpiled by sqlglot, on PostgreSQL and MariaDB.

Loads the Spider dev databases into both servers (see `spider_servers.py`), runs each gold
query on SQLite (the reference) and its sqlglot transpilation on each server through nl2sql's
read-only adapter, and compares the results with the benchmark's metric: multiset of rows, order
only when the gold query has a top-level ORDER BY, column names ignored, numbers equal within a
relative 1e-6. Two columns per engine: `raw` is sqlglot alone; `prepared` first applies what is
ours to fix in hand-written SQLite queries (names resolved case-insensitively, a double-quoted
word that names no column read as a string as SQLite does). Prints the table and every
disagreement of the prepared run, grouped by error, for the closing note.

    python benchmarks/dialect_fidelity.py  # servers: NL2SQL_TEST_POSTGRES_URL / _MYSQL_URL

The Spider dev set is read from `../shared/benchmarks/spider_dev` beside the clone (not part of
the repository); without it the script stops with one line saying so.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sqlite3
import sys
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spider_servers import loaded, read_tables  # noqa: E402

from nl2sql.datasources.base import ResultError  # noqa: E402
from nl2sql.datasources.sqlalchemy import SQLAlchemyAdapter  # noqa: E402

_NUMBER = re.compile(r"-?(0|[1-9]\d*)(\.\d+)?")
SPIDER = Path(__file__).resolve().parents[1] / ".." / "shared" / "benchmarks" / "spider_dev"
#: sqlglot dialect -> (environment variable, default URL: the local test servers `.ci/run` uses).
ENGINES = {
    "postgres": ("NL2SQL_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"),
    "mysql": ("NL2SQL_TEST_MYSQL_URL", "mysql+pymysql://root@127.0.0.1:3306/test"),
}


def prepare(sql: str, names: set[str]) -> exp.Expression:
    """The gold query as SQLite reads it: DQS strings as literals, names in lower case."""
    tree = sqlglot.parse_one(sql, read="sqlite")
    for column in list(tree.find_all(exp.Column)):
        ident = column.this
        if (
            isinstance(ident, exp.Identifier)
            and ident.quoted
            and not column.table
            and ident.name.lower() not in names
        ):
            column.replace(exp.Literal.string(ident.name))
    return normalize_identifiers(tree, dialect="sqlite")


def transpile(sql: str, dialect: str, names: set[str] | None) -> str:
    """sqlglot's rendering of a SQLite query for `dialect` (prepared first when names given)."""
    if names is None:
        return sqlglot.transpile(sql, read="sqlite", write=dialect)[0]
    return prepare(sql, names).sql(dialect)


def ordered(sql: str) -> bool:
    """Whether the gold query's outermost query has ORDER BY (row order then matters)."""
    return bool(sqlglot.parse_one(sql, read="sqlite").args.get("order"))


def canonical(value: Any) -> Any:
    """A value comparable across engines: numbers (and text that is a plain number, which the
    loader stores as a number) as floats, the rest as text."""
    if value is None:
        return None
    if isinstance(value, bool | int | float | Decimal):
        return float(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    text = str(value)
    return float(text) if _NUMBER.fullmatch(text) else text


def same_value(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)
    return a == b


def _sort_key(row: tuple) -> tuple:
    """Orders rows of mixed None / number / text values."""
    return tuple((v is None, type(v).__name__, v if v is not None else 0) for v in row)


def same_rows(gold: Sequence[tuple], got: Sequence[tuple], keep_order: bool) -> bool:
    """The benchmark's metric over canonical rows."""
    gold = [tuple(map(canonical, r)) for r in gold]
    got = [tuple(map(canonical, r)) for r in got]
    if len(gold) != len(got):
        return False
    if not keep_order:
        try:
            gold, got = sorted(gold, key=_sort_key), sorted(got, key=_sort_key)
        except TypeError:
            gold, got = sorted(gold, key=repr), sorted(got, key=repr)
    return all(
        len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
        for a, b in zip(gold, got, strict=True)
    )


def run_engine(dialect: str, urls: dict, questions: list[dict], names: dict[str, set[str]]) -> dict:
    """Agreement counts (raw and prepared) and the prepared run's disagreements."""
    adapters = {
        db: SQLAlchemyAdapter(db, url, row_cap=100_000, timeout_s=30) for db, url in urls.items()
    }
    stats = {"raw": 0, "prepared": 0, "total": 0, "empty_gold": 0}
    misses: list[dict] = []
    try:
        for q in questions:
            gold = _sqlite_rows(q)
            stats["total"] += 1
            stats["empty_gold"] += not gold
            for mode in ("raw", "prepared"):
                sql = transpile(
                    q["query"], dialect, names[q["db_id"]] if mode == "prepared" else None
                )
                outcome = _server_rows(adapters[q["db_id"]], sql)
                agree = not isinstance(outcome, str) and same_rows(
                    gold, outcome, ordered(q["query"])
                )
                stats[mode] += agree
                if mode == "prepared" and not agree:
                    misses.append({"id": q["id"], "gold": q["query"], "sql": sql,
                                   "error": outcome if isinstance(outcome, str) else "different rows"})  # fmt: skip
    finally:
        for adapter in adapters.values():
            adapter.close()
    return {**stats, "misses": misses}


def _sqlite_rows(q: dict) -> list[tuple]:
    path = SPIDER / "database" / q["db_id"] / f"{q['db_id']}.sqlite"
    con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return con.execute(q["query"]).fetchall()
    finally:
        con.close()


def _server_rows(adapter: SQLAlchemyAdapter, sql: str) -> list[tuple] | str:
    try:
        table = adapter.execute(sql).table
    except ResultError as exc:
        return f"{exc.kind}: {exc.safe_message}"
    columns = [c.to_pylist() for c in table.columns]
    return list(zip(*columns, strict=True)) if columns else []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write every disagreement as JSON here")
    parser.add_argument("--limit", type=int, help="only the first N questions")
    args = parser.parse_args()
    if not (SPIDER / "questions.json").is_file():
        sys.exit("dialect_fidelity: needs ../shared/benchmarks/spider_dev beside the clone")
    questions = json.loads((SPIDER / "questions.json").read_text(encoding="utf-8"))[: args.limit]
    files = {
        db: SPIDER / "database" / db / f"{db}.sqlite"
        for db in sorted({q["db_id"] for q in questions})
    }
    names = {db: _names(path) for db, path in files.items()}
    report = {}
    for dialect, (variable, default) in ENGINES.items():
        with loaded(os.environ.get(variable, default), files) as urls:
            report[dialect] = run_engine(dialect, urls, questions, names)
    print(
        f"{'engine':<10}{'raw sqlglot':>14}{'prepared':>12}{'of':>6}   (gold empty: {report['postgres']['empty_gold']})"
    )
    for dialect, r in report.items():
        raw, prep = 100 * r["raw"] / r["total"], 100 * r["prepared"] / r["total"]
        print(f"{dialect:<10}{raw:>13.1f}%{prep:>11.1f}%{r['total']:>6}")
    for dialect, r in report.items():
        print(f"\n{dialect}: {len(r['misses'])} disagreements after preparation")
        for error, n in Counter(m["error"].split(":")[0] for m in r["misses"]).most_common():
            print(f"  {n:>3} {error}")
        for m in r["misses"]:
            print(
                f"  - {m['id']}: {m['error'][:110]}\n      gold: {m['gold'][:150]}\n      sent: {m['sql'][:150]}"
            )
    if args.out:
        args.out.write_text(json.dumps(report, indent=1, default=str), encoding="utf-8")


def _names(path: Path) -> set[str]:
    tables = read_tables(path)
    return {t.lower() for t in tables} | {c.name.lower() for cols in tables.values() for c in cols}


if __name__ == "__main__":
    main()
