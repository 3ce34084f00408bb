"""Usage accounting: each model call leaves a CallRecord; the node's reasoning entry takes them.

A skill does not know which reasoning entry its calls belong to, and a node does not know
whether a model or the offline engine answered. The records travel in a context variable: a
LangGraph node runs in its own copy of the context, so calls made during a node land in that
node's entry (`pipeline/nodes/common.reasoning` drains them) and never in a parallel scan's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

_CALLS: ContextVar[tuple[CallRecord, ...]] = ContextVar("nl2sql_model_calls", default=())

#: Raw model output kept per call in the reasoning entry (the notebook shows it).
RAW_LIMIT = 20_000


@dataclass(frozen=True)
class CallRecord:
    """One request to a chat model: who asked, what it cost, what it answered."""

    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    raw: str = ""
    parse_error: str | None = None


def record(call: CallRecord) -> None:
    """Remember one model call in the current context (the running node's)."""
    _CALLS.set((*_CALLS.get(), call))


def pending() -> tuple[CallRecord, ...]:
    """The calls recorded in this context and not yet drained."""
    return _CALLS.get()


def drain() -> dict[str, Any]:
    """The pending calls as reasoning-entry fields (empty when there were none), then forget them.

    Fields: model (spec), usage {input_tokens, output_tokens, calls}, raw_output (one text per
    call) and parse_errors (why an answer was re-asked, when any was).
    """
    calls = _CALLS.get()
    if not calls:
        return {}
    _CALLS.set(())
    entry: dict[str, Any] = {
        "model": calls[-1].model,
        "usage": {
            "input_tokens": sum(c.input_tokens for c in calls),
            "output_tokens": sum(c.output_tokens for c in calls),
            "calls": len(calls),
        },
        "raw_output": [c.raw[:RAW_LIMIT] for c in calls],
    }
    errors = [c.parse_error for c in calls if c.parse_error]
    if errors:
        entry["parse_errors"] = errors
    return entry


def token_counts(message: Any) -> tuple[int, int]:
    """(input, output) tokens from an AIMessage's usage metadata (0, 0 when it has none)."""
    meta = getattr(message, "usage_metadata", None) or {}
    return int(meta.get("input_tokens") or 0), int(meta.get("output_tokens") or 0)


def summarize(entries: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Tokens and calls per node and for the whole run, from reasoning entries."""
    by_node: dict[str, dict[str, int]] = {}
    for entry in entries:
        usage = entry.get("usage")
        if not isinstance(usage, Mapping):
            continue
        slot = by_node.setdefault(str(entry.get("node")), _zero())
        for key in slot:
            slot[key] += int(usage.get(key) or 0)
    total = _zero()
    for slot in by_node.values():
        for key in total:
            total[key] += slot[key]
    return {"by_node": by_node, "total": total}


def _zero() -> dict[str, int]:
    return {"input_tokens": 0, "output_tokens": 0, "calls": 0}
