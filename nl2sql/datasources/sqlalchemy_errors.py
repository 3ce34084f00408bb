"""Classify database errors raised through SQLAlchemy into retryable findings and refusals.

PostgreSQL is classified by SQLSTATE (psycopg's `sqlstate`), MySQL/MariaDB by the server's
error number, any other engine by the DB-API exception class. Retryable means the database
said the query is wrong (the SQL agent may re-plan); everything else is a refusal. Messages
are one line: PostgreSQL's primary message, MySQL's text with its `near '...'` SQL echo cut
to the first token, never the statement and never a password.
"""

from __future__ import annotations

import re
from typing import Any

from nl2sql.datasources.base import ResultError
from nl2sql.errors import safe_one_line

# SQLSTATE -> (kind, retryable); exact codes first, then two-character classes.
_PG_CODES: dict[str, tuple[str, bool]] = {
    "42601": ("syntax", True),
    "42P01": ("undefined", True),
    "42703": ("undefined", True),
    "42702": ("undefined", True),
    "42P09": ("undefined", True),
    "3F000": ("undefined", True),
    "42804": ("type", True),
    "42846": ("type", True),
    "42P18": ("type", True),
    "42725": ("type", True),
    "42501": ("permission", False),
    "25006": ("read_only", False),
    "57014": ("timeout", False),
    "55P03": ("timeout", False),
    "3D000": ("connection", False),
    "0A000": ("error", True),
    "21000": ("error", True),
}
_PG_CLASSES: dict[str, tuple[str, bool]] = {
    "42": ("error", True),  # syntax error or access rule violation: grouping, windowing, ...
    "22": ("type", True),  # data exception: bad literal, division by zero, out of range
    "08": ("connection", False),
    "57": ("connection", False),  # operator intervention: shutdown, crash
    "28": ("permission", False),
    "25": ("error", False),
    "40": ("error", False),
    "53": ("error", False),
    "54": ("error", False),
}

# MySQL/MariaDB error numbers -> kind; the retryable ones are the query's own mistakes.
_MYSQL_RETRYABLE: dict[int, str] = {
    1064: "syntax", 1149: "syntax",
    1054: "undefined", 1146: "undefined", 1109: "undefined", 1052: "undefined",
    1305: "undefined", 1630: "undefined", 1051: "undefined",
    1366: "type", 1292: "type", 1267: "type", 1271: "type", 1690: "type", 1582: "type",
    1583: "type", 1367: "type", 1365: "type",
    1055: "error", 1056: "error", 1111: "error", 1140: "error", 1241: "error", 1242: "error",
    1222: "error", 1248: "error", 1060: "error", 1235: "error", 1327: "error", 1066: "error",
}  # fmt: skip
_MYSQL_REFUSED: dict[int, str] = {
    1792: "read_only", 1568: "read_only", 1290: "read_only", 1036: "read_only",
    1142: "permission", 1143: "permission", 1044: "permission", 1045: "permission",
    1227: "permission", 1370: "permission", 1698: "permission",
    3024: "timeout", 1969: "timeout", 1317: "timeout", 1028: "timeout", 1205: "timeout",
    1049: "connection", 1040: "connection", 1129: "connection", 1152: "connection",
    1053: "connection", 1927: "connection",
}  # fmt: skip

# DB-API exception class (any engine) -> (kind, retryable).
_DBAPI_CLASSES: dict[str, tuple[str, bool]] = {
    "ProgrammingError": ("error", True),
    "DataError": ("type", True),
    "IntegrityError": ("read_only", False),
    "OperationalError": ("connection", False),
    "InterfaceError": ("connection", False),
    "NotSupportedError": ("error", False),
    "InternalError": ("error", False),
}
# Message wordings of wrong queries on engines without a profile (SQLite, SQL Server, ...).
_GENERIC_HINTS = (
    ("syntax", ("syntax error", "incorrect syntax", "parse error")),
    ("undefined", ("no such column", "no such table", "invalid column name", "invalid object name",
                   "does not exist", "unknown column", "not found")),
    ("type", ("datatype mismatch", "conversion failed", "type mismatch", "wrong number of arguments")),
)  # fmt: skip
_MYSQL_NEAR = re.compile(r"(near\s+')(.*?)('\s+at line \d+)", re.DOTALL)
_MYSQL_MANUAL = re.compile(
    r"; check the manual that corresponds to your \w+ server version for the right syntax to use"
)


def timeout_error(timeout_s: float) -> ResultError:
    """The refusal for a statement stopped by its timeout."""
    return ResultError(
        f"the query ran longer than the {timeout_s:g} s timeout and was stopped",
        retryable=False,
        kind="timeout",
    )


def classify_error(
    exc: BaseException, sql: str, *, backend: str, timeout_s: float, secrets: tuple[str, ...] = ()
) -> ResultError:
    """Map a driver (or SQLAlchemy-wrapped) exception to a ResultError with a safe message."""
    orig = getattr(exc, "orig", None) or exc
    sqlstate = getattr(orig, "sqlstate", None)
    if backend == "postgresql" and sqlstate:
        kind, retryable = _pg_kind(sqlstate, _pg_message(orig))
        message = _pg_message(orig)
    elif backend in ("mysql", "mariadb") and (code := _mysql_code(orig)) is not None:
        kind, retryable = _mysql_kind(code)
        message = _mysql_message(orig, code)
    else:
        message = str(orig)
        kind, retryable = _hinted_kind(message) or _dbapi_kind(exc, orig)
    if kind == "timeout":
        return timeout_error(timeout_s)
    return ResultError(_scrub(message, sql, secrets), retryable=retryable, kind=kind)


def _pg_kind(sqlstate: str, message: str) -> tuple[str, bool]:
    if sqlstate == "42883":  # undefined_function: an operator or signature the types lack
        return ("type", True) if message.startswith("operator") else ("undefined", True)
    if sqlstate == "0A000" and "data-modifying" in message:
        return "read_only", False  # a writable CTE refused inside a read-only cursor
    return _PG_CODES.get(sqlstate) or _PG_CLASSES.get(sqlstate[:2], ("error", False))


def _pg_message(orig: BaseException) -> str:
    diag = getattr(orig, "diag", None)
    primary = getattr(diag, "message_primary", None)
    return primary or str(orig)


def _mysql_code(orig: BaseException) -> int | None:
    args = getattr(orig, "args", ())
    return args[0] if args and isinstance(args[0], int) else None


def _mysql_kind(code: int) -> tuple[str, bool]:
    if code in _MYSQL_RETRYABLE:
        return _MYSQL_RETRYABLE[code], True
    if code in _MYSQL_REFUSED:
        return _MYSQL_REFUSED[code], False
    if 2000 <= code < 3000:  # client library errors: lost connection, cannot connect
        return "connection", False
    return "error", False


def _mysql_message(orig: BaseException, code: int) -> str:
    args: tuple[Any, ...] = getattr(orig, "args", ())
    text = str(args[1]) if len(args) > 1 else str(orig)
    text = _MYSQL_MANUAL.sub("", text)
    # The server echoes the statement from the error onwards; keep only its first token.
    text = _MYSQL_NEAR.sub(lambda m: m.group(1) + _first_token(m.group(2)) + m.group(3), text)
    return f"{text} (error {code})"


def _first_token(fragment: str) -> str:
    token = fragment.strip().split(maxsplit=1)
    return token[0][:30] if token else ""


def _hinted_kind(message: str) -> tuple[str, bool] | None:
    """For engines without a profile: what the common wordings of a wrong query say."""
    lowered = message.lower()
    for kind, hints in _GENERIC_HINTS:
        if any(hint in lowered for hint in hints):
            return kind, True
    return None


def _dbapi_kind(exc: BaseException, orig: BaseException) -> tuple[str, bool]:
    for cls in type(orig).__mro__:
        if cls.__name__ in _DBAPI_CLASSES:
            return _DBAPI_CLASSES[cls.__name__]
    if type(exc).__name__ == "TimeoutError":  # SQLAlchemy's pool checkout timeout
        return "connection", False
    return "error", False


def _scrub(message: str, sql: str, secrets: tuple[str, ...]) -> str:
    """One line without the statement text or any secret."""
    line = safe_one_line(message) or "the database reported an error"
    statement = sql.strip()
    if statement and statement in line:
        line = line.replace(statement, "<query>")
    for secret in secrets:
        if secret:
            line = line.replace(secret, "***")
    return line
