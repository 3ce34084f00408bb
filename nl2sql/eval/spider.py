"""Spider-format benchmark material: questions, database files and the gold results.

A question file is a JSON list of objects with `db_id`, `question` and `query` (the gold SQL,
SQLite); `id` and `hardness` are optional (the position and Spider's hardness rules computed from
the gold query stand in), and `query_alternatives` lists other accepted gold queries (a prediction
matching any of them is correct). Each database is one SQLite file at `<databases>/<db_id>/<db_id>.sqlite`
(Spider's layout) or one DuckDB file at `<databases>/<db_id>/<db_id>.duckdb`; a gold query is
written in its database's SQL.

The harness does not read Spider's `tables.json`: the engine links against the SchemaSnapshot
the SQLite adapter introspects (table and column names, declared foreign keys, sampled values),
exactly what an analyst's own database gives it. On the Spider databases the schema file's
readable names are the identifiers split into words, which the engine already does.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from nl2sql.eval.hardness import hardness_of

#: A DuckDB gold result is read through the (capped) adapter: a cap far above any gold result.
GOLD_ROW_CAP = 1_000_000


class BenchQuestion(BaseModel):
    """One benchmark question."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str
    db_id: str
    question: str
    query: str
    hardness: str
    alternatives: tuple[str, ...] = ()  # other accepted gold queries


def load_questions(path: str | Path) -> list[BenchQuestion]:
    """The questions of a Spider-format JSON file (ValueError when it is not one)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of questions")
    out = []
    for pos, item in enumerate(data):
        missing = [k for k in ("db_id", "question", "query") if not item.get(k)]
        if missing:
            raise ValueError(f"{path}: question {pos} has no {', '.join(missing)}")
        out.append(
            BenchQuestion(
                id=str(item.get("id") or f"q{pos}"),
                db_id=item["db_id"],
                question=item["question"],
                query=item["query"],
                hardness=item.get("hardness") or hardness_of(item["query"]),
                alternatives=tuple(
                    dict.fromkeys(a for a in item.get("query_alternatives") or () if a != item["query"])
                ),
            )
        )
    return out


#: The database files a benchmark folder may hold per db_id, looked for in this order.
DATABASE_SUFFIXES = (".sqlite", ".duckdb")


def database_path(databases: str | Path, db_id: str) -> Path:
    """`<databases>/<db_id>/<db_id>.sqlite` or `.duckdb` (FileNotFoundError when neither is there)."""
    stem = Path(databases) / db_id / db_id
    for suffix in DATABASE_SUFFIXES:
        path = stem.with_name(stem.name + suffix)
        if path.is_file():
            return path
    raise FileNotFoundError(f"no database file for {db_id!r} at {stem}.sqlite (or .duckdb)")


def run_gold(path: Path, sql: str, timeout_s: float = 30.0) -> list[tuple[Any, ...]]:
    """Execute a gold query read-only; sqlite3.Error (DuckDB: ResultError) on failure
    or timeout."""
    if path.suffix == ".duckdb":
        return _run_duckdb(path, sql, timeout_s)
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    # Spider databases hold some text that is not valid UTF-8; keep it instead of failing.
    con.text_factory = lambda b: b.decode("utf-8", errors="replace")
    deadline = time.monotonic() + timeout_s
    con.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
    try:
        return [tuple(row) for row in con.execute(sql).fetchall()]
    finally:
        con.close()


def _run_duckdb(path: Path, sql: str, timeout_s: float) -> list[tuple[Any, ...]]:
    """Through the read-only DuckDB adapter: the session of the same file shares its database
    instance, and DuckDB refuses a second open of one file with another configuration."""
    from nl2sql.datasources.duckdb import DuckDBAdapter

    adapter = DuckDBAdapter("gold", path, row_cap=GOLD_ROW_CAP, timeout_s=timeout_s)
    try:
        result = adapter.execute(sql)
    finally:
        adapter.close()
    if result.truncated:
        raise ValueError(f"the gold result has over {GOLD_ROW_CAP:,} rows")
    table = result.table
    return list(zip(*[c.to_pylist() for c in table.columns], strict=True))
