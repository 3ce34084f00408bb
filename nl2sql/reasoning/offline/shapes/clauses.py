"""The WHERE / HAVING clauses of a question: anti-joins for negations, value, numeric and date
conditions, and how "or" / "and" combine them (see `negation.py`, `conditions.py`,
`combine.py`).
"""

from __future__ import annotations

from nl2sql.reasoning.offline.shapes.combine import Combination
from nl2sql.reasoning.offline.shapes.comparisons import numeric_conditions
from nl2sql.reasoning.offline.shapes.conditions import value_conditions
from nl2sql.reasoning.offline.shapes.date_conditions import date_conditions
from nl2sql.reasoning.offline.shapes.spec import Agg, Cond, Query, Unclear
from nl2sql.reasoning.offline.words.numeric import NumCue


def _check_nested_scope(conds: list[Cond]) -> None:
    """A condition after "… than the average" may restrict the average instead: refuse."""
    for c in conds:
        if c.values and isinstance(c.values[0], Query) and any(o.pos > c.pos for o in conds):
            raise Unclear(
                f"could not tell whether the conditions after '{c.text}' restrict the rows "
                "or the rows the aggregate is taken over"
            )


class Clauses(Combination):
    """Fills a query's conditions from the question's values, numbers and dates."""

    # --- helpers ----------------------------------------------------------------------------
    def conditions(self, q: Query) -> list[tuple[NumCue, Agg]]:
        """Fill q.where (and anti-joins); return (cue, aggregate) pairs that need HAVING."""
        no_values, no_nums, no_dates = self.negated_conditions(q)
        values = [v for v in self.link.values if v.start not in no_values]
        conds, notes, penalty = value_conditions(
            values, self.mentions, self.res, self.tokens, self.used, self.replace
        )
        self.notes += notes
        self.penalty += penalty
        nconds, having = numeric_conditions(
            [c for c in self.scan.nums if c.start not in no_nums],
            self.mentions,
            self.res,
            self.tokens,
            self.used,
            values,
        )
        dates = date_conditions(
            [d for d in self.scan.dates if not d.tokens or min(d.tokens) not in no_dates],
            self.mentions,
            self.res,
            q.root,
            self.tokens,
            self.used,
            self.notes,
        )
        q.where += self.combine(q, conds + nconds + dates)
        _check_nested_scope(q.where)
        return having
