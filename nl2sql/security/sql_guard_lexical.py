"""Lexical checks of the SQL guard: text an engine could split or read differently from sqlglot.

The guard judges sqlglot's reading of the text, so anything where an engine's lexer may disagree
is refused as COMMENT_TRICK before parsing: MySQL/MariaDB executable comments (`/*! ... */` runs
its content), nested block comments (PostgreSQL and DuckDB nest them, SQLite and MySQL do not),
unusual line breaks inside comments, NUL characters, and, for engines whose server settings flip
backslash escaping (MySQL `NO_BACKSLASH_ESCAPES`, PostgreSQL `standard_conforming_strings`),
string literals whose end depends on that setting. Plain comments are fine. MySQL/MariaDB user
and system variables (`@a`, `@a := 1`, `@@sql_mode`) are refused as SESSION_VARIABLE: a variable
set in one run would persist on the pooled connection into the next.
"""

from __future__ import annotations

import re

from sqlglot import Token, TokenType

from nl2sql.security.sql_guard_result import GuardCode, GuardResult, refuse, shown

_EXECUTABLE_COMMENT = re.compile(r"/\*M?!", re.IGNORECASE)
_ODD_LINE_BREAKS = ("\r", "\x0b", "\x0c", "\x85", "\u2028", "\u2029")
# Engines whose server settings decide whether a backslash escapes a quote.
_SETTING_DEPENDENT_QUOTING = frozenset({"mysql", "postgres"})
# Engines with user variables (`@a`) that live as long as the connection.
_USER_VARIABLE_DIALECTS = frozenset({"mysql"})
_NESTED = refuse(
    GuardCode.COMMENT_TRICK,
    "The SQL nests a comment inside a comment; engines disagree on where such comments end.",
)


def raw_text_refusal(sql: str) -> GuardResult | None:
    """Refuse NUL characters and executable comments, whatever sqlglot would make of them."""
    if "\x00" in sql:
        return refuse(
            GuardCode.COMMENT_TRICK,
            "The SQL contains a NUL character, which drivers and the guard may read differently.",
        )
    if "/*" in sql and _EXECUTABLE_COMMENT.search(sql):
        return refuse(
            GuardCode.COMMENT_TRICK,
            "The SQL contains an executable comment (/*! ... */), whose content MySQL and "
            "MariaDB run as SQL.",
        )
    return None


def token_refusal(sql: str, tokens: list[Token], dialect: str) -> GuardResult | None:
    """Refuse comments and string literals that an engine could read differently from sqlglot."""
    for token in tokens:
        for comment in token.comments:
            if "/*" in comment or "*/" in comment:
                return _NESTED
            # a line comment ended by CRLF keeps its "\r"; only a break inside one is odd
            if any(ch in comment.replace("\r\n", "\n").rstrip("\r") for ch in _ODD_LINE_BREAKS):
                return refuse(
                    GuardCode.COMMENT_TRICK,
                    "A comment contains an unusual line break; engines disagree on where such "
                    "comments end.",
                )
        if dialect in _SETTING_DEPENDENT_QUOTING and token.token_type == TokenType.STRING:
            if _ambiguous_literal(sql[token.start : token.end + 1]):
                return refuse(
                    GuardCode.COMMENT_TRICK,
                    "A string literal uses a backslash next to a quote; whether it ends there "
                    "depends on server settings. Double the quote ('') instead.",
                )
    return None


def session_variable_refusal(what: str) -> GuardResult:
    """The refusal of a session, user or system variable (`what` as written)."""
    return refuse(
        GuardCode.SESSION_VARIABLE,
        f"Session and user variables ({shown(what, 40)}) may not be read or set: a query may "
        "only read the datasource's tables.",
    )


def variable_token_refusal(tokens: list[Token], dialect: str) -> GuardResult | None:
    """Refuse MySQL `@var`, `@@var` and `:=` assignments, however sqlglot would parse them."""
    for token, after in zip(tokens, [*tokens[1:], None], strict=True):
        kind = token.token_type
        if kind == TokenType.SESSION_PARAMETER or (
            dialect in _USER_VARIABLE_DIALECTS
            and (kind == TokenType.COLON_EQ or (kind == TokenType.PARAMETER and "@" in token.text))
        ):
            return session_variable_refusal(token.text + (after.text if after else ""))
    return None


def nested_comment_refusal(sql: str) -> GuardResult | None:
    """After a tokenizer error: refuse a block comment opened inside another one."""
    start = sql.find("/*")
    while start != -1:
        end = sql.find("*/", start + 2)
        if sql.find("/*", start + 2, end if end != -1 else len(sql)) != -1:
            return _NESTED
        start = sql.find("/*", end + 2) if end != -1 else -1
    return None


def statement_count(tokens: list[Token]) -> int:
    """How many non-empty statements the tokens hold, split at ';'."""
    count, pending = 0, False
    for token in tokens:
        if token.token_type == TokenType.SEMICOLON:
            count += pending
            pending = False
        else:
            pending = True
    return count + pending


def _ambiguous_literal(raw: str) -> bool:
    """True when a quoted literal would end elsewhere with backslash escapes on or off."""
    if "\\" not in raw or len(raw) < 2 or raw[0] not in "'\"" or raw[-1] != raw[0]:
        return False
    inner, quote = raw[1:-1], raw[0]
    return _ends_early(inner, quote, escapes=True) or _ends_early(inner, quote, escapes=False)


def _ends_early(inner: str, quote: str, *, escapes: bool) -> bool:
    """True when `inner` read with these rules closes before its end (or swallows the close)."""
    i, n = 0, len(inner)
    while i < n:
        ch = inner[i]
        if escapes and ch == "\\":
            if i + 1 == n:
                return True  # the backslash would escape the closing quote
            i += 2
        elif ch == quote:
            if i + 1 < n and inner[i + 1] == quote:
                i += 2
            else:
                return True
        else:
            i += 1
    return False
