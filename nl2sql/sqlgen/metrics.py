"""A semantic-layer metric's expression as a sqlglot tree, parsed once per expression.

The layer check (`semantic/check.py`) and the generator parse a metric the same way: in the
dialect of the source it is declared for, so what was checked is what is rendered.
"""

from __future__ import annotations

from functools import lru_cache

import sqlglot
from sqlglot import exp

from nl2sql.dialects import dialect_name


def metric_tree(expression: str, dialect: str | None) -> exp.Expr:
    """The parsed `expression` (a fresh copy: callers may change it); sqlglot's ParseError when
    it does not parse."""
    return _parsed(expression, dialect).copy()


def repeats_with_rows(expression: str, dialect: str | None) -> bool:
    """Whether the metric's value changes when a join repeats its rows: it sums, averages or
    counts (not DISTINCT); MIN, MAX and COUNT(DISTINCT) do not."""
    return any(isinstance(n, exp.Sum | exp.Avg)
               or (isinstance(n, exp.Count) and not isinstance(n.this, exp.Distinct))
               for n in _parsed(expression, dialect).find_all(exp.AggFunc))


@lru_cache(maxsize=256)
def _parsed(expression: str, dialect: str | None) -> exp.Expr:
    return sqlglot.parse_one(expression, read=dialect_name(dialect) if dialect else None)
