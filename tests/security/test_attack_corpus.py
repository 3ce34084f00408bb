"""An attack corpus across DuckDB, SQLite, PostgreSQL and MySQL: every case is refused.

`fixtures/attacks.jsonl`, one case a line: the dialect, the SQL, the tables the source may read
(`allowed_tables`, null for none given), and, where it matters, the refusal code expected.
Classes: stacked statements, comment tricks, writes (also inside CTEs), engine statements
(ATTACH, COPY, PRAGMA, LOAD, INTO OUTFILE), file/network/dblink functions, other schemas and
databases, system catalogs, session variables, setting-dependent quoting, oversized text.
`pad_to` grows the SQL with `AND 1 = 1` to that many bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nl2sql.security.sql_guard import check_sql

CASES = [
    json.loads(line)
    for line in (Path(__file__).parent / "fixtures" / "attacks.jsonl").read_text().splitlines()
    if line.strip()
]


def _sql(case: dict) -> str:
    sql = case["sql"]
    pad = " AND 1 = 1"
    if case.get("pad_to"):
        sql += pad * ((case["pad_to"] - len(sql)) // len(pad) + 1)
    return sql


@pytest.mark.parametrize(
    "case", CASES, ids=[f"{c['dialect']}-{c['class']}-{i}" for i, c in enumerate(CASES)]
)
def test_every_attack_is_refused(case: dict) -> None:
    result = check_sql(_sql(case), case["dialect"], allowed_tables=case["allowed_tables"])
    assert not result.allowed, f"{case['dialect']}: allowed {case['sql'][:120]!r}"
    assert result.message and "\n" not in result.message
    if case.get("code"):
        assert result.code == case["code"], result


def test_the_corpus_is_broad() -> None:
    assert len(CASES) >= 150
    assert {c["dialect"] for c in CASES} == {"duckdb", "sqlite", "postgres", "mysql"}
