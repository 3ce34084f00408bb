"""The pre-scan of a question: dates, the row limit and numeric comparisons, before linking.

Their words are "taken" so that linking does not read "2024" as a value or "over" as a name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nl2sql.reasoning.offline.cues import find_limit, scale_span
from nl2sql.reasoning.offline.dates import DateCond, find_dates, relative_date_words
from nl2sql.reasoning.offline.numeric import NumCue, find_numeric
from nl2sql.reasoning.offline.text import Token, tokenize


@dataclass
class Scan:
    tokens: list[Token]
    dates: list[DateCond] = field(default_factory=list)
    nums: list[NumCue] = field(default_factory=list)
    limit: tuple[int | None, int | None, str | None] = (None, None, None)
    taken: set[int] = field(default_factory=set)
    relative: list[str] = field(default_factory=list)


def scan(text: str) -> Scan:
    """Tokenize `text` and find its dates, limit and numeric comparisons."""
    tokens = tokenize(text)
    dates = find_dates(tokens)
    taken = {i for d in dates for i in d.tokens} | set(scale_span(tokens))
    limit = find_limit(tokens, taken)
    if limit[1] is not None:
        taken.add(limit[1])
    nums = find_numeric(tokens, taken)
    return Scan(tokens, dates, nums, limit, taken, relative_date_words(tokens))


def bare_numbers(s: Scan, value_spans: list[tuple[int, int]]) -> list[NumCue]:
    """Numbers no cue explained ("price 20"): read as equality, on the column named before them."""
    inside = {i for a, b in value_spans for i in range(a, b)}
    out = []
    for tok in s.tokens:
        if tok.kind == "number" and tok.index not in s.taken and tok.index not in inside:
            out.append(NumCue("=", tok.number, None, tok.index, tok.index + 1, tok.text))
    return out
