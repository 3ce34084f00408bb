"""The refiner: turns the latest error into one line of feedback and structured planner hints.

Hints the offline planner honours:
- `replace_value` {table, column, old, new} after VALUE_NOT_FOUND with suggestions;
- `avoid_join_fan_out` {…details} after JOIN_FAN_OUT (COUNT DISTINCT the primary key);
- `column_suggestions` {old: new} after COLUMN_NOT_FOUND with suggestions.
Any other error gets feedback only: the offline planner is deterministic, so a retry without a
hint can only help when the error came from elsewhere in the pipeline.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nl2sql.reasoning.base import RefinerResponse


def error_code(latest_error: Mapping[str, Any]) -> str:
    """The error code as a plain upper-case string (enum values included)."""
    code = latest_error.get("error_code", "")
    return str(getattr(code, "value", code)).upper()


def refine(latest_error: Mapping[str, Any], details: Mapping[str, Any]) -> RefinerResponse:
    """Feedback and hints for the planner's next attempt."""
    code = error_code(latest_error)
    handler = _HANDLERS.get(code, _generic)
    feedback, hints = handler(latest_error, details or {})
    error = {k: getattr(v, "value", v) for k, v in latest_error.items()}
    return RefinerResponse(feedback=feedback, latest_error=error, hints=hints)


def _suggestions(details: Mapping[str, Any]) -> list[str]:
    raw = details.get("suggestions") or details.get("close_values") or []
    if isinstance(raw, str):
        return [raw]
    return [str(s) for s in raw if s is not None and str(s) != ""]


def _value(latest: Mapping[str, Any], details: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    table, column = details.get("table"), details.get("column")
    old = details.get("value")
    where = f"{table}.{column}" if table and column else (column or "the filtered column")
    suggestions = _suggestions(details)
    if old is None or not suggestions:
        return f"the value {old!r} does not exist in {where} and nothing close was found", {}
    new = suggestions[0]
    hint = {"replace_value": {"table": table, "column": column, "old": str(old), "new": new}}
    return f"'{old}' is not a value of {where}; use '{new}'", hint


def _fan_out(latest: Mapping[str, Any], details: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    hint = {"avoid_join_fan_out": dict(details) or {"reason": str(latest.get("message", ""))}}
    return (
        "a join repeated rows under an aggregate; count each row once (DISTINCT primary key)",
        hint,
    )


def _column(latest: Mapping[str, Any], details: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    raw = details.get("suggestions")
    column = details.get("column")
    mapping: dict[str, str] = {}
    if isinstance(raw, Mapping):
        mapping = {
            str(k): (v[0] if isinstance(v, list) and v else str(v)) for k, v in raw.items() if v
        }
    elif column and _suggestions(details):
        mapping = {str(column): _suggestions(details)[0]}
    if not mapping:
        return f"column {column!r} does not exist: {latest.get('message', '')}".strip(), {}
    fixes = ", ".join(f"{k} → {v}" for k, v in mapping.items())
    return f"unknown column(s); use {fixes}", {"column_suggestions": mapping}


def _generic(latest: Mapping[str, Any], details: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    node = latest.get("node", "a node")
    message = str(latest.get("message", "")).strip()
    return f"{node} reported {error_code(latest) or 'an error'}: {message}".strip(), {}


_HANDLERS = {
    "VALUE_NOT_FOUND": _value,
    "JOIN_FAN_OUT": _fan_out,
    "COLUMN_NOT_FOUND": _column,
}
