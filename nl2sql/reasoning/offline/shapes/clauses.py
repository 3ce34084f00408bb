"""The WHERE / HAVING clauses of a question: anti-joins for negations, value, numeric and date
conditions, and how "or" / "and" combine them (see `negation.py`, `conditions.py`,
`comparisons.py`, `date_conditions.py`, `combine.py`). Every shape calls `conditions` once, after
it has chosen the query's root table.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.shapes.combine import combine
from nl2sql.reasoning.offline.shapes.comparisons import numeric_conditions
from nl2sql.reasoning.offline.shapes.conditions import value_conditions
from nl2sql.reasoning.offline.shapes.date_conditions import GUESSED_DATE_PENALTY, date_conditions
from nl2sql.reasoning.offline.shapes.flags import flag_conditions
from nl2sql.reasoning.offline.shapes.negation import negated_conditions
from nl2sql.reasoning.offline.shapes.spec import Agg, Cond, Query, Unclear
from nl2sql.reasoning.offline.shapes.state import Analysis
from nl2sql.reasoning.offline.words.numeric import NumCue


def conditions(a: Analysis, q: Query) -> list[tuple[NumCue, Agg]]:
    """Fill q.where (and anti-joins); return (cue, aggregate) pairs that need HAVING."""
    question = a.question
    mentions, tokens, scan = question.mentions, question.tokens, question.scan
    # what an anti-join took is not a condition of the outer rows as well
    no_values, no_nums, no_dates = negated_conditions(a, q)
    flags = flag_conditions(a, q)
    values = [v for v in question.linking.values if v.start not in no_values]
    conds, notes, penalty = value_conditions(
        values, mentions, a.res, tokens, a.used, question.replace
    )
    a.notes += notes
    a.penalty += penalty
    nconds, having = numeric_conditions(
        [c for c in scan.nums if c.start not in no_nums], mentions, a.res, tokens, a.used, values
    )
    dates, guessed = date_conditions(
        [d for d in scan.dates if not d.tokens or min(d.tokens) not in no_dates],
        mentions,
        a.res,
        q.root,
        tokens,
        a.used,
        a.notes,
    )
    a.penalty += GUESSED_DATE_PENALTY * guessed
    q.where += combine(a, q, flags + conds + nconds + dates)
    _check_nested_scope(q.where)
    return having


def _check_nested_scope(conds: list[Cond]) -> None:
    """A condition after "… than the average" may restrict the average instead: refuse."""
    for c in conds:
        if c.values and isinstance(c.values[0], Query) and any(o.pos > c.pos for o in conds):
            raise Unclear(
                f"could not tell whether the conditions after '{c.text}' restrict the rows "
                "or the rows the aggregate is taken over"
            )
