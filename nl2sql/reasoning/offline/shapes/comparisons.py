"""Numeric conditions: "more than 300 pages", "taller than 180", "older than the average age".

A comparison applies to the numeric column named inside it ("above age 20") or right before it
("price under 10"); when a table follows the number instead ("more than 10 loans") it is a HAVING
on a count of that table (a foreign key named there counts the rows it references). A metric of
the semantic layer named beside the comparison ("whose revenue is above 1000", "with turnover
under 500") is a HAVING on that metric: it is an aggregate already. A
comparative or unit naming its measure ("older", "30 years old") finds that column in the table
the words are about (the nearest table or value named before them). A comparison with "the
average / minimum / maximum" compares with that aggregate of the same column (a sub-query).
"""

from __future__ import annotations

from nl2sql.reasoning.offline.linking.linker import Mention, ValueMatch
from nl2sql.reasoning.offline.shapes.conditions import adjacent_after, adjacent_before
from nl2sql.reasoning.offline.shapes.resolve import Resolver
from nl2sql.reasoning.offline.shapes.spec import Agg, Col, Cond, Query, Target, Unclear
from nl2sql.reasoning.offline.words.cues import AGG_WORDS
from nl2sql.reasoning.offline.words.numeric import NumCue
from nl2sql.reasoning.offline.words.text import Token

# between a metric and its comparison: "revenue is above", "turnover of more than"
_METRIC_GAP = frozenset({"is", "are", "was", "were", "be", "been", "of", "that", "which", "whose"})


def numeric_conditions(
    cues: list[NumCue],
    mentions: list[Mention],
    res: Resolver,
    tokens: list[Token],
    used: set[int],
    values: list[ValueMatch] | None = None,
) -> tuple[list[Cond], list[tuple[NumCue, Agg]]]:
    """WHERE conditions on numeric columns, and (cue, aggregate) pairs for HAVING: a count of
    the table counted, or a metric compared."""
    conds: list[Cond] = []
    having: list[tuple[NumCue, Agg]] = []
    for cue in cues:
        focus = focus_table(cue.start, mentions, values or [], res)
        metric = compared_metric(cue, mentions, tokens, used) if not cue.measure else None
        if metric is not None:
            element = metric.metric()
            assert element is not None and element.metric is not None  # compared_metric checks it
            used.add(metric.start)
            having.append((cue, Agg("metric", element.table, metric=element.metric)))
            continue
        if cue.nested:
            conds.append(_nested_cond(cue, mentions, res, tokens, used, focus))
            continue
        named = _cue_column(cue, mentions, res, tokens, used, focus)
        if named is not None:
            used.add(named[1].start)
            func = compared_aggregate(tokens, mentions, res, named[1])
            if func is not None:
                # "departments with an average salary above 50000": each group's aggregate
                having.append((cue, Agg(func, named[0].table, named[0])))
                continue
            conds.append(num_cond(named[0], cue))
            continue
        after = adjacent_after(mentions, tokens, cue.end, used)
        col = None
        if after is not None:
            # "older than 40": a comparative that names its measure never counts the table after it
            table = res.table(after) if not cue.measure else None
            if table is not None:
                used.add(after.start)
                having.append((cue, Agg("count", table)))
                continue
            col = res.column(after, ("number",), focus)
            counted = _counted_entity(res, col) if col is not None else None
            if counted is not None:  # "at least 3 suppliers" names a key: count its entity
                used.add(after.start)
                having.append((cue, Agg("count", counted)))
                continue
            if col is not None:
                used.add(after.start)
        if col is None and cue.measure:  # "older than 20": the comparative names the measure
            col = res.measure_column(cue.measure, [focus] if focus else [])
        if col is None:
            raise Unclear(f"could not tell which column '{cue.text}' applies to")
        conds.append(num_cond(col, cue))
    return conds, having


def compared_metric(
    cue: NumCue, mentions: list[Mention], tokens: list[Token], used: set[int]
) -> Mention | None:
    """The metric named right before the comparison ("revenue is above 1000", "revenue of more
    than 1000") or right after its number ("more than 1000 in revenue"), if any."""
    before = adjacent_before(mentions, tokens, cue.start, used, _METRIC_GAP)
    if before is not None and before.metric() is not None:
        return before
    after = adjacent_after(mentions, tokens, cue.end, used)
    return after if after is not None and after.metric() is not None else None


def compared_aggregate(
    tokens: list[Token], mentions: list[Mention], res: Resolver, m: Mention
) -> str | None:
    """The aggregate word before a compared column ("an average salary above", "a total
    order amount over": a table naming the column's rows may stand between), or None."""
    i = m.start - 1
    owner = next((x for x in mentions if x.end == m.start and res.table(x)), None)
    if owner is not None:
        i = owner.start - 1
    while i >= 0 and tokens[i].low in ("the", "a", "an", "their", "its"):
        i -= 1
    return AGG_WORDS.get(tokens[i].low) if i >= 0 else None


def _cue_column(
    cue: NumCue,
    mentions: list[Mention],
    res: Resolver,
    tokens: list[Token],
    used: set[int],
    focus: str | None,
) -> tuple[Col, Mention] | None:
    """The numeric column named inside the cue ("above age 20") or right before it, with the
    mention naming it; None when there is none."""
    inside = [
        m
        for m in mentions
        if cue.gap and cue.gap[0] <= m.start < cue.gap[1] and m.start not in used
    ]
    if inside:
        col = res.column(inside[0], ("number",), focus)
        if col is not None:
            return col, inside[0]
    before = adjacent_before(mentions, tokens, cue.start, used)
    # "members who are taller than 180": a table named before the cue is not its column
    if before is None or res.table(before):
        return None
    col = res.column(before, ("number",), focus)
    return (col, before) if col is not None else None


def _counted_entity(res: Resolver, col: Col) -> str | None:
    """The table a key column stands for: the one a foreign key references, or its own."""
    if col.column not in res.idx.keys.get(col.table, set()):
        return None
    for e in res.idx.edges:
        if e.src == col.table and e.src_cols == (col.column,):
            return e.dst
    return col.table


def _nested_cond(
    cue: NumCue,
    mentions: list[Mention],
    res: Resolver,
    tokens: list[Token],
    used: set[int],
    focus: str | None,
) -> Cond:
    """ "older than the average": col <op> (SELECT AVG(col) FROM its table)."""
    assert cue.nested is not None  # only called for a cue compared with an aggregate
    own = next((t for t in tokens[cue.end:] if t.low in ("own", "same")), None)
    if own is not None:
        # "above the average price of the rooms at their own location": an average per row's
        # group (a correlated subquery), not the overall one this reads
        raise Unclear(f"'{cue.text} … {own.text}' compares with each row's own group; "
                      "not supported")
    named = _cue_column(cue, mentions, res, tokens, used, focus)
    col, m = named if named is not None else (None, None)
    after = adjacent_after(mentions, tokens, cue.end, used, within=1)
    named_after = res.column(after, ("number",), focus) if after and not res.table(after) else None
    if col is None and named_after is None and cue.measure:
        col = res.measure_column(cue.measure, [focus] if focus else [])
    col = col or named_after
    if col is None:
        raise Unclear(f"could not tell which column '{cue.text}' applies to")
    if m is not None:
        used.add(m.start)
    if after is not None and named_after is not None:
        if named_after != col:
            raise Unclear(f"'{cue.text} {after.text}' compares two different columns")
        used.add(after.start)
    sub = Query(root=col.table, select=[(Agg(cue.nested, col.table, col), None)])
    return Cond(col, cue.op, [sub], text=cue.text, pos=cue.start)


def focus_table(
    i: int, mentions: list[Mention], values: list[ValueMatch], res: Resolver
) -> str | None:
    """The table the words before token i are about: the nearest table named or value matched."""
    items: list[tuple[int, str | None]] = [
        (m.end, res.table(m)) for m in mentions if m.end <= i and res.table(m)
    ]
    items += [(v.end, v.options[0][0]) for v in values if v.end <= i and v.options]
    items += [
        (m.end, m.candidates[0].table)
        for m in mentions
        if m.end <= i and len({e.table for e in m.candidates}) == 1
    ]
    return max(items, key=lambda x: x[0])[1] if items else None


def num_cond(target: Target, cue: NumCue) -> Cond:
    """`target <op> value` for a comparison: a column in WHERE, a count or a metric in HAVING."""
    if cue.op == "between":
        return Cond(target, "between", [cue.value, cue.high], text=cue.text, pos=cue.start)
    return Cond(target, cue.op, [cue.value], text=cue.text, pos=cue.start)
