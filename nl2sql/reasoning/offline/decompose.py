"""Decomposition: one sub-query for the best datasource, or two combined ones.

A question is split in two when it says "compare A with/to/and/versus B" (a `compare` group) or
"A along with / as well as / together with B" or "A and <the number|total|average … of> B" (a
`join` group) — the latter only when no datasource plans the question as a whole. A shared group phrase ("for each district", "per district", "by district") is appended to
both parts, so each intent reads "number of loans per district". Each part goes to the datasource
whose schema plans it with the highest confidence (ties: the resolver's order); the join keys are
the parts' grouped output column names, read from those trial plans (`district_name` ↔ `district`).
A part no datasource can plan is reported in `unmapped_subqueries`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from nl2sql.decomposition import (
    CombineGroup,
    CombineInput,
    DecomposerResponse,
    JoinKey,
    SubQuery,
    sub_query_id,
)
from nl2sql.plan import PlanModel, is_aggregate
from nl2sql.reasoning.offline.across import decompose_across
from nl2sql.reasoning.offline.answerability import link_score
from nl2sql.reasoning.offline.catalog.cache import IndexCache
from nl2sql.reasoning.offline.linking.linker import link_words
from nl2sql.reasoning.offline.plan.planner import Outcome
from nl2sql.reasoning.offline.split import Split, split_question
from nl2sql.reasoning.offline.words.scan import scan
from nl2sql.schema.models import SchemaSnapshot
from nl2sql.semantic.across import CrossRelationship

Planner = Callable[[str, SchemaSnapshot], Outcome]
_Part = tuple[str, str, PlanModel]  # (intent, datasource id, plan)


def decompose(
    question: str, datasources: Mapping[str, SchemaSnapshot], cache: IndexCache, planner: Planner,
    relationships: Sequence[CrossRelationship] = (),
) -> DecomposerResponse:
    """Sub-queries and combine groups for `question` over the allowed datasources; with the
    layer's relationships across them, a question no datasource plans whole may be joined
    along one (across.py)."""
    split = split_question(question)
    if (
        split is not None
        and split.operation == "join"
        and _plans_whole(question, datasources, planner)
    ):
        split = None  # "the name of each author, along with its id and …" is one query
    if split is not None and datasources:
        response = _two_parts(split, datasources, planner)
        if response is not None:
            return response
    if relationships and not _plans_whole(question, datasources, planner):
        joined = decompose_across(question, datasources, relationships, planner)
        if joined is not None:
            return joined
    return _single(question, datasources, cache)


def _plans_whole(
    question: str, datasources: Mapping[str, SchemaSnapshot], planner: Planner
) -> bool:
    return any(planner(question, snap).plan is not None for snap in datasources.values())


def _single(
    question: str, datasources: Mapping[str, SchemaSnapshot], cache: IndexCache
) -> DecomposerResponse:
    s = scan(question)
    ranked = sorted(
        (
            (link_score(link_words(s.tokens, cache.get(snap), s.taken)), pos, ds)
            for pos, (ds, snap) in enumerate(datasources.items())
        ),
        key=lambda x: (-x[0], x[1]),
    )
    if not ranked or ranked[0][0] <= 0:
        return DecomposerResponse(
            unmapped_subqueries=[question], reasoning="no datasource links the question"
        )
    ds = ranked[0][2]
    response = _standalone(
        SubQuery(id=sub_query_id(ds, question, 0), datasource_id=ds, intent=question)
    )
    response.reasoning = (
        f"one sub-query on {ds} (best link score {ranked[0][0]:g} of {len(ranked)} datasource(s))"
    )
    return response


def _standalone(sq: SubQuery) -> DecomposerResponse:
    group = CombineGroup(
        group_id=sq.id, operation="standalone", inputs=[CombineInput(subquery_id=sq.id)]
    )
    return DecomposerResponse(sub_queries=[sq], combine_groups=[group])


def _two_parts(
    split: Split, datasources: Mapping[str, SchemaSnapshot], planner: Planner
) -> DecomposerResponse | None:
    parts: list[_Part] = []
    unmapped: list[str] = []
    for text in (split.left, split.right):
        intent = f"{text} per {split.group}" if split.group else text
        found = _place(intent, datasources, planner)
        if found is None:
            unmapped.append(intent)
        else:
            parts.append((intent, *found))
    if not parts:
        return None
    if unmapped:
        return _partial(parts[0], unmapped)
    keys = [_group_names(p[2]) for p in parts]
    if len(keys[0]) != len(keys[1]):
        return None
    return _combined(split, parts, keys)


def _partial(part: _Part, unmapped: list[str]) -> DecomposerResponse:
    """One answerable part; the other is reported as unmapped."""
    intent, ds, _ = part
    single = _standalone(SubQuery(id=sub_query_id(ds, intent, 0), datasource_id=ds, intent=intent))
    single.unmapped_subqueries = unmapped
    single.reasoning = (
        f"only '{intent}' can be answered (on {ds}); no datasource answers "
        + ", ".join(f"'{u}'" for u in unmapped)
    )
    return single


def _combined(split: Split, parts: list[_Part], keys: list[list[str]]) -> DecomposerResponse:
    """Two sub-queries and their compare/join group, keyed on the grouped output names."""
    sub_queries = [
        SubQuery(
            id=sub_query_id(ds, intent, pos),
            datasource_id=ds,
            intent=intent,
            metrics=[split.left if pos == 0 else split.right],
            group_by=[split.group] if split.group else [],
            expected_schema=[i.alias for i in plan.select if i.alias],
        )
        for pos, (intent, ds, plan) in enumerate(parts)
    ]
    operation = (
        split.operation if keys[0] else "compare"
    )  # a join needs keys; single values compare
    group = CombineGroup(
        group_id=f"g_{sub_queries[0].id[3:9]}_{sub_queries[1].id[3:9]}",
        operation=operation,
        inputs=[
            CombineInput(subquery_id=sq.id, role=role)
            for sq, role in zip(sub_queries, ("left", "right"), strict=True)
        ],
        join_keys=[JoinKey(left=a, right=b) for a, b in zip(keys[0], keys[1], strict=True)],
    )
    where = ", ".join(f"'{sq.intent}' on {sq.datasource_id}" for sq in sub_queries)
    keys_text = (
        ", ".join(f"{k.left} = {k.right}" for k in group.join_keys) or "none (single values)"
    )
    return DecomposerResponse(
        sub_queries=sub_queries,
        combine_groups=[group],
        reasoning=f"{operation} of two parts: {where}; join keys: {keys_text}",
    )


def _place(
    intent: str, datasources: Mapping[str, SchemaSnapshot], planner: Planner
) -> tuple[str, PlanModel] | None:
    best: tuple[str, PlanModel, float] | None = None
    for ds, snapshot in datasources.items():
        outcome = planner(intent, snapshot)
        if outcome.plan is not None and (best is None or outcome.confidence > best[2]):
            best = (ds, outcome.plan, outcome.confidence)
    return None if best is None else (best[0], best[1])


def _group_names(plan: PlanModel) -> list[str]:
    """Output names of the grouped (non-aggregate) select items."""
    return [i.alias for i in plan.select if i.alias and not is_aggregate(i.expr)]
