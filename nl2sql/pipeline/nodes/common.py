"""Small helpers every node uses to report: reasoning entries and skill failures."""

from __future__ import annotations

from typing import Any

from nl2sql.errors import ErrorCode, PipelineError, crash, error


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
    from nl2sql.reasoning.llm.errors import ModelCallError
    from nl2sql.reasoning.registry import MissingModelError

    if isinstance(exc, MissingModelError):
        return error(node, ErrorCode.MISSING_LLM, str(exc), **kw)
    if isinstance(exc, ModelCallError):
        return error(node, exc.code, exc.message, **{**kw, "retryable": False, **exc.details})
    if isinstance(exc, ConfigError):
        return error(node, ErrorCode.INVALID_CONFIG, str(exc), **{**kw, "retryable": False})
    return crash(node, fallback, exc, **kw)
