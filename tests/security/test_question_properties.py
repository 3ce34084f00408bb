"""Property-based tests of the question path (hypothesis, fixed budget, derandomized for CI).

Random questions — SQL fragments, quotes, backslashes, Unicode, control characters and lone
surrogates, very long words, numbers — are asked through a real Session on a small SQLite file
and a small DuckDB file the test makes. Whatever the text: `ask()` returns a result (the only
exception is the documented ValueError for an empty or too-long question), the result
serializes, no run crashes (ORCHESTRATOR_CRASH, UNKNOWN_ERROR), every SQL that ran passes the
guard as one read query, and the database files are byte-for-byte unchanged.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
import sqlglot
import sqlglot.expressions as exp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nl2sql
from nl2sql.errors import ErrorCode
from nl2sql.question import clean_question
from nl2sql.security.sql_guard import check_sql
from nl2sql.security.sql_guard_tree import WRITE_CLASSES

CRASHES = {ErrorCode.ORCHESTRATOR_CRASH, ErrorCode.UNKNOWN_ERROR}
MAX_QUESTION_CHARS = 600  # small, so the too-long refusal is reached and each run stays cheap
FIXED_BUDGET = settings(
    max_examples=80, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

WORDS = [
    "how", "many", "customers", "orders", "per", "city", "total", "amount", "average", "price",
    "products", "category", "order", "items", "quantity", "in", "2024", "top", "5", "by", "count",
    "Lyon", "books", "which", "is", "the", "largest", "show", "all", "between", "and", "?",
]
ATTACKS = [
    "'; DROP TABLE customers; --", "\"; DELETE FROM orders; --", "1=1 OR '1'='1'",
    "UNION SELECT * FROM sqlite_master", "ATTACH 'x.db' AS x", "COPY orders TO '/tmp/x'",
    "PRAGMA writable_schema=1", "@a := 1", "pg_catalog.pg_user", "${HOME}", "{{x}}", "\\x00",
    "-1", "1e309", "0x7f", "99999999999999999999", "NaN", "NULL",
]
#: pieces the engine reads past (the question stays answerable, so SQL runs with them around)
NOISE = [
    "/*", "*/", "\\", "\\'", "'\\", "''", "\"", "`", "%", "_", "\x00", "\x1b[31m", "\r\n", "\t",
    "\udcff", "\ud800", "🙂", "\u202e", "\ufeff",
]
FRAGMENTS = ATTACKS + NOISE + ["сумма", "名前", "é"]
TOKENS = st.one_of(
    st.sampled_from(WORDS),
    st.sampled_from(FRAGMENTS),
    st.integers(-(10**12), 10**12).map(str),
    st.text(st.characters(exclude_categories=()), max_size=12),  # any code point, surrogates too
    st.integers(60, 400).map(lambda n: "w" * n),  # very long words (and too-long questions)
)
#: Questions the offline engine answers on each file; `{}` is where a value goes. A hostile piece
#: goes in the value's place or before/after the question: what a question carries into SQL
#: (literals, names) is where an injection would happen.
ANSWERED = {
    "shop": ["How many customers are in the city {}?", "How many customers are there per city?",
             "How many orders have a total amount greater than {}?"],
    "sales": ["What is the average unit price of products in the {} category?",
              "How many order items have a quantity greater than {}?",
              "What is the total quantity of order items per product category?"],
}
VALUES = {"shop": ["Lyon", "5", "Ada O'Neil", "Bo \\ Li"], "sales": ["books", "5"]}
FILLS = st.one_of(st.sampled_from(FRAGMENTS), st.integers(-(10**6), 10**6).map(str),
                  st.text(st.characters(exclude_categories=()), max_size=8))
AROUND = st.lists(st.sampled_from(FRAGMENTS), max_size=2).map(" ".join)


def _questions(sid: str) -> st.SearchStrategy[tuple[str, str]]:
    """(source, question): answerable questions with hostile text around or inside them, and
    random token soup."""
    template = st.sampled_from(ANSWERED[sid])

    def framed(value: st.SearchStrategy[str], around: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.builds(lambda t, v, before, after: f"{before} {t.format(v)} {after}",
                         template, value, around, around)

    noise = st.lists(st.sampled_from(NOISE), max_size=2).map(" ".join)
    question = st.one_of(
        framed(st.sampled_from(VALUES[sid]), noise),  # answered: SQL runs with the noise around
        framed(st.one_of(st.sampled_from(VALUES[sid]), FILLS), AROUND),
        st.lists(TOKENS, max_size=14).map(" ".join),
    )
    return st.tuples(st.just(sid), question)


CASES = st.sampled_from(sorted(ANSWERED)).flatmap(_questions)


def _make_sqlite(path: Path) -> None:
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, customer_name TEXT, city TEXT);"
        "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER "
        "REFERENCES customers(customer_id), order_date TEXT, total_amount REAL);"
    )
    con.executemany("INSERT INTO customers VALUES (?, ?, ?)",
                    [(1, "Ada O'Neil", "Lyon"), (2, "Bo \\ Li", "Paris"), (3, "Cé", "Lyon")])
    con.executemany("INSERT INTO orders VALUES (?, ?, ?, ?)",
                    [(i, 1 + i % 3, f"2024-0{1 + i % 9}-1{i % 10}", 10.5 * i) for i in range(1, 21)])
    con.commit()
    con.close()


def _make_duckdb(path: Path) -> None:
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE products (product_id INTEGER PRIMARY KEY, product_name TEXT, "
                "category TEXT, unit_price DOUBLE)")
    con.execute("CREATE TABLE order_items (item_id INTEGER PRIMARY KEY, product_id INTEGER "
                "REFERENCES products(product_id), quantity INTEGER)")
    con.executemany("INSERT INTO products VALUES (?, ?, ?, ?)",
                    [(1, "Atlas", "books", 12.0), (2, "Lamp", "home", 30.0), (3, "Pen", "office", 2.5)])
    con.executemany("INSERT INTO order_items VALUES (?, ?, ?)",
                    [(i, 1 + i % 3, i % 7) for i in range(1, 31)])
    con.close()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def sessions(tmp_path_factory) -> Iterator[dict[str, tuple[object, Path]]]:
    """One Session per database file (one source each), opened once for the module."""
    folder = tmp_path_factory.mktemp("question_properties")
    files = {"shop": folder / "shop.sqlite", "sales": folder / "sales.duckdb"}
    _make_sqlite(files["shop"])
    _make_duckdb(files["sales"])
    opened = {
        sid: nl2sql.connect(sources={sid: str(path)}, models="offline",
                            settings={"project_dir": folder / f"project_{sid}",
                                      "max_question_chars": MAX_QUESTION_CHARS})
        for sid, path in files.items()
    }
    try:
        yield {sid: (opened[sid], files[sid]) for sid in files}
    finally:
        for session in opened.values():
            session.close()


def _refusal_expected(question: str) -> bool:
    text = clean_question(question).strip()
    return not text or len(text) > MAX_QUESTION_CHARS


def _assert_one_read_query(sql: str, dialect: str) -> None:
    statements = [s for s in sqlglot.parse(sql, read=dialect) if s is not None]
    assert len(statements) == 1, sql
    root = statements[0].unnest() if isinstance(statements[0], exp.Subquery) else statements[0]
    assert isinstance(root, (exp.Select, exp.SetOperation)), sql
    assert not any(type(node) in WRITE_CLASSES for node in root.walk()), sql


def _assert_sound(session, sid: str, question: str) -> None:
    try:
        result = session.ask(question, timeout_s=60)
    except ValueError as exc:
        assert _refusal_expected(question), f"unexpected ValueError for {question!r}: {exc}"
        assert "\n" not in str(exc)
        return
    assert not _refusal_expected(question), f"{question!r} should have been refused"
    assert json.loads(result.to_json())["status"] == result.status
    codes = {e.error_code for e in result.errors}
    assert not codes & CRASHES, [e.one_line() for e in result.errors]
    assert all("\n" not in e.one_line() for e in result.errors)
    keys = [t.key for t in session.context.schemas.get(sid).tables]
    for output in result.sub_queries:
        dialect = output.dialect or session.context.datasources[sid].dialect
        if output.artifact is not None:  # it ran: the guard let it through, as one read query
            assert output.sql_draft, output
            verdict = check_sql(output.sql_draft, dialect, allowed_tables=keys)
            assert verdict.allowed, (output.sql_draft, verdict.message)
        for draft in output.sql_drafts:  # whatever was generated, the guard never lets a write by
            if check_sql(draft.sql, draft.dialect, allowed_tables=keys).allowed:
                _assert_one_read_query(draft.sql, draft.dialect)


@FIXED_BUDGET
@given(case=CASES)
def test_any_question_returns_a_sound_result_and_writes_nothing(sessions, case) -> None:
    sid, question = case
    session, path = sessions[sid]
    before = _digest(path)
    _assert_sound(session, sid, question)
    assert _digest(path) == before, f"{path.name} changed while asking {question!r}"


@pytest.mark.parametrize(("sid", "question"), [
    ("shop", "How many customers are there per city?"),
    ("sales", "What is the total quantity of order items per product category?"),
])
def test_the_property_sessions_answer_plain_questions(sessions, sid, question) -> None:
    """The properties above are not vacuous: these sessions do run SQL on their files."""
    session, path = sessions[sid]
    before = _digest(path)
    result = session.ask(question, timeout_s=60)
    assert result.status == "success", [e.one_line() for e in result.errors]
    assert any(o.artifact is not None for o in result.sub_queries)
    _assert_sound(session, sid, question)
    assert _digest(path) == before
