"""Template answers from result previews: deterministic, short, numbers formatted.

- one value: "1,234 loans were made in 2024." when the question reads "how many <X> <verb> …",
  else "<question restated>: <value>";
- a compare result: the largest difference between the two compared columns;
- a small table: one sentence with the row count and the first rows;
- no rows: "No rows matched …".
Integers get thousands separators, floats two decimals.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Any

from nl2sql.reasoning.base import AnswerSynthesizerResponse, ResultPreview

_AUX = r"(?:are|were|is|was|have|has|had|exist|existed)"
_HOW_MANY = re.compile(rf"^how many\s+(?P<subject>.+?)\s+(?P<aux>{_AUX})\b(?P<rest>.*)$", re.I)
_WHAT_IS = re.compile(r"^(?:what|which)\s+(?:is|was)\s+(?P<subject>the\s+.+)$", re.I)
_SHOWN_ROWS = 5


def fmt(value: object) -> str:
    """12345 -> '12,345'; 3.14159 -> '3.14'; dates ISO; None -> 'none'."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, (float, Decimal)):
        f = float(value)
        return f"{int(f):,}" if f.is_integer() and abs(f) < 1e15 else f"{f:,.2f}"
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return str(value)


def synthesize(
    question: str, results: list[ResultPreview], compare: bool = False
) -> AnswerSynthesizerResponse:
    """One deterministic answer for the question's terminal results (`compare`: a compare group)."""
    if not results:
        return AnswerSynthesizerResponse(answer="No result was produced for the question.")
    parts = [_one(question, r, len(results) > 1, compare) for r in results]
    return AnswerSynthesizerResponse(answer="\n".join(parts))


def _one(question: str, r: ResultPreview, labelled: bool, compare: bool) -> str:
    prefix = f"{r.label}: " if labelled and r.label else ""
    if r.row_count == 0 or not r.rows:
        return prefix + f"No rows matched the question ({_strip(question)})."
    if r.row_count == 1 and len(r.columns) == 1:
        return prefix + _single(question, r.rows[0][0])
    text = _compare(r, compare)
    if text:
        return prefix + text
    return prefix + _table(r)


def _strip(question: str) -> str:
    return question.strip().rstrip("?.! ")


def _single(question: str, value: object) -> str:
    q = _strip(question)
    m = _HOW_MANY.match(q)
    if m:
        rest, aux = m.group("rest").strip(), m.group("aux")
        if rest.lower() == "there" and aux.lower() in ("are", "is", "were", "was"):
            return f"There {aux.lower()} {fmt(value)} {m.group('subject')}."
        return f"{fmt(value)} {m.group('subject')} {aux}{(' ' + rest) if rest else ''}."
    m = _WHAT_IS.match(q)
    if m:
        subject = m.group("subject")
        return f"{subject[0].upper()}{subject[1:]} is {fmt(value)}."
    return f"{q}: {fmt(value)}."


def _numeric(r: ResultPreview, i: int) -> bool:
    values = [row[i] for row in r.rows if row[i] is not None]
    return bool(values) and all(
        isinstance(v, (int, float, Decimal)) and not isinstance(v, bool) for v in values
    )


def _compare(r: ResultPreview, compare: bool) -> str | None:
    """A side-by-side result: the row with the largest absolute difference."""
    names = [c.lower() for c in r.columns]
    diff = next((i for i, c in enumerate(names) if "diff" in c and _numeric(r, i)), None)
    nums = [i for i, c in enumerate(names) if _numeric(r, i) and i != diff]
    keys = [i for i in range(len(names)) if not _numeric(r, i)]
    if (diff is None and not compare) or len(nums) < 2 or not keys:
        return None
    a, b = nums[0], nums[1]

    def gap(row: tuple[Any, ...]) -> float:
        if diff is not None:
            return float(row[diff] or 0)
        return float(row[a] or 0) - float(row[b] or 0)

    row = max(r.rows, key=lambda row: (abs(gap(row)), str(row[keys[0]])))
    label = ", ".join(fmt(row[k]) for k in keys)
    return (
        f"{_count(r)} compared. The largest difference is for {label}: "
        f"{r.columns[a]} {fmt(row[a])} vs {r.columns[b]} {fmt(row[b])} (difference {fmt(gap(row))})."
    )


def _count(r: ResultPreview) -> str:
    more = " (truncated)" if r.truncated else ""
    return f"{r.row_count:,} row{'s' if r.row_count != 1 else ''}{more}"


def _table(r: ResultPreview) -> str:
    rows = r.rows[:_SHOWN_ROWS]
    more = "; …" if r.row_count > len(rows) else ""
    last = len(r.columns) - 1
    if last >= 1 and _numeric(r, last) and not any(_numeric(r, i) for i in range(last)):
        # labels then one number: "Books: 10,630", "Ann Lee: 3"
        shown = [f"{' '.join(fmt(v) for v in row[:last])}: {fmt(row[last])}" for row in rows]
        by = ", ".join(r.columns[:last])
        return f"{_count(r)} of {r.columns[last]} by {by} — " + "; ".join(shown) + more + "."
    shown = [
        ", ".join(f"{c} {fmt(v)}" for c, v in zip(r.columns, row, strict=False)) for row in rows
    ]
    return f"{_count(r)}: " + "; ".join(shown) + more + "."
