"""A count of entities filtered by a per-entity count or metric: a sub-query.

"How many chefs cooked at more than 2 festivals" has one total row, so the comparison cannot be a
HAVING of the outer query: it becomes `key IN (SELECT fk FROM other GROUP BY fk HAVING COUNT(*) op
n)`, or `HAVING <metric> op n` over the entities' own keys for a metric of a table further away.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.catalog.index import FKEdge, SchemaIndex
from nl2sql.reasoning.offline.shapes.comparisons import num_cond
from nl2sql.reasoning.offline.shapes.spec import Agg, Col, Query, Unclear
from nl2sql.reasoning.offline.words.numeric import NumCue


def having_subquery(
    idx: SchemaIndex, q: Query, measure: Agg, having: list[tuple[NumCue, Agg]]
) -> None:
    """COUNT of entities WHERE key IN (SELECT fk FROM other GROUP BY fk HAVING COUNT(*) op n),
    or HAVING <metric> op n ("how many outlets have turnover above 100")."""
    if len(having) != 1 or measure.col is not None:
        raise Unclear("could not combine a count with several per-row count conditions")
    cue, compared = having[0]
    table = compared.table
    edge = _reference(idx, table, q.root)
    key = idx.pk(q.root)
    if edge is None and compared.metric and len(key) == 1:
        # a metric over a table further away: the entities' own keys, grouped through the joins
        own = Col(q.root, key[0])
        sub = Query(
            root=table, select=[(own, None)], group=[own], having=[num_cond(compared, cue)]
        )
        q.in_subquery = (own, sub)
        return
    # "chefs who cooked at more than 2 festivals": the festivals of a chef are the rows of a
    # table referencing both (appearances), counted per chef
    via = None if edge is not None else _linking_table(idx, table, q.root)
    if via is not None:
        edge = _reference(idx, via, q.root)
    if edge is None:
        raise Unclear(f"no foreign key links {table} to {q.root} for '{cue.text}'")
    fk = Col(edge.src, edge.src_cols[0])
    sub = Query(root=edge.src, select=[(fk, None)], group=[fk], having=[num_cond(compared, cue)])
    q.in_subquery = (Col(q.root, edge.dst_cols[0]), sub)


def _reference(idx: SchemaIndex, src: str, dst: str) -> FKEdge | None:
    """The one-column foreign key from `src` to `dst`, declared first, else inferred."""
    edges = [e for e in idx.edges + idx.inferred if e.src == src and e.dst == dst]
    return next((e for e in edges if len(e.src_cols) == 1), None)


def _linking_table(idx: SchemaIndex, table: str, root: str) -> str | None:
    """The one table (not `table` or `root`) that references both; None when none or several."""
    found = {
        e.src
        for e in idx.edges + idx.inferred
        if e.dst == root and e.src not in (table, root) and _reference(idx, e.src, table)
    }
    return next(iter(found)) if len(found) == 1 else None
