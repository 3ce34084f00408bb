"""Relative dates ("last 30 days", "last month", "this year", "year to date", "yesterday"),
resolved against one explicit reference date into the same [start, end) intervals as absolute ones.

The reference date is a run setting (today by default), so the same question and the same
setting always give the same interval; the planner writes the interval's literal dates into the
plan and says which reference it used. Conventions, chosen so every interval ends with the
reference day and never reaches past it (an answer "as of" a day knows nothing later):

- "today" / "yesterday": that one day;
- "last|past|previous N days|weeks|months|quarters|years": the N units ending with the reference
  day, inclusive ("last 30 days" as of 2025-06-30 is 2025-06-01 … 2025-06-30);
- "past <unit>" (no number): the one unit ending with the reference day;
- "last|previous <unit>": the previous whole calendar week (Monday–Sunday), month, quarter or year;
- "this|current <unit>", "<unit> to date", "ytd", "mtd", "qtd": from the calendar period's first
  day through the reference day;
- "N days ago": that one day.

Future periods ("next week", "tomorrow") and vague words ("recently", "currently") are not
resolved: the planner refuses them and says so.
"""

from __future__ import annotations

import calendar
from datetime import date, timedelta

from nl2sql.reasoning.offline.words.dates import DateCond
from nl2sql.reasoning.offline.words.text import Token

_UNITS = {
    "day": "day", "days": "day", "week": "week", "weeks": "week", "month": "month",
    "months": "month", "quarter": "quarter", "quarters": "quarter", "year": "year",
    "years": "year",
}  # fmt: skip
_TO_DATE = {"ytd": "year", "mtd": "month", "qtd": "quarter"}
_LEADS = {"in", "during", "within", "over", "for", "from", "of"}
_DAY = timedelta(days=1)


def add_months(day: date, months: int) -> date:
    """`day` moved by whole months, the day of month clamped to the target month's length."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    return date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def period_start(day: date, unit: str) -> date:
    """The first day of the calendar week (Monday), month, quarter or year holding `day`."""
    if unit == "week":
        return day - timedelta(days=day.weekday())
    if unit == "month":
        return day.replace(day=1)
    if unit == "quarter":
        return date(day.year, 3 * ((day.month - 1) // 3) + 1, 1)
    if unit == "year":
        return date(day.year, 1, 1)
    return day


def back(day: date, unit: str, n: int) -> date:
    """`day` moved back by n units."""
    if unit in ("day", "week"):
        return day - timedelta(days=n * (7 if unit == "week" else 1))
    return add_months(day, -n * {"month": 1, "quarter": 3, "year": 12}[unit])


def _at(tokens: list[Token], i: int) -> Token | None:
    return tokens[i] if 0 <= i < len(tokens) else None


def _word(tok: Token) -> str:
    """The lower-case word without a possessive ("year's" → "year")."""
    return tok.low.replace("’", "'").removesuffix("'s")


def _count(tok: Token | None) -> int | None:
    value = tok.number if tok is not None else None
    return int(value) if isinstance(value, int | float) and value == int(value) and value > 0 else None


def _interval(tokens: list[Token], i: int, ref: date) -> tuple[date, date, int] | None:
    """The interval of the phrase starting at token i: (start, end exclusive, next index)."""
    words = [_word(t) for t in tokens[i : i + 3]] + ["", "", ""]
    end = ref + _DAY
    if words[0] in ("today", "yesterday"):
        day = ref if words[0] == "today" else ref - _DAY
        return day, day + _DAY, i + 1
    if words[0] in _TO_DATE:
        return period_start(ref, _TO_DATE[words[0]]), end, i + 1
    unit = _UNITS.get(words[0])
    if unit and unit != "day" and words[1:3] == ["to", "date"]:
        return period_start(ref, unit), end, i + 3
    n, unit_n = _count(_at(tokens, i)), _UNITS.get(words[1])
    if n and unit_n and words[2] == "ago" and unit_n == "day":
        return ref - timedelta(days=n), ref - timedelta(days=n) + _DAY, i + 3
    if words[0] in ("last", "past", "previous"):
        n, unit_n = _count(_at(tokens, i + 1)), _UNITS.get(words[2])
        if n and unit_n and n <= 1000:
            return back(end, unit_n, n), end, i + 3
        unit = _UNITS.get(words[1])
        if unit and words[0] == "past":
            return back(end, unit, 1), end, i + 2
        if unit and unit != "day":
            start = period_start(back(period_start(ref, unit), unit, 1), unit)
            return start, period_start(ref, unit), i + 2
    if words[0] in ("this", "current") and _UNITS.get(words[1]) and words[1] != "day":
        return period_start(ref, _UNITS[words[1]]), end, i + 2
    return None


def span_text(cond: DateCond) -> str:
    """The days of a resolved condition: "2026-11-30", or "2026-11-01 to 2026-11-30"."""
    if cond.start is None or cond.end is None:
        return cond.text
    last = cond.end - _DAY
    return cond.start.isoformat() if last == cond.start else f"{cond.start} to {last}"


def find_relative(tokens: list[Token], ref: date, taken: set[int]) -> list[DateCond]:
    """Every relative date phrase of the question resolved against `ref`, left to right."""
    out: list[DateCond] = []
    i = 0
    while i < len(tokens):
        got = None if i in taken else _interval(tokens, i, ref)
        if got is None:
            i += 1
            continue
        start, end, j = got
        first = i
        if first > 0 and tokens[first - 1].low == "the":
            first -= 1
        if first > 0 and tokens[first - 1].low in _LEADS:
            first -= 1
        text = " ".join(t.text for t in tokens[i:j])
        out.append(DateCond(tuple(range(first, j)), text, start, end))
        i = j
    return out
