"""Property-based tests of the SQL guard (hypothesis, fixed budget, derandomized for CI).

Random SQL-ish text and random mutations of accepted queries: `check_sql` never raises, answers
within the time a text at the size limit may take, and allows only what sqlglot itself reads as
one statement with a query at its root and no write anywhere.
"""

from __future__ import annotations

import time

import sqlglot
import sqlglot.expressions as exp
from hypothesis import given, settings
from hypothesis import strategies as st

from nl2sql.security.sql_guard import check_sql
from nl2sql.security.sql_guard_tree import WRITE_CLASSES

DIALECTS = ("duckdb", "sqlite", "postgres", "mysql")
TABLES = ["orders", "customers"]
# Generous on a loaded 2-core machine: a text at the 20,000-byte limit takes about 0.4 s alone.
SLOWEST_S = 20.0
SEEDS = [
    "SELECT id, amount FROM orders WHERE amount > 10 ORDER BY amount DESC LIMIT 5",
    "SELECT c.name, COUNT(*) AS n FROM orders AS o JOIN customers AS c ON c.id = o.customer_id "
    "GROUP BY c.name",
    "WITH t AS (SELECT * FROM orders) SELECT COUNT(*) FROM t",
    "SELECT name FROM customers WHERE id IN (SELECT customer_id FROM orders) UNION SELECT 'x'",
    "SELECT CASE WHEN amount > 1 THEN 'a' ELSE 'b' END FROM orders",
]
PIECES = [
    ";", "--", "/*", "*/", "'", '"', "`", "\\", "@", "@@", ":=", "$1", "?", "(", ")", ",", ".",
    "\n", "\r", "\x00", " ", "DROP TABLE orders", "DELETE FROM orders", "INSERT INTO orders",
    "UPDATE orders SET a = 1", "ATTACH 'x'", "COPY orders TO 'x'", "PRAGMA", "SET x = 1",
    "INTO OUTFILE 'x'", "read_csv('x')", "hr.", "mysql.", "pg_catalog.", "information_schema.",
    "sqlite_master", "UNION SELECT", "WITH x AS (", "SELECT", "FROM", "WHERE", "RETURNING *",
    "FOR UPDATE", "/*!", "E'", "$$", "CALL f()", "LOAD x", "EXECUTE", "VALUES (1)",
]
TOKENS = st.sampled_from(PIECES + ["orders", "customers", "1", "a", "*", "=", "<"])


def _assert_safe(sql: str, dialect: str) -> None:
    started = time.monotonic()
    result = check_sql(sql, dialect, allowed_tables=TABLES)
    assert time.monotonic() - started < SLOWEST_S
    assert result.message and "\n" not in result.message
    if result.allowed:
        statements = [s for s in sqlglot.parse(sql, read=dialect) if s is not None]
        assert len(statements) == 1, sql
        root = statements[0]
        root = root.unnest() if isinstance(root, exp.Subquery) else root
        assert isinstance(root, (exp.Select, exp.SetOperation)), sql
        assert not any(type(n) in WRITE_CLASSES for n in root.walk()), sql


@settings(max_examples=120, deadline=None, derandomize=True)
@given(st.lists(TOKENS, max_size=25).map(" ".join), st.sampled_from(DIALECTS))
def test_random_sqlish_text_is_never_an_unguarded_statement(sql: str, dialect: str) -> None:
    _assert_safe(sql, dialect)


@settings(max_examples=120, deadline=None, derandomize=True)
@given(
    st.sampled_from(SEEDS),
    st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(PIECES)), min_size=1, max_size=4),
    st.sampled_from(DIALECTS),
)
def test_mutated_accepted_queries_are_never_unguarded(seed, edits, dialect) -> None:
    sql = seed
    for at, piece in edits:
        cut = at % (len(sql) + 1)
        sql = sql[:cut] + piece + sql[cut:]
    _assert_safe(sql, dialect)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.text(max_size=200), st.sampled_from(DIALECTS))
def test_arbitrary_unicode_never_crashes_the_guard(sql: str, dialect: str) -> None:
    _assert_safe(sql, dialect)


def test_the_seeds_are_accepted() -> None:
    for seed in SEEDS:
        for dialect in DIALECTS:
            assert check_sql(seed, dialect, allowed_tables=TABLES).allowed, (seed, dialect)
