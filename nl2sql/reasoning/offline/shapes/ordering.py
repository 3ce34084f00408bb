"""Ordering: an explicit ORDER BY cue ("sorted by price", "in descending order of age") or a
scale ("from the oldest to the youngest", which orders by the measure the adjective names).

The shapes call `order_request` before they read projections (so the sort key is not shown as a
column asked for), then `finish_order` once the select list is known.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.shapes.roles import MEASURE_WORDS, outputs
from nl2sql.reasoning.offline.shapes.spec import Agg, Col, Query, Target, Unclear
from nl2sql.reasoning.offline.shapes.state import Analysis
from nl2sql.reasoning.offline.words import cues as C

OrderRequest = tuple[Col | None, str | None]


def order_request(a: Analysis) -> OrderRequest | None:
    """The ORDER BY cue and the column named after it; resolve it before projections."""
    tokens = a.question.tokens
    oc = C.order_cue(tokens)
    if oc is None:
        return _scale_order(a)
    start, end, direction = oc
    m = a.next_mention(end, within=3)
    col = a.res.column(m) if m is not None else None
    if (
        m is not None
        and col is None
        and (table := a.res.table(m)) is not None
        and not any(t.low in MEASURE_WORDS for t in tokens[end : m.start])
    ):
        # "sorted by the supplier": a table named as the sort key is sorted by its label,
        # never read as the count of its rows
        col = next((c for c in outputs(a, table)[1] if isinstance(c, Col)), None)
    if m is not None and col is not None:
        a.used.add(m.start)
    elif tokens[end - 1].low == "by" and a.question.unknown_between(
        end, min(end + 3, len(tokens))
    ):
        raise Unclear(
            f"could not tell what to order by: {a.question.unknown_between(end, len(tokens))}"
        )
    if direction is None:  # "ordered by age from the oldest to the youngest"
        sup = C.superlative(tokens[end:], set())
        direction = sup[0] if sup else None
    return col, direction


def _scale_order(a: Analysis) -> tuple[Col | None, str] | None:
    """ "from the oldest to the youngest" alone: order by the measure the adjective names."""
    found = C.scale_order(a.question.tokens)
    if found is None or found[2] is None:
        return None
    col = a.res.measure_column(found[2], [])
    if col is None:
        raise Unclear("could not tell which column orders 'from … to …'")
    return col, found[1]


def finish_order(
    q: Query, request: OrderRequest | None, default: list[Target] | None = None
) -> list[tuple[Target, str]]:
    """ORDER BY items: the named column, else the aggregate, else the first shown column."""
    if request is None:
        return []
    col, direction = request
    if col is not None:
        return [(col, direction or "asc")]
    aggregates = [t for t, _ in q.select if isinstance(t, Agg)]
    first = aggregates[:1] or [t for t, _ in q.select][:1] or (default or [])[:1]
    if not first:
        raise Unclear("could not tell what to order by")
    return [(first[0], direction or "asc")]
