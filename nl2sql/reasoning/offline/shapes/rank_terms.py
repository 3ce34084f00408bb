"""The two terms of a ranking: what ranks (the measure) and what is ranked (the entity).

"top 5 products by price" ranks products by the price after "by"; "the most prizes" counts the
prize rows; "the highest quarter payout" ranks by the payout (a noun compound ends with its
head); "the tallest goalkeeper" ranks by the height column the adjective names.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.linking.linker import Mention
from nl2sql.reasoning.offline.shapes.conditions import adjacent_after
from nl2sql.reasoning.offline.shapes.spec import Agg, Col, Unclear
from nl2sql.reasoning.offline.shapes.state import Analysis
from nl2sql.reasoning.offline.words import cues as C
from nl2sql.reasoning.offline.words.cues import Superlative


def rank_measure(a: Analysis, sup: Superlative | None) -> tuple[Col | Agg | None, Mention | None]:
    """The measure after "by" ("top 5 products by price") or after the superlative."""
    tokens = a.question.tokens
    for _, end, word in C.group_cues(tokens):
        if word != "by":
            continue
        m = adjacent_after(a.question.mentions, tokens, end, a.used, within=2)
        found = _measure_of(a, m) if m is not None else None
        if found is not None:
            return found, m
    if sup is not None and sup[2] is None and tokens[sup[1]].low not in ("top", "bottom"):
        m = _compound_head(a, a.next_mention(sup[1] + 1, within=3))
        counted = m is not None and _counted_noun(a, sup, m)
        found = counted or (_measure_of(a, m) if m is not None else None)
        if found is not None:
            return found, m
    return None, None


def _counted_noun(a: Analysis, sup: Superlative, m: Mention) -> Agg | None:
    """ "the most prizes": a noun after most/fewest that only loosely names a column counts
    the rows of that column's table."""
    tokens = a.question.tokens
    if tokens[sup[1]].low not in ("most", "fewest", "least") or a.res.table(m):
        return None
    if m.candidates[0].score >= 0.85 or not tokens[m.end - 1].low.endswith("s"):
        return None
    a.used.add(m.start)
    return Agg("count", m.candidates[0].table)


def _compound_head(a: Analysis, m: Mention | None) -> Mention | None:
    """English noun compounds end with their head: "the highest quarter payout" ranks by the
    payout; a measurable column named right after `m` is read instead, `m` only modifies it."""
    while m is not None:
        end = m.end
        after = (n for n in a.question.mentions if n.start == end and n.start not in a.used)
        nxt = next(after, None)
        try:
            if nxt is None or a.res.column(nxt, ("number", "date")) is None:
                return m
        except Unclear:
            return m
        a.used.add(m.start)
        m = nxt
    return m


def _measure_of(a: Analysis, m: Mention) -> Col | Agg | None:
    """The measure a mention names: the rows of the table it names at least as strongly as
    any column ("the most orders" counts orders, never sorts by `order_date`, a column "order"
    only abbreviates), else its number or date column."""
    table = a.res.table(m)
    if table is not None:
        a.used.add(m.start)
        return Agg("count", table)
    col = a.res.column(m, ("number", "date"))
    if col is not None:
        a.used.add(m.start)
        return col
    return None


def ranked_entity(
    a: Analysis, limit_i: int | None, sup: Superlative | None, measure_m: Mention | None
) -> Mention:
    """What is ranked: the words after "top N" / "which N", the table named right after the
    superlative ("the youngest member"), else the first table named, else the first mention."""
    if limit_i is not None:
        m = a.next_mention(limit_i + 1, within=3, exclude=measure_m)
        if m is not None:
            return m
    free = [m for m in a.question.mentions if m.start not in a.used and m is not measure_m]
    if sup is not None and sup[2] == ("@count",):  # "the most common genre"
        after = a.next_mention(sup[1] + 2, within=1, exclude=measure_m)
        if after is not None:
            return after
    if sup is not None:
        after = a.next_mention(sup[1] + 1, within=1, exclude=measure_m)
        if after is not None and a.res.table(after):
            return after
    tables = [m for m in free if a.res.table(m)]
    if tables or free:
        return (tables or free)[0]
    raise Unclear("could not tell what to rank")


def adjective_measure(a: Analysis, sup: Superlative | None, entity: Col | str) -> Col | Agg | None:
    """The measure an adjective names: "most expensive" → a price column of the entity."""
    if sup is None or sup[2] is None:
        return None
    table = entity.table if isinstance(entity, Col) else entity
    if sup[2] == ("@count",):
        return Agg("count", table)
    if sup[2] == ("@date",):
        for t in dict.fromkeys([table] + a.res.context):
            dates = a.question.idx.date_columns(t)
            if dates:
                return Col(t, dates[0])
        return None
    # "the tallest goalkeeper": the height may live in the row the goalkeeper references
    return a.res.measure_column(sup[2], [table])
