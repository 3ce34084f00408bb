"""Rule: choose the question's shape and read it into the query (`Analysis.query`).

Shapes, tried in this order:
- ranking (`ranking.py`): "the book with the maximum price" (an extreme that picks a row); "top N
  X by M", "which N X have the highest M", "the X with the most Y" — a limit or a superlative
  that ranks rows, unless an explicit order cue without a limit asks for a sorted list;
- aggregate (`aggregate.py`): the measure `measures.read_measure` found, or "what is the highest
  M" (MAX of the column after the superlative);
- listing (`listing.py`): everything else.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.linking.linker import Mention
from nl2sql.reasoning.offline.shapes.aggregate import aggregate
from nl2sql.reasoning.offline.shapes.listing import listing
from nl2sql.reasoning.offline.shapes.measures import extreme_measure, extreme_of_entity
from nl2sql.reasoning.offline.shapes.ranking import rank, ranks_entities
from nl2sql.reasoning.offline.shapes.spec import Agg, Query, Unclear
from nl2sql.reasoning.offline.shapes.state import Analysis
from nl2sql.reasoning.offline.words import cues as C
from nl2sql.reasoning.offline.words.cues import Superlative


def read_shape(a: Analysis) -> None:
    """Rule: the query of the first shape that fits (see module)."""
    a.query = _shape(a)


def _shape(a: Analysis) -> Query:
    tokens, limit = a.question.tokens, a.question.scan.limit
    measure, m_m = a.measure, a.measure_mention
    idx = a.question.idx
    dates = [m for m in a.question.mentions
             if m.columns() and all(idx.kind(e.table, e.column or "") == "date" for e in m.columns())]
    # where "first" / "last" rank by a date: before a table's name, around a date's ("last filled")
    tables = ({m.start for m in a.question.mentions if a.res.table(m)}
              | {m.end for m in dates} | {m.start for m in dates})
    sup = C.superlative(tokens, a.question.named, tables)
    extreme = extreme_of_entity(a, measure)
    if measure is not None and extreme is not None:
        # "the book with the maximum price": rank books, not aggregate
        return rank(a, measure.col, m_m, extreme)
    ordered = C.order_cue(tokens) is not None and limit[0] is None
    if not ordered and (limit[0] is not None or (sup is not None and ranks_entities(a, sup, m_m))):
        _refuse_count_of_ranked(a, measure, m_m, sup)
        if a.quantity and m_m is not None:
            # "how many pages does the book with the lowest price have": the value
            # of the ranked row, not a sum
            a.used.discard(m_m.start)
            a.quantity, measure, m_m = False, None, None
        return rank(a, measure, m_m, sup)
    if measure is None and sup is not None:
        measure, m_m = extreme_measure(a, sup)
    if measure is not None:
        return aggregate(a, measure)
    return listing(a)


def _refuse_count_of_ranked(
    a: Analysis, measure: Agg | None, m_m: Mention | None, sup: Superlative | None
) -> None:
    """ "the number of loans in the branch with the most copies": a count over the rows of one
    ranked entity needs a nested query."""
    if (
        measure is not None
        and measure.func == "count"
        and sup is not None
        and m_m is not None
        and sup[1] > m_m.end
    ):
        raise Unclear(
            f"counting rows of the entity picked by '{a.question.tokens[sup[1]].text} …' "
            "(a nested query) is not supported"
        )
