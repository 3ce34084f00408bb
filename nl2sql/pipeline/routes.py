"""The main graph's routing decisions (conditional edges). Routers only decide; they never
write state."""

from __future__ import annotations

from collections.abc import Callable

from langgraph.graph import END
from langgraph.runtime import Runtime
from langgraph.types import Send

from nl2sql.context import NL2SQLContext
from nl2sql.names import (
    AGGREGATOR,
    ANSWER_SYNTHESIZER,
    DATASOURCE_RESOLVER,
    DECOMPOSER,
    LAYER_ROUTER,
    PINNED_ENTRY,
)
from nl2sql.pipeline.state import GraphState, required
from nl2sql.pipeline.subgraphs.boundary import build_scan_payload, subgraph_id_for
from nl2sql.pipeline.subgraphs.registry import resolve_subgraph


def entry_route(state: GraphState) -> str:
    """A pinned run enters at pinned_entry; every other run at the datasource resolver."""
    return PINNED_ENTRY if state.pinned is not None else DATASOURCE_RESOLVER


def curated_route(state: GraphState) -> str:
    """verified → the layer router (the scan is done); generated → the pinned or normal entry."""
    if state.verified_match is not None:
        return LAYER_ROUTER
    return entry_route(state)


def resolver_route(state: GraphState) -> str:
    """Continue to the decomposer only with an allowed datasource and an answerable question."""
    response = state.datasource_resolver_response
    if response is None or not response.answerable or not response.allowed_datasource_ids:
        return END
    return DECOMPOSER


def build_scan_layer_router(
    *, execute: bool = True
) -> Callable[[GraphState, Runtime[NL2SQLContext]], list[Send] | str]:
    """The layer router: Send every scan that has not run, then aggregator or END."""

    def route(state: GraphState, runtime: Runtime[NL2SQLContext]) -> list[Send] | str:
        dag = state.execution_dag
        if dag is None or not dag.layers:
            return END
        ctx: NL2SQLContext = runtime.context
        decomposition = required(state.decomposer_response, "decomposition")
        by_id = {sq.id: sq for sq in decomposition.sub_queries}
        # Inputs of a combine that still crosses engines never pull more than its row budget.
        local = {i.subquery_id for g in decomposition.combine_groups
                 if g.operation != "standalone" for i in g.inputs}
        sends = []
        for node in dag.scan_nodes:
            sq = by_id[required(node.sub_query_id, "scan sub-query id")]
            spec = resolve_subgraph(sq.datasource_id, ctx.datasources.get(sq.datasource_id))
            if subgraph_id_for(spec.name, sq.id) in state.subgraph_outputs:
                continue  # already ran, whatever its status
            budget = ctx.settings.combine_max_rows if sq.id in local else None
            sends.append(Send(spec.name, build_scan_payload(state, sq, spec.name, budget)))
        if sends:
            return sends
        if not execute or not state.artifact_refs or state.approvals_needed:
            # nothing to combine, or part of the answer waits for an approval: the sub-queries'
            # own errors and approval requests stand
            return END
        return AGGREGATOR

    return route


def aggregator_route(state: GraphState) -> str:
    """End the run when aggregation failed: never explain an empty result."""
    response = state.aggregator_response
    if response is None or response.errors:
        return END
    return ANSWER_SYNTHESIZER

