"""Small helpers every node uses to report: errors as values, reasoning entries."""

from __future__ import annotations

import traceback
from typing import Any

from nl2sql.errors import ErrorCode, ErrorSeverity, PipelineError, safe_one_line


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
        trace="".join(traceback.format_exception(exc)),
        **kw,
    )


def reasoning(node: str, content: str, **extra: Any) -> dict[str, Any]:
    """A reasoning entry; model calls made during this node add model, usage and raw_output."""
    from nl2sql.reasoning.llm import usage

    return {"node": node, "content": content, **usage.drain(), **extra}


def skill_failure(node: str, exc: BaseException, fallback: ErrorCode, **kw: Any) -> PipelineError:
    """A reasoning skill that raised, as the node's error: MISSING_LLM when no model is
    configured; the model failure's own code (PROVIDER_*, MODEL_OUTPUT_INVALID, CANCELLED) when a
    model call failed — fatal, so never retried; INVALID_CONFIG for unusable model settings;
    else `fallback` with the trace in details."""
    from nl2sql.errors import ConfigError
    from nl2sql.reasoning.base import MissingModelError
    from nl2sql.reasoning.llm.errors import ModelCallError

    if isinstance(exc, MissingModelError):
        return error(node, ErrorCode.MISSING_LLM, str(exc), **kw)
    if isinstance(exc, ModelCallError):
        return error(node, exc.code, exc.message, **{**kw, "retryable": False, **exc.details})
    if isinstance(exc, ConfigError):
        return error(node, ErrorCode.INVALID_CONFIG, str(exc), **{**kw, "retryable": False})
    return crash(node, fallback, exc, **kw)
