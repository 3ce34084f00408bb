"""Measures: what a count or aggregate cue asks for ("how many loans", "the average price",
"the maximum number of pages") and the row picked by "the X with the maximum M".

`read_measure` is a rule: it runs before the shape is chosen, which depends on the measure. A
metric of the semantic layer is a measure by its name ("revenue per region"). A count is read by
`counts.py`. An aggregate word applies to the numeric column after it ("the average, minimum
and maximum age": one aggregate per word).
"""

from __future__ import annotations

from nl2sql.reasoning.offline.linking.linker import Mention
from nl2sql.reasoning.offline.shapes.comparisons import compared_aggregate, compared_metric
from nl2sql.reasoning.offline.shapes.counts import count_measure
from nl2sql.reasoning.offline.shapes.spec import Agg, Col, Unclear
from nl2sql.reasoning.offline.shapes.state import Analysis
from nl2sql.reasoning.offline.words import cues as C
from nl2sql.reasoning.offline.words.cues import Superlative

_COMPARED_GAP = frozenset({"is", "are", "was", "were", "of"})
_HAVE = {"has", "have", "had", "having", "with", "gets", "got", "received", "receives"}


def read_measure(a: Analysis) -> None:
    """Rule: the aggregate a count or aggregate cue asks for, and the mention it applies to."""
    a.measure, a.measure_mention = _measure(a)


def _measure(a: Analysis) -> tuple[Agg | None, Mention | None]:
    tokens, scan, named = a.question.tokens, a.question.scan, a.question.named
    # "more than the average number of loans" is no count of products
    after_nested = {i for c in scan.nums if c.nested for i in range(c.start, c.end + 2)}
    cc = C.count_cue(tokens, (named - scan.taken) | after_nested)
    ac = C.agg_cue(tokens, named)
    oc = C.order_cue(tokens)
    if cc is not None and oc is not None and oc[1] <= cc[0] <= oc[1] + 1:
        cc = None  # "ordered by the number of final tables": a column named "number of …"
    if ac is not None and _compared(a, ac[1]):
        ac = None  # "with an average salary above 50000": a condition on each group's average
    a.agg_index = ac[1] if ac is not None and cc is None else None
    if cc is not None and ac is not None and ac[1] < cc[0] - 2:
        cc = None  # "the maximum fee for different numbers of pages": the first cue wins
    metric = _metric_measure(a, cc, ac)
    if metric is not None:
        return metric
    if cc is not None:
        return count_measure(a, cc)
    return _agg_measure(a, *ac) if ac is not None else _named_total(a)


def _named_total(a: Analysis) -> tuple[Agg | None, Mention | None]:
    """ "the total amount of all orders": a column named with an aggregate word (`total_amount`)
    taken over all the rows of a table is that aggregate of it (one value is asked: "is")."""
    tokens = a.question.tokens
    for m in a.question.mentions:
        func = C.AGG_WORDS.get(tokens[m.start].low)
        after = [t.low for t in tokens[m.end : m.end + 2]]
        nxt = a.next_mention(m.end + 2, within=0)
        if func not in ("sum", "avg") or after != ["of", "all"] or nxt is None:
            continue
        col = a.res.column(m, ("number",)) if not a.res.table(m) else None
        singular = any(t.low in ("is", "'s") for t in tokens[: m.start])
        if col is not None and singular and a.res.table(nxt) == col.table:
            a.used.add(m.start)
            return Agg(func, col.table, col), m
    return None, None


def _compared(a: Analysis, i: int) -> bool:
    """Whether the aggregate word at i is compared with a number right after its column."""
    m = a.next_mention(i + 1, within=3)
    if m is None or a.res.table(m):  # "the total order amount": the column after the table
        m = a.next_mention(m.end, within=0) if m is not None else None
    if m is None:
        return False
    tokens = a.question.tokens
    for cue in a.question.scan.nums:
        gap = tokens[m.end : cue.start]
        if cue.start >= m.end and len(gap) <= 2 and all(t.low in _COMPARED_GAP for t in gap):
            return compared_aggregate(tokens, a.question.mentions, a.res, m) is not None
    return False


def _metric_measure(
    a: Analysis, cc: tuple[int, int] | None, ac: tuple[str, int] | None
) -> tuple[Agg, Mention] | None:
    """A metric of the semantic layer the question names ("revenue by region"): the measure
    itself, already an aggregate. A metric compared with a number ("whose revenue is above
    1000") is a condition, not the measure."""
    mentions, tokens = a.question.mentions, a.question.tokens
    compared = {
        m.start
        for cue in a.question.scan.nums
        if (m := compared_metric(cue, mentions, tokens, a.used)) is not None
    }
    m = next((m for m in mentions if m.start not in a.used | compared and m.metric()), None)
    element = m.metric() if m is not None else None
    if m is None or element is None or element.metric is None:
        return None
    _aggregate_beside_metric(a, cc, ac, m, element.metric)
    a.used.add(m.start)
    return Agg("metric", element.table, metric=element.metric), m


def _aggregate_beside_metric(
    a: Analysis, cc: tuple[int, int] | None, ac: tuple[str, int] | None, m: Mention, name: str
) -> None:
    """ "total revenue" / "how much revenue" is the metric itself; another aggregate word over it
    would aggregate an aggregate, and a count beside it asks for a second measure."""
    tokens = a.question.tokens
    between = tokens[ac[1] + 1 : m.start] if ac is not None else []
    if cc is None and ac is not None and ac[1] < m.start and all(
        t.low in ("the", "of") for t in between
    ):
        if ac[0] != "sum":
            raise Unclear(
                f"the {tokens[ac[1]].text} of metric '{name}' aggregates an "
                "aggregate (a nested query); not supported"
            )
        a.used.update(
            x.start for x in a.question.mentions if x.start == ac[1] and x.end == ac[1] + 1
        )
    elif cc is not None or ac is not None:
        cue = a.question.text(*cc) if cc is not None else tokens[ac[1]].text if ac else ""
        raise Unclear(f"'{cue}' beside metric '{name}' asks for a second measure; not supported")


def _agg_measure(a: Analysis, func: str, i: int) -> tuple[Agg, Mention]:
    question, tokens = a.question, a.question.tokens
    a.used.update(m.start for m in question.mentions if m.start == i and m.end == i + 1)
    m = a.next_mention(i + 1, within=6)
    if m is not None and question.unknown_between(i + 1, m.start):
        raise Unclear(question.unknown_between(i + 1, m.start))
    if m is None:
        raise Unclear(f"could not tell which column the '{tokens[i].text}' applies to")
    kinds = ("number",) if func in ("sum", "avg") else ("number", "date")
    head = _compound_column(a, m, kinds)
    col = head[1] if head is not None else a.res.column(m, kinds)
    a.used.add(m.start)
    if head is not None:
        m = head[0]
        a.used.add(m.start)
    if col is not None:
        # "the average, minimum and maximum age": one aggregate per word, same column
        more = [C.AGG_WORDS[t.low] for t in tokens[i + 1 : m.start] if t.low in C.AGG_WORDS]
        a.extra = [Agg(f, col.table, col) for f in dict.fromkeys(more) if f != func]
        return Agg(func, col.table, col), m
    table = a.res.table(m)
    if func == "sum" and table:
        return Agg("count", table), m  # "total loans" counts rows
    raise Unclear(f"'{m.text}' is not a numeric column to take the {tokens[i].text} of")


def _compound_column(a: Analysis, m: Mention, kinds: tuple[str, ...]) -> tuple[Mention, Col] | None:
    """ "the average order total", "the total order amount": a table named before a noun is
    the noun's table (English compounds end with their head), so the head names a column of
    that table — a mention right after it, or a word of the column's own name."""
    table = a.res.table(m)
    if table is None or m.end >= len(a.question.tokens):
        return None
    nxt = next((x for x in a.question.mentions if x.start == m.end and x.start not in a.used), None)
    if nxt is not None:
        own = [
            e
            for e in nxt.columns()
            if e.table == table and a.question.idx.kind(e.table, e.column or "") in kinds
        ]
        return (nxt, Col(table, own[0].column or "")) if len(own) == 1 else None
    word = a.question.tokens[m.end]
    if word.kind != "word" or "number" not in kinds:
        return None
    col = a.res.measure_column((word.canon,), [table])
    if col is None or col.table != table:
        return None
    return Mention(word.index, word.index + 1, word.text, []), col


def extreme_of_entity(a: Analysis, measure: Agg | None) -> Superlative | None:
    """A superlative cue for "has / with the maximum M" (a MAX/MIN that picks a row)."""
    if measure is None or measure.func not in ("min", "max") or measure.col is None:
        return None
    if a.extra or a.quantity or a.agg_index is None:
        return None
    before = [t.low for t in a.question.tokens[: a.agg_index] if t.low not in ("the", "a")]
    if not before or before[-1] not in _HAVE:
        return None
    return ("desc" if measure.func == "max" else "asc", a.agg_index, None)


def extreme_measure(a: Analysis, sup: Superlative) -> tuple[Agg, Mention]:
    """ "what is the highest price": MAX (MIN) of the column named after the superlative."""
    direction, i, _ = sup
    func = "max" if direction == "desc" else "min"
    m = a.next_mention(i + 1, within=3)
    head = _compound_column(a, m, ("number", "date")) if m else None
    col: Col | None
    if m is not None and head is not None:
        a.used.add(m.start)
        m, col = head
    else:
        col = a.res.column(m, ("number", "date")) if m else None
    if m is None or col is None:
        raise Unclear(f"could not tell what '{a.question.tokens[i].text}' applies to")
    a.used.add(m.start)
    return Agg(func, col.table, col), m
