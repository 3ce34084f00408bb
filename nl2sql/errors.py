"""Errors: codes, severities, the PipelineError value carried in state, and the exception root.

Most failures are values (`PipelineError` in `GraphState.errors`), not exceptions: a node that
fails returns its error and the graph's routes decide what happens next. Exceptions are kept for
what cannot be a state value: bad configuration at construction time (`ConfigError`) and a router
that cannot schedule work (`PipelineExecutionError`, which carries the PipelineError on `.error`).
"""

from __future__ import annotations

import re
import traceback
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class ErrorSeverity(StrEnum):
    WARNING = "warning"
    ERROR = "error"
    CRITICAL = "critical"


class ErrorCode(StrEnum):
    # input and configuration
    INVALID_CONFIG = "INVALID_CONFIG"
    INVALID_STATE = "INVALID_STATE"
    MISSING_DATASOURCE_ID = "MISSING_DATASOURCE_ID"
    MISSING_LLM = "MISSING_LLM"
    SECURITY_VIOLATION = "SECURITY_VIOLATION"
    # retrieval and resolution
    SCHEMA_RETRIEVAL_FAILED = "SCHEMA_RETRIEVAL_FAILED"
    QUESTION_NOT_ANSWERABLE = "QUESTION_NOT_ANSWERABLE"
    VECTOR_STORE_UNAVAILABLE = "VECTOR_STORE_UNAVAILABLE"
    # planning
    ORCHESTRATOR_CRASH = "ORCHESTRATOR_CRASH"
    PLANNER_FAILED = "PLANNER_FAILED"
    PLANNING_FAILURE = "PLANNING_FAILURE"
    # the plan is not likely enough (under `min_confidence`): the user chooses among candidates
    CLARIFICATION_NEEDED = "CLARIFICATION_NEEDED"
    # validation
    TABLE_NOT_FOUND = "TABLE_NOT_FOUND"
    COLUMN_NOT_FOUND = "COLUMN_NOT_FOUND"
    INVALID_PLAN_STRUCTURE = "INVALID_PLAN_STRUCTURE"
    # generation and execution
    SQL_GEN_FAILED = "SQL_GEN_FAILED"
    SQL_GUARD_REFUSED = "SQL_GUARD_REFUSED"
    VERIFIED_SQL_UNREADABLE = "VERIFIED_SQL_UNREADABLE"  # a curated answer's SQL sqlglot cannot parse
    MISSING_SQL = "MISSING_SQL"
    EXECUTION_FAILED = "EXECUTION_FAILED"
    DB_EXECUTION_ERROR = "DB_EXECUTION_ERROR"
    ARTIFACT_WRITE_FAILED = "ARTIFACT_WRITE_FAILED"
    VALUE_NOT_FOUND = "VALUE_NOT_FOUND"
    JOIN_FAN_OUT = "JOIN_FAN_OUT"
    # aggregation and answer
    AGGREGATOR_FAILED = "AGGREGATOR_FAILED"
    RESULT_TRUNCATED = "RESULT_TRUNCATED"
    COMBINE_TOO_LARGE = "COMBINE_TOO_LARGE"  # a combine across engines would pull more than its budget
    SYNTHESIS_FAILED = "SYNTHESIS_FAILED"
    # models
    MODEL_OUTPUT_INVALID = "MODEL_OUTPUT_INVALID"
    PROVIDER_AUTH = "PROVIDER_AUTH"
    PROVIDER_RATE_LIMIT = "PROVIDER_RATE_LIMIT"
    PROVIDER_QUOTA = "PROVIDER_QUOTA"
    PROVIDER_TIMEOUT = "PROVIDER_TIMEOUT"
    PROVIDER_UNAVAILABLE = "PROVIDER_UNAVAILABLE"
    PROVIDER_MODEL_NOT_FOUND = "PROVIDER_MODEL_NOT_FOUND"
    PROVIDER_BAD_REQUEST = "PROVIDER_BAD_REQUEST"
    # runtime
    PIPELINE_TIMEOUT = "PIPELINE_TIMEOUT"
    CANCELLED = "CANCELLED"
    UNKNOWN_ERROR = "UNKNOWN_ERROR"


PROVIDER_ERRORS = frozenset(c for c in ErrorCode if c.value.startswith("PROVIDER_"))

#: Codes that are never retried and end the sub-query (or the run) where they occur.
FATAL_ERRORS = frozenset(
    {
        ErrorCode.SECURITY_VIOLATION,
        ErrorCode.MISSING_DATASOURCE_ID,
        ErrorCode.MISSING_LLM,
        ErrorCode.INVALID_STATE,
        ErrorCode.DB_EXECUTION_ERROR,
        # The query ran; writing its result failed (disk full, read-only folder): running it
        # again would fail the same way.
        ErrorCode.ARTIFACT_WRITE_FAILED,
        ErrorCode.SQL_GUARD_REFUSED,
        ErrorCode.PIPELINE_TIMEOUT,
        ErrorCode.CANCELLED,
        # The model client already re-asked `parse_retries` times with the validation errors;
        # an SQL-agent retry would repeat the same prompt and multiply the calls.
        ErrorCode.MODEL_OUTPUT_INVALID,
    }
    | PROVIDER_ERRORS
)


class PipelineError(BaseModel):
    """A failure carried as a value in the graph state.

    `message` is one line a user can act on: no SQL text, no stack trace (those go to `details`).
    """

    model_config = ConfigDict(extra="forbid")

    node: str
    message: str
    severity: ErrorSeverity = ErrorSeverity.ERROR
    error_code: ErrorCode
    retryable: bool = False
    details: dict[str, Any] = Field(default_factory=dict)
    sub_query_id: str | None = None

    @property
    def is_retryable(self) -> bool:
        """True when the SQL agent may try again: flagged retryable, not fatal, not critical."""
        return (
            self.retryable
            and self.error_code not in FATAL_ERRORS
            and self.severity != ErrorSeverity.CRITICAL
        )

    @property
    def is_blocking(self) -> bool:
        return self.severity in (ErrorSeverity.ERROR, ErrorSeverity.CRITICAL)

    def one_line(self) -> str:
        return f"{self.error_code.value}: {self.message}"


class RefusalCode(StrEnum):
    """Why a planner refused, for what can be taught to fix it (see nl2sql/semantic/suggest.py)."""

    UNKNOWN_TERM = "UNKNOWN_TERM"  # words that name no table, column or stored value
    NO_JOIN_PATH = "NO_JOIN_PATH"  # tables the question needs that no join path connects
    AMBIGUOUS_TERM = "AMBIGUOUS_TERM"  # a word that could name several columns


class Refusal(BaseModel):
    """Why no plan was made, as data: words the schema does not name (UNKNOWN_TERM), tables
    no join path connects (NO_JOIN_PATH) or a word that could name several columns
    (AMBIGUOUS_TERM)."""

    # A planner gives it with `plan: null` (the offline engine, or a chat model: this docstring
    # is its schema's description); it rides on the PLANNING_FAILURE error's details["refusal"].

    model_config = ConfigDict(extra="forbid")

    code: RefusalCode
    words: list[str] = Field(default_factory=list)  # UNKNOWN_TERM, AMBIGUOUS_TERM: the words, as asked
    tables: list[str] = Field(default_factory=list)  # NO_JOIN_PATH: the tables joined so far
    unreached: list[str] = Field(default_factory=list)  # NO_JOIN_PATH: those no path reaches
    means: list[str] = Field(default_factory=list)  # AMBIGUOUS_TERM: the `table.column`s it could name

    @classmethod
    def of(cls, error: PipelineError) -> Refusal | None:
        """The refusal `error` carries (None when it carries none, or one that does not read)."""
        raw = error.details.get("refusal")
        if not isinstance(raw, dict):
            return None
        try:
            return cls.model_validate(raw)
        except ValueError:
            return None


class RunWarning(BaseModel):
    """Something the analyst should know that did not stop the run (e.g. a recovered error)."""

    model_config = ConfigDict(extra="forbid")

    node: str
    code: str
    message: str
    sub_query_id: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict)


class NL2SQLError(Exception):
    """Root of the exceptions nl2sql raises."""


class ConfigError(NL2SQLError):
    """Invalid configuration, raised when a Session or context is constructed."""


class PipelineExecutionError(NL2SQLError):
    """Raised where a PipelineError cannot be returned as a state value (a router).

    The runtime unwraps it and returns `.error` in the result unchanged.
    """

    def __init__(self, error: PipelineError):
        super().__init__(error.message)
        self.error = error


# `scheme://user:password@`: the password ends at the first `@`, as SQLAlchemy's URL parser reads it.
_URL_PASSWORD = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*://[^:/@\s]*):[^@\s]*@")


def mask_url_passwords(text: object) -> str:
    """`text` with the password of every URL in it replaced by `***`.

    >>> mask_url_passwords("cannot reach postgresql://app:s3cr/t@db:5432/x")
    'cannot reach postgresql://app:***@db:5432/x'
    """
    return _URL_PASSWORD.sub(r"\1:***@", str(text))


class SQLGenError(NL2SQLError):
    """A plan that cannot be rendered as SQL, or an unknown dialect name."""

    def __init__(self, message: str, *, dialect: str | None = None):
        super().__init__(message)
        self.dialect = dialect


def safe_one_line(text: object, limit: int | None = 240, *, whole: bool = False) -> str:
    """`text` as one trimmed line, clipped at `limit` characters (None: never) with "…".

    The one place text is made to fit on a line; URL passwords are masked. By default only the first line is kept: in an
    error message the rest is a trace or the SQL, which a user should not see. `whole=True`
    joins every line (whitespace squeezed) instead, for descriptions shown to a model, where the
    rest still says something.

    >>> safe_one_line("no such column: x\\nSELECT x FROM t"), safe_one_line("Sales  by\\nregion", whole=True)
    ('no such column: x', 'Sales by region')
    >>> safe_one_line("abcdef", 4)
    'abc…'
    """
    raw = mask_url_passwords(text).strip()
    line = " ".join(raw.split()) if whole else (raw.splitlines()[0] if raw else "")
    return line if limit is None or len(line) <= limit else line[: limit - 1] + "…"


def error(
    node: str,
    code: ErrorCode,
    message: str,
    *,
    severity: ErrorSeverity = ErrorSeverity.ERROR,
    retryable: bool = False,
    sub_query_id: str | None = None,
    **details: Any,
) -> PipelineError:
    return PipelineError(
        node=node,
        message=safe_one_line(message),
        severity=severity,
        error_code=code,
        retryable=retryable,
        sub_query_id=sub_query_id,
        details=details,
    )


def crash(node: str, code: ErrorCode, exc: BaseException, **kw: Any) -> PipelineError:
    """An unexpected exception as a PipelineError: the type and first line, trace in details."""
    return error(
        node,
        code,
        f"{node} failed: {type(exc).__name__}: {safe_one_line(exc)}",
        trace=mask_url_passwords("".join(traceback.format_exception(exc))),
        **kw,
    )
