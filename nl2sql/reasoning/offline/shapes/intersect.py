"""Rule: rows having both of two conditions no single row meets ("members who borrowed both
Fantasy and History books") — the query runs once per condition and the results are intersected.

`combine.combine` finds the pair while the shape fills the WHERE clause and keeps only the first
of the two in it; this rule adds the second query. A "both" whose pair was not found is refused:
answering with one of the two conditions, or with both on one row, would be wrong.
"""

from __future__ import annotations

import copy

from nl2sql.reasoning.offline.shapes.spec import Agg, Unclear
from nl2sql.reasoning.offline.shapes.state import Analysis


def intersect_both(a: Analysis) -> None:
    """Rule: INTERSECT the query with its copy on the second condition of the split pair."""
    q = a.result()
    if a.intersection is None:
        if any(t.low == "both" for t in a.question.tokens):
            raise Unclear("could not tell which two conditions 'both … and …' joins")
        return
    left, right = a.intersection
    if any(isinstance(t, Agg) for t, _ in q.select) or q.group:
        raise Unclear(
            f"'{left.text}' and '{right.text}' need rows having both; "
            "counting or aggregating such rows is not supported"
        )
    other = copy.deepcopy(q)
    position = q.where.index(left)
    other.where[position] = right
    other.order, other.limit = [], None
    q.set_op = ("intersect", other)
    a.notes.append(f"rows with '{left.text}' intersected with rows with '{right.text}'")
