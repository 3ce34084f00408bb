"""The SQL guard: every SQL text is checked here before it runs (ARCHITECTURE §7).

Exactly one statement, a query at the root, nothing anywhere that writes or changes state, only
allow-listed functions, and only the datasource's own tables. The text is tokenized once with the
dialect's sqlglot tokenizer and parsed from those tokens; lexical tricks that an engine could read
differently from sqlglot (executable or nested comments, ambiguous backslash quoting) are refused
before parsing. Text sqlglot cannot parse is reported as PARSE_ERROR, never as an attack. Text
longer than `max_bytes` (UTF-8; default `DEFAULT_MAX_SQL_BYTES`, the `max_sql_bytes` setting) is
refused as TOO_LARGE before it is tokenized, which bounds the guard's time.

The verdict is a pure function of (text, dialect, allowed tables, size limit), so the last
`VERDICT_CACHE_SIZE` verdicts are kept by exactly those inputs: the same text asked again (a
warm question, a re-run) is not tokenized and parsed again; any other text is checked in full.

>>> check_sql("SELECT COUNT(*) FROM orders", "duckdb").code
'OK'
>>> check_sql("SELECT 1; DROP TABLE t", "sqlite").code
'MULTIPLE_STATEMENTS'
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from collections.abc import Collection, Iterator
from contextlib import contextmanager

import sqlglot.expressions as exp
from sqlglot import Token, TokenType
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ErrorLevel, ParseError

from nl2sql.dialects import dialect_name
from nl2sql.errors import safe_one_line
from nl2sql.security.sql_guard_lexical import (
    nested_comment_refusal,
    raw_text_refusal,
    statement_count,
    token_refusal,
    variable_token_refusal,
)
from nl2sql.security.sql_guard_result import OK_RESULT, GuardCode, GuardResult, refuse, shown
from nl2sql.security.sql_guard_tree import first_write, inspect_query, write_label

__all__ = ["DEFAULT_MAX_SQL_BYTES", "GuardCode", "GuardResult", "check_sql"]

#: The longest SQL text (UTF-8 bytes) the guard reads, the `max_sql_bytes` default. The guard
#: cannot be interrupted mid-parse, so this bounds its CPU: sqlglot's tokenizer and parser cost
#: ~15 µs per byte for every shape measured (UNION ALL chains, joins, OR/CASE chains, IN lists,
#: nesting), ~0.4 s at this size on a loaded 2-core machine, ~1.5 s at 100 KB. The longest query
#: of a 12,795-query corpus of accepted SQL is 3,106 bytes (docs/failure_recovery.md).
DEFAULT_MAX_SQL_BYTES = 20_000
#: Verdicts kept by their exact inputs (each text at most `max_bytes`, typically a few hundred).
VERDICT_CACHE_SIZE = 256

_QUERY_STARTS = frozenset({"SELECT", "WITH", "FROM", "TABLE"})
_DML_WORDS = frozenset("INSERT UPDATE DELETE MERGE DROP CREATE ALTER TRUNCATE".split())
_READ_STATEMENTS = frozenset({"EXPLAIN", "SHOW", "DESCRIBE", "DESC", "SUMMARIZE", "VALUES"})
_WRITE_STATEMENTS = frozenset(
    """
    INSERT UPDATE DELETE MERGE UPSERT REPLACE TRUNCATE DROP CREATE ALTER RENAME ATTACH DETACH
    COPY PRAGMA SET RESET LOAD INSTALL FORCE CALL EXEC EXECUTE EXPORT IMPORT VACUUM ANALYZE
    CHECKPOINT BEGIN START COMMIT ROLLBACK SAVEPOINT RELEASE ABORT END GRANT REVOKE LOCK UNLOCK
    HANDLER DO PREPARE DEALLOCATE DISCARD LISTEN NOTIFY UNLISTEN REINDEX CLUSTER REFRESH COMMENT
    KILL SHUTDOWN FLUSH PURGE OPTIMIZE REPAIR USE SECURITY
""".split()
)


def check_sql(
    sql: str,
    dialect: str = "duckdb",
    *,
    allowed_tables: Collection[str] | None = None,
    max_bytes: int = DEFAULT_MAX_SQL_BYTES,
) -> GuardResult:
    """Decide whether `sql` may run on a `dialect` datasource (read-only, one query).

    Args:
        sql: the SQL text exactly as it would be sent to the engine.
        dialect: a sqlglot dialect name ("duckdb", "sqlite", "postgres", "mysql", ...).
        allowed_tables: when given, every table the query reads (CTE names excluded) must be
            in it: the snapshot's `Table.key` values, compared case-insensitively and fully
            qualified (a bare key matches only a bare name, or `main.name` on DuckDB/SQLite;
            `schema.name` matches only that schema), so no other schema or database is read.
        max_bytes: the longest text accepted, in UTF-8 bytes (checked before parsing).

    Returns:
        GuardResult(allowed, code, message); code is "OK" or the reason for the refusal.
    """
    name = dialect_name(dialect)
    Dialect.get_or_raise(name)  # an unknown dialect is a configuration error
    refused = _size_refusal(sql, max_bytes)  # before the cache: it keeps no text over the limit
    if refused:
        return refused
    allowed = None if allowed_tables is None else frozenset(t.lower() for t in allowed_tables)
    return _verdict(sql, name, allowed, max_bytes)


@functools.lru_cache(maxsize=VERDICT_CACHE_SIZE)
def _verdict(sql: str, name: str, allowed: frozenset[str] | None, max_bytes: int) -> GuardResult:
    """The guard's verdict (GuardResult is frozen, so a kept one is safe to hand out again)."""
    engine = Dialect.get_or_raise(name)
    refused = raw_text_refusal(sql)
    if refused:
        return refused
    try:
        tokens = engine.tokenize(sql)
    except Exception as error:  # TokenError, or RecursionError on absurd nesting: fail closed
        return nested_comment_refusal(sql) or _unparseable(name, error)
    refused = token_refusal(sql, tokens, name)
    if refused:
        return refused
    count = statement_count(tokens)
    if count == 0:
        return refuse(GuardCode.EMPTY, "The SQL is empty: only whitespace, comments or ';'.")
    if count > 1:
        return refuse(
            GuardCode.MULTIPLE_STATEMENTS,
            f"Only one SQL statement may run at a time; this text holds {count}.",
        )
    try:
        root = _parse(engine, tokens, sql)
    except Exception as error:  # ParseError, or a sqlglot failure on odd input: fail closed
        return _classify_unparsed(tokens, name, error)
    verdict = _check_statement(root, tokens, name, sql, allowed)
    # after the tree rules, so `SELECT ... INTO @v` is named as the write it is
    return verdict if not verdict.allowed else variable_token_refusal(tokens, name) or verdict


def _size_refusal(sql: str, max_bytes: int) -> GuardResult | None:
    # len() first: a text is at least as many bytes as characters, so a huge one is not encoded
    if len(sql) <= max_bytes // 4:
        return None
    size = len(sql) if len(sql) > max_bytes else len(sql.encode("utf-8", "surrogatepass"))
    if size <= max_bytes:
        return None
    return refuse(
        GuardCode.TOO_LARGE,
        f"The SQL is {size:,} bytes long; the limit is {max_bytes:,} bytes (setting "
        "max_sql_bytes), so it was not checked or run.",
    )


def _parse(engine: Dialect, tokens: list[Token], sql: str) -> exp.Expr:
    with _quiet_sqlglot():
        trees = engine.parser(error_level=ErrorLevel.RAISE).parse(tokens, sql)
    # a comment after the final ';' comes back as a Semicolon node: it is not a statement
    statements = [t for t in trees if t is not None and not isinstance(t, exp.Semicolon)]
    if len(statements) != 1:
        raise ParseError(f"expected one statement, found {len(statements)}")
    return statements[0]


def _check_statement(
    root: exp.Expr,
    tokens: list[Token],
    dialect: str,
    sql: str,
    allowed: frozenset[str] | None,
) -> GuardResult:
    if not _is_query(root):
        return _non_query(root, tokens)
    return inspect_query(root, dialect, sql, allowed) or OK_RESULT


def _is_query(root: exp.Expr) -> bool:
    inner = root.unnest() if isinstance(root, exp.Subquery) else root
    return isinstance(inner, (exp.Select, exp.SetOperation))


def _non_query(root: exp.Expr, tokens: list[Token]) -> GuardResult:
    """Refuse a statement that is not a query: as a write when it writes, else NOT_A_QUERY."""
    keyword = _first_keyword(tokens)
    writes: exp.Expr | None
    if isinstance(root, exp.Command):
        # sqlglot keeps unsupported statements as opaque text: judge them by their words
        # (EXPLAIN ANALYZE runs the statement it explains)
        words = re.findall(r"[A-Z_]+", root.sql().upper())
        inner = next((w for w in words if w in _DML_WORDS), None)
        if keyword in _READ_STATEMENTS and inner is not None:
            return _write(inner)
        writes = None if keyword in _READ_STATEMENTS else root
    else:
        writes = first_write(root)
    if writes is not None:
        return _write(write_label(writes))
    return _by_keyword(keyword)


def _by_keyword(keyword: str) -> GuardResult:
    if keyword in _WRITE_STATEMENTS:
        return _write(keyword)
    return refuse(
        GuardCode.NOT_A_QUERY,
        "Only read queries (SELECT, WITH ... SELECT, UNION/INTERSECT/EXCEPT) may run; this "
        f"text starts with {shown(keyword)!r} and is not one.",
    )


def _write(what: str) -> GuardResult:
    return refuse(
        GuardCode.WRITE_OPERATION, f"Only read-only queries may run; the SQL contains {what}."
    )


def _classify_unparsed(tokens: list[Token], dialect: str, error: Exception) -> GuardResult:
    """Name what sqlglot could not parse when the tokens alone show it is no read query."""
    for tok, nxt in zip(tokens, tokens[1:], strict=False):
        if tok.token_type == TokenType.INTO and nxt.text.upper() in ("OUTFILE", "DUMPFILE"):
            return _write(f"SELECT ... INTO {nxt.text.upper()} (writes a file)")
    keyword = _first_keyword(tokens)
    if keyword not in _QUERY_STARTS:
        return _by_keyword(keyword)
    return _unparseable(dialect, error)


def _unparseable(dialect: str, error: Exception) -> GuardResult:
    reason = safe_one_line(error, None) or type(error).__name__
    return refuse(
        GuardCode.PARSE_ERROR,
        f"The SQL could not be parsed as {dialect} by the guard ({shown(reason, 80)}); it is "
        "not called unsafe, but it cannot be verified, so it was not run.",
    )


def _first_keyword(tokens: list[Token]) -> str:
    """The statement's first word, past any opening parentheses: `((DELETE ...` is a DELETE."""
    word = next((t for t in tokens if t.token_type != TokenType.L_PAREN), None)
    return word.text.upper() if word is not None else "("


_quiet_lock = threading.Lock()
_quiet_depth = 0
_quiet_saved = logging.NOTSET


@contextmanager
def _quiet_sqlglot() -> Iterator[None]:
    """Raise the `sqlglot` logger to ERROR while parsing, restoring it after (thread-safe)."""
    global _quiet_depth, _quiet_saved
    logger = logging.getLogger("sqlglot")
    with _quiet_lock:
        if _quiet_depth == 0:
            _quiet_saved = logger.level
            logger.setLevel(logging.ERROR)
        _quiet_depth += 1
    try:
        yield
    finally:
        with _quiet_lock:
            _quiet_depth -= 1
            if _quiet_depth == 0:
                logger.setLevel(_quiet_saved)
