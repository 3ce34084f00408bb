"""Execution accuracy, as Spider's test-suite evaluation defines it.

A prediction is correct when its result equals the gold result as a multiset of rows. Row order
matters only when the gold query has a top-level ORDER BY. Column names never matter and column
order does not either: the predicted columns may be any permutation of the gold ones (the same
number of columns is required). Values are compared after normalization: numbers (and text that
is exactly a number, because SQLite columns are dynamically typed and a mixed column reaches the
pipeline's result as text) compare with a relative tolerance of about 1e-9, booleans as 0/1,
dates as ISO text.

    >>> results_match([(1, "a")], [("a", 1.0)], ordered=False).correct
    True
    >>> results_match([(1,), (1,)], [(1,)], ordered=False).reason
    'row count 1, expected 2'
"""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import sqlglot

Row = tuple[Any, ...]
_SIGNIFICANT = 10  # digits kept of a float: absorbs SUM/AVG rounding noise across engines


@dataclass(frozen=True)
class Match:
    """Whether a prediction matches the gold result, and why not."""

    correct: bool
    reason: str = ""


def order_matters(gold_sql: str) -> bool:
    """True when the gold query's outermost statement has ORDER BY (a sub-query's does not count)."""
    try:
        root = sqlglot.parse_one(gold_sql, read="sqlite")
    except sqlglot.errors.ParseError:
        return "order by" in " ".join(gold_sql.lower().split())
    return root.args.get("order") is not None


def normalize(value: Any) -> Any:
    """A hashable, engine-independent form of one value (see the module docstring)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float | Decimal):
        return _number(float(value)) if not isinstance(value, int) else value
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return str(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    if isinstance(value, str):
        return _numeric_text(value)
    return str(value)


def _number(x: float) -> Any:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return x
    if x == int(x) and abs(x) < 2**53:
        return int(x)
    return float(f"{x:.{_SIGNIFICANT}g}")


def _numeric_text(text: str) -> Any:
    stripped = text.strip()
    if not stripped or stripped[0] not in "+-.0123456789":
        return text
    try:
        x = float(stripped)
    except ValueError:
        return text
    return _number(x) if math.isfinite(x) else text


def normalize_rows(rows: Sequence[Sequence[Any]]) -> list[Row]:
    """Every value of every row normalized."""
    return [tuple(normalize(v) for v in row) for row in rows]


def results_match(
    gold: Sequence[Sequence[Any]], predicted: Sequence[Sequence[Any]], *, ordered: bool
) -> Match:
    """Compare two results (lists of rows); `ordered` when the gold query has ORDER BY."""
    g, p = normalize_rows(gold), normalize_rows(predicted)
    if not g and not p:
        return Match(True)
    if len(g) != len(p):
        return Match(False, f"row count {len(p)}, expected {len(g)}")
    width_g, width_p = len(g[0]), len(p[0])
    if width_g != width_p:
        return Match(False, f"{width_p} column(s), expected {width_g}")
    for perm in _permutations(g, p):
        q = [tuple(row[j] for j in perm) for row in p]
        if (q == g) if ordered else (Counter(q) == Counter(g)):
            return Match(True)
        if ordered and Counter(q) == Counter(g):
            return Match(False, "same rows in another order")
    return Match(False, "values differ")


def _permutations(g: list[Row], p: list[Row]) -> Iterator[tuple[int, ...]]:
    """Column permutations of the prediction whose columns hold the gold columns' values.

    A gold column can only be matched by a predicted column with the same multiset of values,
    which prunes the search to (almost always) one candidate per column.
    """
    width = len(g[0])
    gold_cols = [Counter(row[i] for row in g) for i in range(width)]
    pred_cols = [Counter(row[j] for row in p) for j in range(width)]
    options = [[j for j in range(width) if pred_cols[j] == gold_cols[i]] for i in range(width)]
    if any(not o for o in options):
        return
    yield from _assign(options, 0, [])


def _assign(options: list[list[int]], i: int, chosen: list[int]) -> Iterator[tuple[int, ...]]:
    if i == len(options):
        yield tuple(chosen)
        return
    for j in options[i]:
        if j not in chosen:
            yield from _assign(options, i + 1, chosen + [j])
