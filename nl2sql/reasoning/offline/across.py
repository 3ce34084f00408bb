"""Questions across two sources that a declared relationship relates.

"Total order amount per customer segment", with orders in one source, customers in another and
the layer's `one:orders.cust_ref → two:customers.code`: when the question has a group
phrase ("per X", "for each X, …") and no datasource plans it whole, each relationship between two
allowed sources is tried both ways round. The rest of the question ("total order amount") must
plan on one end's source as an aggregate reading that end's table, and "list the <group>" on the
other end's source as a listing reading its end's table. Then

- the measure sub-query answers per key of its end (`key_columns`: partials per key,
  plan/keyed.py), so it returns one row per key;
- the group sub-query returns the distinct (key, group value) rows of its end;
- the join group matches exactly the relationship's two key columns (an inner join: a key with
  no partner drops, as it would in one database), and a post-combine aggregate finishes the
  partials per group value (SUM of sums and counts, MIN of minimums, SUM/SUM for an average).

No measure row counts twice within a group: its key's partial meets each group value of that key
once. When the group side is the relationship's many side, a key with several group values
counts in each of them (the reasoning says so). The best-planned reading wins; the reasoning
names the relationship used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from nl2sql.aggregation.layout import InputColumns, join_layout
from nl2sql.decomposition import (
    CombineGroup,
    CombineInput,
    DecomposerResponse,
    JoinKey,
    PostCombineOp,
    SubQuery,
    sub_query_id,
)
from nl2sql.plan import ColumnRef, SelectItem, walk
from nl2sql.reasoning.offline.plan.keyed import Keyed, keyed_plan
from nl2sql.reasoning.offline.plan.planner import Outcome
from nl2sql.reasoning.offline.shapes.spec import Unclear
from nl2sql.reasoning.offline.split import group_phrase
from nl2sql.reasoning.offline.words.scan import scan
from nl2sql.schema.models import SchemaSnapshot
from nl2sql.semantic.across import CrossRelationship, SourceColumn

Planner = Callable[[str, SchemaSnapshot], Outcome]


@dataclass(frozen=True)
class _Side:
    end: SourceColumn
    intent: str
    keyed: Keyed
    confidence: float


@dataclass(frozen=True)
class _Reading:
    relationship: CrossRelationship
    measure: _Side
    group: _Side
    group_phrase: str
    per_entity: bool  # the group names the table itself ("per customer"): each key is a group

    @property
    def confidence(self) -> float:
        return min(self.measure.confidence, self.group.confidence)


def decompose_across(question: str, datasources: Mapping[str, SchemaSnapshot],
                     relationships: Sequence[CrossRelationship],
                     planner: Planner) -> DecomposerResponse | None:
    """A join of two sub-queries along a declared relationship, or None when none reads so."""
    group, rest = group_phrase(question)
    if group is None or not rest:
        return None
    group, rest = _dates_to_measure(group, rest)
    best: _Reading | None = None
    for rel in relationships:
        for measure_end, group_end in ((rel.from_, rel.to), (rel.to, rel.from_)):
            if measure_end.source not in datasources or group_end.source not in datasources:
                continue
            found = _reading(rel, measure_end, group_end, rest, group, datasources, planner)
            if found is not None and (best is None or found.confidence > best.confidence):
                best = found
    return None if best is None else _response(best)


def _dates_to_measure(group: str, rest: str) -> tuple[str, str]:
    """A trailing period belongs to the measure: "per segment in 2024" groups by segment and
    counts in 2024."""
    words = scan(group)
    if not words.dates:
        return group, rest
    cut = words.tokens[min(i for d in words.dates for i in d.tokens)].start
    head, tail = group[:cut].strip(), group[cut:].strip()
    return (head, f"{rest} {tail}") if head else (group, rest)


def _reading(rel: CrossRelationship, measure_end: SourceColumn, group_end: SourceColumn,
             rest: str, group: str, datasources: Mapping[str, SchemaSnapshot],
             planner: Planner) -> _Reading | None:
    measure = _side(measure_end, rest, datasources, planner, aggregated=True)
    if measure is None:
        return None
    listing = f"list the {group}"
    outcome = planner(listing, datasources[group_end.source])
    side = _keyed(group_end, listing, outcome, datasources, aggregated=False)
    if side is None:
        return None
    mentions = outcome.linking.mentions if outcome.linking is not None else []
    entity = bool(mentions) and all(m.candidates and m.candidates[0].column is None for m in mentions)
    return _Reading(rel, measure, side, group, entity)


def _side(end: SourceColumn, intent: str, datasources: Mapping[str, SchemaSnapshot],
          planner: Planner, *, aggregated: bool) -> _Side | None:
    return _keyed(end, intent, planner(intent, datasources[end.source]), datasources,
                  aggregated=aggregated)


def _keyed(end: SourceColumn, intent: str, outcome: Outcome,
           datasources: Mapping[str, SchemaSnapshot], *, aggregated: bool) -> _Side | None:
    if outcome.plan is None:
        return None
    try:
        keyed = keyed_plan(outcome.plan, [end.ref()], datasources[end.source])
    except Unclear:
        return None
    if keyed.aggregated != aggregated:
        return None
    return _Side(end, intent, keyed, outcome.confidence)


def _response(reading: _Reading) -> DecomposerResponse:
    measure, group = reading.measure, reading.group
    subs = [
        SubQuery(id=sub_query_id(side.end.source, side.intent, pos), datasource_id=side.end.source,
                 intent=side.intent, metrics=[side.intent] if pos == 0 else [],
                 group_by=[side.end.ref()], key_columns=[side.end.ref()],
                 expected_schema=[i.alias or "" for i in side.keyed.plan.select])
        for pos, side in enumerate((measure, group))
    ]
    names = [sq.expected_schema for sq in subs]
    keys = [measure.keyed.keys, group.keyed.keys]
    layout = join_layout([InputColumns(n, [False] * len(n)) for n in names], keys, ["left", "right"])
    out = {src: column.name for column in layout for src in column.sources}
    group_id = f"g_{subs[0].id[3:9]}_{subs[1].id[3:9]}"
    join = CombineGroup(
        group_id=group_id, operation="join",
        inputs=[CombineInput(subquery_id=sq.id, role=role) for sq, role in zip(subs, ("left", "right"), strict=True)],
        join_keys=[JoinKey(left=a, right=b) for a, b in zip(keys[0], keys[1], strict=True)])
    by = [out[(0, k)] for k in keys[0]] if reading.per_entity else []
    by += [out[(1, c)] for c in names[1] if c not in keys[1]]
    by += [out[(0, g)] for g in measure.keyed.groups]
    finish = PostCombineOp(op_id=f"{group_id}_finish", group_id=group_id, op="aggregate",
                           group_by=by, aggregates=[_renamed(i, out) for i in measure.keyed.finish])
    return DecomposerResponse(sub_queries=subs, combine_groups=[join], post_combine_ops=[finish],
                              reasoning=_reasoning(reading))


def _renamed(item: SelectItem, out: Mapping[tuple[int, str], str]) -> SelectItem:
    """A finishing aggregate over the measure side's partials, named as the join outputs them."""
    copy = item.model_copy(deep=True)
    for node in walk(copy.expr):
        if isinstance(node, ColumnRef):
            node.name = out[(0, node.name)]
    return copy


def _reasoning(reading: _Reading) -> str:
    rel, measure, group = reading.relationship, reading.measure, reading.group
    text = (f"joined across sources by relationship {rel.written} ({rel.cardinality}): "
            f"'{measure.intent}' on {measure.end.source} per {measure.end.ref()}, "
            f"'{group.intent}' on {group.end.source} per {group.end.ref()}; joined on "
            f"{measure.end.column} = {group.end.column}, then finished per {reading.group_phrase}")
    if rel.many_on(group.end.source) and not reading.per_entity:
        text += (f" (a {measure.end.table} key with several {reading.group_phrase} values "
                 "counts in each)")
    return text
