"""The SQL guard's verdict: `GuardResult` and its codes (shared by the guard's rule modules)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from nl2sql.errors import safe_one_line


class GuardCode(StrEnum):
    """Why the guard allowed or refused a SQL text (a `str`, so `code == "OK"` works)."""

    OK = "OK"
    EMPTY = "EMPTY"
    PARSE_ERROR = "PARSE_ERROR"
    MULTIPLE_STATEMENTS = "MULTIPLE_STATEMENTS"
    NOT_A_QUERY = "NOT_A_QUERY"
    WRITE_OPERATION = "WRITE_OPERATION"
    FORBIDDEN_FUNCTION = "FORBIDDEN_FUNCTION"
    FORBIDDEN_TABLE_SOURCE = "FORBIDDEN_TABLE_SOURCE"
    UNKNOWN_TABLE = "UNKNOWN_TABLE"
    COMMENT_TRICK = "COMMENT_TRICK"
    SESSION_VARIABLE = "SESSION_VARIABLE"
    TOO_LARGE = "TOO_LARGE"


@dataclass(frozen=True)
class GuardResult:
    """The verdict on one SQL text: allowed or not, a code, and one line safe to show a user."""

    allowed: bool
    code: str
    message: str


OK_RESULT = GuardResult(True, GuardCode.OK.value, "Read-only query: allowed.")


def refuse(code: GuardCode, message: str) -> GuardResult:
    """A refusal with `message` trimmed to one line (`code` stored as a plain str)."""
    return GuardResult(False, code.value, safe_one_line(message))


def shown(name: str, limit: int = 60) -> str:
    """A name taken from the SQL, trimmed for a message."""
    text = " ".join(name.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
