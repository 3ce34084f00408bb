"""The aggregate shapes: "how many / number of" (COUNT, DISTINCT with different/distinct/unique),
"average / total / maximum / minimum M", "what is the highest M" (MAX), with group-by cues
("per / for each / by X") and columns asked for beside the aggregate, which group it too.

A per-group summary lists the largest groups first unless asked otherwise; a summary over time
is read in time order. A count with a per-row count condition and no group is a sub-query
(`having.py`).
"""

from __future__ import annotations

from nl2sql.reasoning.offline.linking.linker import Mention
from nl2sql.reasoning.offline.shapes.clauses import conditions
from nl2sql.reasoning.offline.shapes.comparisons import num_cond
from nl2sql.reasoning.offline.shapes.counts import identifies_rows
from nl2sql.reasoning.offline.shapes.having import having_subquery
from nl2sql.reasoning.offline.shapes.ordering import finish_order, order_request
from nl2sql.reasoning.offline.shapes.roles import groups
from nl2sql.reasoning.offline.shapes.spec import Agg, Col, Part, Query, Target, Unclear
from nl2sql.reasoning.offline.shapes.state import Analysis
from nl2sql.reasoning.offline.words.numeric import NumCue

_DETERMINERS = {"the", "its", "their", "his", "her", "a", "an", "all", "also", "me", "us",
                "different", "distinct", "unique", "each", "every"}  # fmt: skip
_COORDINATORS = {"and", "list", "show", "give", "return", "display", "find", "get", "tell", "name"}
_COPULAS = {"is", "are", "was", "were"}
_WH_WORDS = {"what", "which", "who"}


def _names_rows(a: Analysis, q: Query) -> bool:
    """Whether every condition names rows by a key or a name ("does book X have"), so that
    the count the column holds is read off them; "seats in use across active subscriptions"
    filters on a status and adds them up."""
    labels = a.question.idx.labels
    return all(
        c.op == "=" and isinstance(c.target, Col)
        and (c.target.column in labels.get(c.target.table, []) or identifies_rows(a, c.target))
        for c in q.where
    )


def aggregate(a: Analysis, measure: Agg) -> Query:
    """The count or aggregate query of `measure`, grouped as the question asks."""
    q = Query(root=measure.table, shape="count" if measure.func == "count" else "aggregate")
    a.res.add_context(q.root)
    having = conditions(a, q)
    measure = _rows_of_one_value(a, q, measure)
    order = order_request(a)
    keys, shown = groups(a, q)
    explicit = bool(keys)
    keys, shown = _implicit_groups(a, keys, shown, measure)
    if keys and not explicit and not having and _argmax(a, q, measure, shown):
        return q
    if a.quantity and q.where and not keys and not having and measure.col is not None and (
        _names_rows(a, q)
    ):
        q.shape = "listing"
        q.select = [(measure.col, None)]  # the value of the rows named ("pages of book X")
        return q
    q.group = keys
    q.select = [(o, None) for o in [*shown, measure, *a.extra]]
    if having and not keys:
        having_subquery(a.question.idx, q, measure, having)
    elif having:
        _check_metric_scope(a, having, keys)
        q.having = [num_cond(m, cue) for cue, m in having]
    if order is not None and not keys and not having:
        # one total row has nothing to order: the rows the question lists were not found
        raise Unclear("could not tell which rows to order: the question orders a single total")
    # unasked, a per-group summary lists the largest groups first, as a frequency table
    # does; a summary over time is read in time order
    by_time = any(_time_key(a, k) for k in keys)
    default: list[tuple[Target, str]] = (
        [(measure, "desc")] if keys and not by_time else [(k, "asc") for k in shown]
    )
    q.order = finish_order(q, order) or default
    return q


def _rows_of_one_value(a: Analysis, q: Query, measure: Agg) -> Agg:
    """ "How many priority-HIGH repairs": the distinct values of a column held to one value
    count one at most; the rows holding it are what is counted."""
    col = measure.col
    if measure.func != "count" or not measure.distinct or col is None or not any(
        c.target == col and c.op == "=" and len(c.values) == 1 and not c.negated for c in q.where
    ):
        return measure
    a.notes.append(f"counted the {col.table} rows: {col.ref} is held to one value")
    return Agg("count", col.table)


def _check_metric_scope(a: Analysis, having: list[tuple[NumCue, Agg]], keys: list[Target]) -> None:
    """ "turnover per region for outlets with turnover above 100" compares each outlet's
    metric, not each region's: a nested query. A metric compared after a table named is
    that table's rows' metric, which a HAVING over other groups does not compute."""
    for cue, measure in having:
        named = [a.res.table(m) for m in a.question.mentions if m.end <= cue.start]
        subject = next((t for t in reversed(named) if t), None)
        if measure.metric is None or subject is None:
            continue
        pk = a.question.idx.pk(subject)
        if not any(isinstance(k, Col) and k.table == subject and [k.column] == pk for k in keys):
            raise Unclear(
                f"'{cue.text}' compares the {measure.metric} of each {subject} row inside "
                "other groups (a nested query); not supported"
            )


def _time_key(a: Analysis, key: Target) -> bool:
    """A date, a part of a date, or a number column named a year."""
    if isinstance(key, Part):
        return True
    if not isinstance(key, Col):
        return False
    idx = a.question.idx
    kind = idx.kind(key.table, key.column)
    words = idx.col_words.get((key.table, key.column), ())
    return kind == "date" or (kind == "number" and "year" in words)


def _argmax(a: Analysis, q: Query, measure: Agg, shown: list[Target]) -> bool:
    """ "the maximum price and the title": the row with the extreme value, not groups."""
    if measure.func not in ("min", "max") or measure.col is None or a.extra:
        return False
    q.shape = "ranking"
    q.select = [(o, None) for o in [*shown, measure.col]]
    q.order = [(measure.col, "desc" if measure.func == "max" else "asc")]
    q.limit = 1
    a.notes.append(f"'{measure.func}' beside {len(shown)} column(s): the row with it")
    return True


def _implicit_groups(
    a: Analysis, keys: list[Target], shown: list[Target], measure: Agg
) -> tuple[list[Target], list[Target]]:
    """A column asked for beside an aggregate ("names and the total fee") groups it."""
    measured = {x.col for x in a.extra} | {measure.col}
    defaults, asked = list(shown), []
    for m in a.question.mentions:
        if m.start in a.used or a.res.table(m) or not m.columns():
            continue
        if not _coordinated(a, m):
            raise Unclear(f"could not tell what '{m.text}' does in the question")
        col = a.res.column(m)
        a.used.add(m.start)
        if col is None or col in measured:
            continue
        asked.append(col)
        if col in keys and col not in shown:
            shown = shown + [col]  # a key of the group, asked to be shown too
        elif col not in keys:
            keys, shown = keys + [col], shown + [col]
            a.notes.append(f"grouped by {col.ref}: it is asked for beside an aggregate")
    # "List author full name, id and the number": the asked columns replace the default label
    own = {c.table for c in defaults if isinstance(c, Col)}
    if any(isinstance(c, Col) and c.table in own for c in asked):
        shown = [o for o in shown if o not in defaults or o in asked]
    return keys, shown


def _coordinated(a: Analysis, m: Mention) -> bool:
    """Whether a mention is one of the things asked for: listed with "and" / a comma, or
    right after a request verb ("list the names and the number of …")."""
    tokens = a.question.tokens
    before = [t for t in tokens[: m.start] if t.low not in _DETERMINERS]
    after = tokens[m.end] if m.end < len(tokens) else None
    if before and before[-1].low in _COPULAS:
        # "what are the names and …" asks for them; "how many tickets are open" says of the
        # counted rows what they are, a condition
        return len(before) > 1 and before[-2].low in _WH_WORDS
    if before and (before[-1].low in _COORDINATORS or before[-1].kind == "punct"):
        return True
    return after is not None and (after.low == "and" or after.kind == "punct")
