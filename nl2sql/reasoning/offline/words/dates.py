"""Date expressions in a question: years, months, quarters, ISO days, and their prepositions.

Every condition becomes a half-open interval [start, end) of calendar days, or a part-of-year
condition ("in March" → month = 3) when no year is given. Relative dates ("today", "last month")
are resolved against the run's reference date in `relative.py`; the words left that depend on
the day the question is asked ("tomorrow", "recently") are reported by `relative_date_words`.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date, timedelta

from nl2sql.reasoning.offline.words.text import Token

MONTHS = {
    name: i
    for i in range(1, 13)
    for name in (calendar.month_name[i].lower(), calendar.month_abbr[i].lower())
}
MONTHS["sept"] = 9
_ORDINAL = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "1st": 1,
    "2nd": 2,
    "3rd": 3,
    "4th": 4,
}
_RELATIVE = {"today", "yesterday", "tomorrow", "tonight", "recent", "recently", "ago", "currently"}
_RELATIVE_UNITS = {"week", "weeks", "month", "months", "year", "years", "quarter", "day", "days"}
_RELATIVE_LEAD = {"last", "this", "next", "past", "previous", "current", "coming"}
_BEFORE = {"before", "prior", "until", "till", "through", "thru"}
_AFTER = {"after", "since", "starting"}


@dataclass(frozen=True)
class DateCond:
    """A date condition: [start, end) days, or a part of the year (month / quarter)."""

    tokens: tuple[int, ...]
    text: str
    start: date | None = None
    end: date | None = None  # exclusive
    part: str | None = None  # "month" | "quarter" when no year was given
    part_value: int | None = None
    year: int | None = None  # set when the condition is exactly one calendar year


#: A period: (start, end exclusive, next token index, part of the year, its value, year).
Period = tuple[date | None, date | None, int, str | None, int | None, int | None]


def _year(tok: Token | None) -> int | None:
    if tok is None or tok.kind != "number" or "." in tok.text or "," in tok.text:
        return None
    value = int(tok.text)
    return value if 1900 <= value <= 2100 and len(tok.text) == 4 else None


def _month_end(year: int, month: int) -> date:
    return date(year + (month == 12), month % 12 + 1, 1)


def _at(tokens: list[Token], i: int) -> Token | None:
    return tokens[i] if 0 <= i < len(tokens) else None


def _period(tokens: list[Token], i: int, allow_bare_year: bool) -> Period | None:
    """A period starting at token i: (start, end_excl, next_index, part, part_value, year)."""
    tok = tokens[i]
    if tok.kind == "date":
        try:
            day = date.fromisoformat(tok.text)
        except ValueError:  # "2024-02-30" is no day: the words stay unexplained
            return None
        return day, day + timedelta(days=1), i + 1, None, None, None
    if tok.low in MONTHS and (tok.low != "may" or _year(_at(tokens, i + 1))):
        return _month_period(tokens, i)
    day_first = _day_first(tokens, i)
    if day_first is not None:
        return day_first
    quarter, j = _quarter(tokens, i)
    if quarter:
        if (_at(tokens, j) or tok).low == "of":
            j += 1
        year = _year(_at(tokens, j))
        if year:
            start = date(year, 3 * quarter - 2, 1)
            return start, _month_end(year, 3 * quarter), j + 1, None, None, None
        return None, None, j, "quarter", quarter, None
    year = _year(tok)
    if year and allow_bare_year:
        return date(year, 1, 1), date(year + 1, 1, 1), i + 1, None, None, year
    return None


_ORDINAL_ENDINGS = frozenset("st nd rd th".split())


def _day_first(tokens: list[Token], i: int) -> Period | None:
    """A day written before its month and year: "1 January 2000", "15th of May, 2024"."""
    tok = tokens[i]
    if tok.kind != "number" or _year(tok) is not None or not tok.text.isdigit():
        return None
    j = i + 1
    for skip in (_ORDINAL_ENDINGS, {"of"}):
        if (_at(tokens, j) or tok).low in skip:
            j += 1
    month_tok = _at(tokens, j)
    if month_tok is None or month_tok.low not in MONTHS:
        return None
    j += 1
    if (_at(tokens, j) or tok).kind == "punct":
        j += 1
    year, month, day_no = _year(_at(tokens, j)), MONTHS[month_tok.low], int(tok.text)
    if year is None or not 1 <= day_no <= calendar.monthrange(year, month)[1]:
        return None
    day = date(year, month, day_no)
    return day, day + timedelta(days=1), j + 1, None, None, None


def _month_period(tokens: list[Token], i: int) -> Period | None:
    """A month with its year ("March 2024", "March 5, 2024"), or a bare month (a part of the year)."""
    tok = tokens[i]
    month, j = MONTHS[tok.low], i + 1
    nxt = _at(tokens, j)
    if (
        nxt is not None
        and nxt.kind == "number"
        and _year(nxt) is None
        and int(float(nxt.text)) <= 31
    ):
        day_no, j = int(float(nxt.text)), j + 1  # "March 5, 2024"
        if (_at(tokens, j) or tok).kind == "punct":
            j += 1
        year = _year(_at(tokens, j))
        if year and day_no <= calendar.monthrange(year, month)[1] and day_no >= 1:
            day = date(year, month, day_no)
            return day, day + timedelta(days=1), j + 1, None, None, None
        return None
    if nxt is not None and nxt.low == "of":
        j += 1
    year = _year(_at(tokens, j))
    if year:
        return date(year, month, 1), _month_end(year, month), j + 1, None, None, None
    return None, None, i + 1, "month", month, None


def _quarter(tokens: list[Token], i: int) -> tuple[int | None, int]:
    tok = tokens[i]
    if tok.low in ("q1", "q2", "q3", "q4"):
        return int(tok.low[1]), i + 1
    nxt = _at(tokens, i + 1)
    if tok.low in _ORDINAL and nxt is not None and nxt.low == "quarter" and _ORDINAL[tok.low] <= 4:
        return _ORDINAL[tok.low], i + 2
    return None, i


def _year_context(tokens: list[Token], i: int) -> bool:
    """A bare 4-digit number is a year after a date preposition or the word 'year'."""
    prev = _at(tokens, i - 1)
    prev2 = _at(tokens, i - 2)
    lead = {"in", "during", "of", "for", "year", "within", "throughout", "and", "to", "from", "on",
            "or"}  # fmt: skip
    lead |= _BEFORE | _AFTER | {"between"}
    if prev is not None and prev.low in lead:
        if prev.low not in ("and", "to", "or"):
            return True
        return prev2 is not None and (_year(prev2) is not None or prev2.low in ("prior", "up"))
    return prev is not None and prev.low == "the" and prev2 is not None and prev2.low in lead


def find_dates(tokens: list[Token]) -> list[DateCond]:
    """Every date condition of the question, left to right; their tokens are consumed."""
    out: list[DateCond] = []
    i = 0
    while i < len(tokens):
        p = _period(tokens, i, _year_context(tokens, i))
        if p is None:
            i += 1
            continue
        cond, i = _with_preposition(tokens, i, p)
        out.append(_open_ended(tokens, cond, i))
        i += 2 if out[-1] is not cond else 0
    return out


def _open_ended(tokens: list[Token], cond: DateCond, i: int) -> DateCond:
    """ "2014 or after" / "2014 or later": from the period's start on; "or before": up to its end."""
    words = tuple(t.low for t in tokens[i : i + 2])
    if cond.start is None or cond.end is None or len(words) < 2 or words[0] != "or":
        return cond
    used = cond.tokens + (i, i + 1)
    text = f"{cond.text} {tokens[i].text} {tokens[i + 1].text}"
    if words[1] in ("after", "later", "since", "onwards", "more"):
        return DateCond(used, text, cond.start, None)
    if words[1] in ("before", "earlier"):
        return DateCond(used, text, None, cond.end)
    return cond


def _with_preposition(tokens: list[Token], i: int, p: Period) -> tuple[DateCond, int]:
    start, end, j, part, part_value, year = p
    at = i - 1 if i > 0 and tokens[i - 1].low == "the" and _day_first(tokens, i) else i
    lead = [k for k in (at - 1, at - 2) if k >= 0]  # "before the 3rd of March": the skipped
    words = [tokens[k].low for k in lead]
    first = lead[0] if lead else i
    if part is not None:
        used = (first,) if words and words[0] in ("in", "during") else ()
        return DateCond(
            used + tuple(range(i, j)), _text(tokens, i, j), part=part, part_value=part_value
        ), j
    # "between P1 and P2", "from P1 to P2"
    sep = _at(tokens, j)
    if (
        words
        and words[0] in ("between", "from")
        and sep is not None
        and sep.low in ("and", "to", "through", "until")
    ):
        second = _at(tokens, j + 1) and _period(tokens, j + 1, True)
        if second and second[3] is None:
            k = second[2]
            return DateCond(tuple(range(first, k)), _text(tokens, first, k), start, second[1]), k
    if words[:2] in (["to", "prior"], ["to", "up"]):
        first = i - 2
        bound = start if words[1] == "prior" else end
        return DateCond(tuple(range(first, j)), _text(tokens, first, j), None, bound), j
    if words and words[0] in _BEFORE - {"through", "thru", "until", "till"}:
        return DateCond(tuple(range(first, j)), _text(tokens, first, j), None, start), j
    if words and words[0] in ("through", "thru", "until", "till"):
        return DateCond(tuple(range(first, j)), _text(tokens, first, j), None, end), j
    if words and words[0] == "after":
        return DateCond(tuple(range(first, j)), _text(tokens, first, j), end, None), j
    if words and words[0] in _AFTER:
        return DateCond(tuple(range(first, j)), _text(tokens, first, j), start, None), j
    begin = (
        first
        if words and words[0] in ("in", "during", "on", "for", "within", "throughout", "from")
        else i
    )
    return DateCond(tuple(range(begin, j)), _text(tokens, begin, j), start, end, year=year), j


def _text(tokens: list[Token], i: int, j: int) -> str:
    return " ".join(t.text for t in tokens[i:j])


def _state_now(tok: Token, nxt: Token | None) -> bool:
    """ "currently active", "currently enrolled": the present state an adjective or participle
    says, which the data holds as it is now (a flag, a status) — no period to date."""
    if tok.low != "currently" or nxt is None or nxt.kind != "word":
        return False
    from nl2sql.reasoning.offline.words.text import is_past_participle, parts_of_speech

    return "ADJ" in parts_of_speech(nxt.low) or is_past_participle(nxt.low)


def relative_date_words(tokens: list[Token], taken: frozenset[int] = frozenset()) -> list[str]:
    """Words that make a date relative to today ("today", "last month", "3 days ago"), outside
    the `taken` tokens; "most recent(ly)" is a superlative on a date, not a relative date."""
    found: list[str] = []
    for k, tok in enumerate(tokens):
        nxt, prev = _at(tokens, k + 1), _at(tokens, k - 1)
        if k in taken or (tok.low in ("recent", "recently") and prev is not None
                          and prev.low in ("most", "least")):
            continue
        if tok.low in _RELATIVE and not _state_now(tok, nxt):
            found.append(tok.text)
        elif tok.low in _RELATIVE_LEAD and nxt is not None and nxt.low in _RELATIVE_UNITS:
            found.append(f"{tok.text} {nxt.text}")
    return found
