"""The pre-scan of a question: dates, the row limit and numeric comparisons, before linking.

Their words are "taken" so that linking does not read "2024" as a value or "over" as a name.
A run scans its question several times (answerability, decomposition, planning, the answer):
the findings are kept for the latest questions, each caller gets containers of its own.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from datetime import date

from nl2sql.reasoning.offline.words.cues import find_limit, scale_span
from nl2sql.reasoning.offline.words.dates import DateCond, find_dates, relative_date_words
from nl2sql.reasoning.offline.words.lexicon import UNITS
from nl2sql.reasoning.offline.words.numeric import NumCue, find_numeric
from nl2sql.reasoning.offline.words.relative import find_relative
from nl2sql.reasoning.offline.words.text import Token, canon, tokenize


@dataclass
class Scan:
    tokens: list[Token]
    dates: list[DateCond] = field(default_factory=list)
    nums: list[NumCue] = field(default_factory=list)
    limit: tuple[int | None, int | None, str | None] = (None, None, None)
    taken: set[int] = field(default_factory=set)
    relative: list[str] = field(default_factory=list)
    units: dict[int, tuple[tuple[str, ...], int]] = field(
        default_factory=dict
    )  # number -> (measure, end)
    resolved: list[DateCond] = field(default_factory=list)  # the relative dates among `dates`


def scan(text: str, reference: date | None = None) -> Scan:
    """Tokenize `text` and find its dates, limit and numeric comparisons; relative dates are
    resolved against `reference` (without one they are only reported, in `relative`)."""
    found = _scanned(text, reference)
    # The findings are frozen values (tokens, date and numeric cues): new containers suffice.
    return Scan(list(found.tokens), list(found.dates), list(found.nums), found.limit, set(found.taken),
                list(found.relative), dict(found.units), list(found.resolved))


@functools.lru_cache(maxsize=256)
def _scanned(text: str, reference: date | None) -> Scan:
    """The scan itself, kept by (text, reference): never hand it out, `scan` copies it."""
    tokens = tokenize(text)
    dates = find_dates(tokens)
    taken = {i for d in dates for i in d.tokens}
    resolved = find_relative(tokens, reference, taken) if reference else []
    dates = sorted(dates + resolved, key=lambda d: min(d.tokens, default=0))
    taken |= {i for d in resolved for i in d.tokens} | set(scale_span(tokens))
    limit = find_limit(tokens, taken)
    if limit[1] is not None:
        taken.add(limit[1])
    units = find_units(tokens)
    taken |= {i for n, (_, end) in units.items() for i in range(n + 1, end)}
    nums = [_with_unit(c, units) for c in find_numeric(tokens, taken)]
    relative = relative_date_words(tokens, frozenset(taken))
    return Scan(tokens, dates, nums, limit, taken, relative, units, resolved)


def find_units(tokens: list[Token]) -> dict[int, tuple[tuple[str, ...], int]]:
    """Numbers followed by a unit ("3 years old", "10 lbs"): number index -> (measure, end)."""
    out = {}
    for tok in tokens:
        if tok.kind != "number":
            continue
        for words, measure in UNITS.items():
            got = tuple(t.low for t in tokens[tok.index + 1 : tok.index + 1 + len(words)])
            if got == words:
                out[tok.index] = (tuple(canon(w) for w in measure), tok.index + 1 + len(words))
                break
    # "either 32 or 33 years old": the unit of the last number applies to the ones before it
    for n in sorted(out, reverse=True):
        k = n - 2
        while k >= 0 and tokens[k].kind == "number" and tokens[k + 1].low in ("or", "and", ","):
            out.setdefault(k, (out[n][0], k + 1))
            k -= 2
    return out


def _with_unit(cue: NumCue, units: dict[int, tuple[tuple[str, ...], int]]) -> NumCue:
    """A comparison ending in a number with a unit names its measure and covers the unit."""
    unit = units.get(cue.end - 1)
    if unit is None:
        return cue
    return replace(cue, measure=cue.measure or unit[0], end=unit[1])


def bare_numbers(s: Scan, value_spans: list[tuple[int, int]]) -> list[NumCue]:
    """Numbers no cue explained ("price 20"): read as equality, on the column named before them."""
    inside = {i for a, b in value_spans for i in range(a, b)}
    out = []
    for tok in s.tokens:
        value = tok.number  # never None for a number token
        if (
            tok.kind == "number"
            and value is not None
            and tok.index not in s.taken
            and tok.index not in inside
        ):
            measure, end = s.units.get(tok.index, ((), tok.index + 1))
            out.append(NumCue("=", value, None, tok.index, end, tok.text, measure=measure))
    return out
