"""Reading a structured answer out of a raw chat message, and saying why it is not usable.

Whatever the method, the answer is one JSON object: tool-call arguments (function calling) or
the message text (JSON schema / JSON mode). Models wrap JSON in code fences or add a sentence
around it; the outermost object is taken. Validation problems are phrased for the model to fix.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)
MAX_PROBLEMS = 8


def message_text(message: Any) -> str:
    """The text of a message whose content is a string or a list of content blocks."""
    content = getattr(message, "content", message)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            b if isinstance(b, str) else b.get("text", "")
            for b in content
            if isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text")
        ]
        return "".join(parts)
    return str(content or "")


def raw_text(message: Any) -> str:
    """What the model answered, as text: the message text, else its tool-call arguments."""
    text = message_text(message)
    if text.strip():
        return text
    calls = getattr(message, "tool_calls", None) or []
    if calls:
        return json.dumps(calls[0].get("args", {}), ensure_ascii=False)
    invalid = getattr(message, "invalid_tool_calls", None) or []
    if invalid:
        return str(invalid[0].get("args") or "")
    return ""


def extract_payload(message: Any) -> Any:
    """The JSON value of the answer — the first tool call's arguments, else the message text;
    ValueError saying what is wrong when there is none."""
    calls = getattr(message, "tool_calls", None) or []
    if calls:
        return calls[0].get("args", {})
    invalid = getattr(message, "invalid_tool_calls", None) or []
    if invalid:
        raise ValueError(
            f"the tool-call arguments are not valid JSON ({invalid[0].get('error') or 'parse error'})"
        )
    text = message_text(message).strip()
    if not text:
        raise ValueError("the answer was empty: return one JSON object")
    return parse_json_text(text)


def parse_json_text(text: str) -> Any:
    """One JSON object from `text` (code fences and surrounding prose tolerated)."""
    fenced = _FENCE.search(text)
    candidate = fenced.group(1).strip() if fenced else text
    try:
        return json.loads(candidate)
    except json.JSONDecodeError:
        start, end = candidate.find("{"), candidate.rfind("}")
        if start != -1 and end > start:
            try:
                return json.loads(candidate[start : end + 1])
            except json.JSONDecodeError as exc:
                raise ValueError(
                    f"the answer is not valid JSON: {exc.msg} at character {exc.pos}"
                ) from None
        raise ValueError("the answer is not a JSON object") from None


def describe_problems(exc: Exception) -> list[str]:
    """Validation problems as short lines, `path: message`, at most MAX_PROBLEMS."""
    if isinstance(exc, ValidationError):
        lines = []
        for err in exc.errors(include_url=False)[:MAX_PROBLEMS]:
            where = ".".join(str(p) for p in err["loc"]) or "(root)"
            lines.append(f"{where}: {err['msg']}")
        more = exc.error_count() - MAX_PROBLEMS
        if more > 0:
            lines.append(f"... and {more} more problem(s)")
        return lines
    return [str(exc)]
