"""The ranking shape: "top N X by M", "which N X have the highest M", "the X with the most Y".

ORDER BY the measure, LIMIT N (1 without a number). The entity is grouped when the measure is an
aggregate or lives in a table the entity reaches through a one-to-many step; a measure each entity
row has at most one of ("the player with the greatest height", via a foreign key) orders the rows
directly. A top-N shows the measure it names beside the entity; "which X has the most Y" shows X
only.
What ranks and what is ranked are read in `rank_terms.py`.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.linking.linker import Mention
from nl2sql.reasoning.offline.plan.joins import JoinError, connect
from nl2sql.reasoning.offline.shapes.clauses import conditions
from nl2sql.reasoning.offline.shapes.comparisons import num_cond
from nl2sql.reasoning.offline.shapes.group_extremes import per_group_extreme
from nl2sql.reasoning.offline.shapes.rank_terms import (
    adjective_measure,
    rank_measure,
    ranked_entity,
)
from nl2sql.reasoning.offline.shapes.roles import group_target, outputs, projections
from nl2sql.reasoning.offline.shapes.spec import Agg, Col, Query, Target, Unclear
from nl2sql.reasoning.offline.shapes.state import Analysis
from nl2sql.reasoning.offline.words.cues import Superlative

_ENTITY_LEADS = frozenset(
    "which who whose list show name find give display return get identify what".split()
)
_BE = {"is", "was", "are", "were", "'s"}
_TOTALS = {"total", "totals", "overall", "combined", "altogether", "cumulative", "sum"}


def _first_of_all(a: Analysis, sup: Superlative | None) -> bool:
    """ "Youngest first", "the most expensive first": every row, in that order."""
    tokens = a.question.tokens
    i = sup[1] if sup is not None else -1
    return 0 <= i < len(tokens) - 1 and tokens[i + 1].low == "first" and (
        i + 2 == len(tokens) or tokens[i + 2].kind == "punct")


def _amount(a: Analysis, sup: Superlative | None) -> bool:
    """ "Spends the most on wages", "earned the least from its tours": "most" stands for an
    amount, what is spent or earned in all (a preposition follows it, no noun); "produced the
    most scrap": "most" before a quantity's own noun (not "the highest scrap") is its total."""
    tokens = a.question.tokens
    i = sup[1] if sup is not None else -1
    if not (0 <= i < len(tokens) - 1 and tokens[i].low in ("most", "least")):
        return False
    nxt = next((m for m in a.question.mentions if m.start == i + 1), None)
    return tokens[i + 1].low in ("on", "in", "from", "for") or (
        nxt is not None and not a.res.table(nxt) and bool(nxt.columns())
        and all(e.column is not None and a.question.idx.kind(e.table, e.column) == "number"
                for e in nxt.columns()))


def ranks_entities(a: Analysis, sup: Superlative, measure_m: Mention | None) -> bool:
    """Whether a superlative ranks rows ("which book has the highest price") or aggregates."""
    tokens = a.question.tokens
    if sup[2] is not None:
        nxt = a.next_mention(sup[1] + 1, within=3)
        if nxt is None or a.res.table(nxt) or sup[2] == ("@count",):
            return True
    sup_i = sup[1]
    first = tokens[0].low if tokens else ""
    second = tokens[1].low if len(tokens) > 1 else ""
    if first in _ENTITY_LEADS - {"what"} or (first == "what" and second not in _BE):
        return True
    return any(m.start < sup_i and m is not measure_m for m in a.question.mentions)


def rank(
    a: Analysis, measure: Col | Agg | None, m_m: Mention | None, sup: Superlative | None
) -> Query:
    """The ranking query: rows ranked one by one, or groups ranked by an aggregate."""
    limit, limit_i, limit_dir = a.question.scan.limit
    if measure is None:
        measure, m_m = rank_measure(a, sup)
    entity_m = ranked_entity(a, limit_i, sup, m_m)
    entity = group_target(a, entity_m)
    a.res.entity = entity if isinstance(entity, str) else entity.table
    if measure is None:
        measure = adjective_measure(a, sup, entity)
    if measure is None:
        raise Unclear("could not tell what to rank by")
    # "who was hired last" asks for the rows; "what is the delivery date of the most recent
    # delivery" for the date itself
    own_measure = (isinstance(entity, Col) and entity == measure
                   and a.question.tokens[0].low in ("who", "which"))
    if isinstance(entity, Col) and own_measure:
        # "who was hired last": the date ranks the rows of its table, it is not what is asked
        entity = entity.table
        a.res.entity = entity
    direction = sup[0] if sup is not None else (limit_dir or "desc")
    if a.inverse:
        direction = "asc" if direction == "desc" else "desc"
    etable = entity.table if isinstance(entity, Col) else entity_m and a.res.table(entity_m)
    if own_measure:
        etable = a.res.entity
    asked = _asked_table(a)
    if (asked and etable and asked != etable and isinstance(measure, Col)
            and measure.table == etable and _attribute_of(a, etable, asked)):
        # "which carrier handled the heaviest shipment": the heaviest shipment's carrier
        a.res.entity = asked
        return _plain_ranking(a, asked, etable, measure, direction, limit or 1)
    if (
        etable
        and isinstance(measure, Col)
        and (
            measure.table == etable
            or _attribute_of(a, etable, measure.table)
            or not (any(t.low in _TOTALS for t in a.question.tokens) or _amount(a, sup))
        )
    ):
        # "the member who paid the biggest fee": the single largest value ranks;
        # only "the largest total fee" sums each entity's values
        if measure.table == etable:
            per_group = per_group_extreme(a, entity, etable, measure, direction)
            if per_group is not None:
                return per_group
        return _plain_ranking(a, entity, etable, measure, direction,
                              None if _first_of_all(a, sup) else limit or 1, m_m is not None)
    if isinstance(measure, Col):
        measure = Agg("sum", measure.table, measure)
    return _grouped_ranking(a, entity, measure, direction, limit)


def _grouped_ranking(
    a: Analysis, entity: Col | str, measure: Agg, direction: str, limit: int | None
) -> Query:
    q = Query(root=measure.table, shape="ranking")
    a.res.add_context(q.root)
    keys, shown_default = outputs(a, entity)
    having = conditions(a, q)
    # "top 3 outlets by units moved with turnover above 200": the metric per ranked group
    q.having = [num_cond(m, cue) for cue, m in having if m.metric is not None]
    shown = projections(a, shown_default)
    # "top 5 … by number of orders" shows the numbers; "which year had the most …" and "which 3
    # years had the most …" the years
    q.group = keys
    shows_measure = limit is not None and not _asks_which(a)
    q.select = [(o, None) for o in shown + ([measure] if shows_measure else [])]
    q.order = [(measure, direction)]
    q.limit = limit or 1
    return q


def _attribute_of(a: Analysis, entity_table: str | None, table: str) -> bool:
    """True when each entity row has at most one row of `table` (FK path without fan-out)."""
    if not entity_table:
        return False
    try:
        return not connect(a.question.idx, entity_table, [table]).fans_out
    except JoinError:
        return False


def _plain_ranking(
    a: Analysis, entity: Col | str, root: str, measure: Col, direction: str, limit: int | None,
    named: bool = False,
) -> Query:
    q = Query(root=root, shape="ranking")
    a.res.add_context(q.root)
    _, shown_default = outputs(a, entity)
    having = conditions(a, q)
    compared = [cue.text for cue, m in having if m.metric is not None]
    if compared:  # rows ranked one by one have no group to compare a metric of
        raise Unclear(f"could not tell which rows' metric '{compared[0]}' compares")
    if having:  # "among golfers with at least two bookings, who has the lowest handicap"
        raise Unclear(f"could not rank only the rows with '{having[0][0].text}'; not supported")
    asked = projections(a, [])
    # asked-for columns are shown alone; otherwise the entity's label, and for a top-N the
    # measure it names ("the 3 highest-rated shops"; not "the 5 longest episodes")
    ranked: list[Target] = (
        [measure]
        if named and measure not in shown_default
        and a.question.scan.limit[0] is not None
        and not _asks_which(a)
        else []
    )
    kind = a.question.idx.kind(measure.table, measure.column)
    when = a.question.tokens[0].low == "when" and kind == "date"
    # "when was the first order placed": the date that ranks is the answer
    shown = asked or ([measure] if when else shown_default + ranked)
    q.select = [(o, None) for o in shown]
    q.order = [(measure, direction)]
    q.limit = limit
    return q


def _asked_table(a: Analysis) -> str | None:
    """The table a question opening "Which <table> …" asks rows of, or None."""
    tokens = a.question.tokens
    if not tokens or tokens[0].low not in ("which", "what"):
        return None
    first = next((m for m in a.question.mentions if m.start == 1), None)
    return a.res.table(first) if first is not None else None


def _asks_which(a: Analysis) -> bool:
    """ "Which 3 books cost the most": the rows are asked for, by name, not their measure."""
    return any(t.low in ("which", "who", "whom") for t in a.question.tokens)
