"""build_graph: the only file that knows the order of the main pipeline's nodes.

[curated_matcher] ─▶ datasource_resolver ─▶ decomposer ─▶ layer_router ─Send─▶ sql_agent (per
scan) ─▶ layer_router ─▶ aggregator ─▶ answer_synthesizer. Entry: curated_matcher when curated
answers are configured and the run executes (verified → layer_router; generated → the next
entry), else pinned_entry for a pinned run (in place of the resolver and decomposer), else
datasource_resolver. Every node is wrapped so that a cancelled run stops before the next node
starts, and so that progress events (start/finish, timings) reach the caller.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from nl2sql.context import NL2SQLContext
from nl2sql.errors import NL2SQLError
from nl2sql.names import (
    AGGREGATOR,
    ANSWER_SYNTHESIZER,
    CURATED_MATCHER,
    DATASOURCE_RESOLVER,
    DECOMPOSER,
    LAYER_ROUTER,
    PINNED_ENTRY,
    SQL_AGENT,
)
from nl2sql.pipeline.nodes.aggregator.node import AggregatorNode
from nl2sql.pipeline.nodes.answer_synthesizer.node import AnswerSynthesizerNode
from nl2sql.pipeline.nodes.curated_matcher.node import CuratedMatcherNode
from nl2sql.pipeline.nodes.datasource_resolver.node import DatasourceResolverNode
from nl2sql.pipeline.nodes.decomposer.node import DecomposerNode
from nl2sql.pipeline.nodes.pinned_entry.node import PinnedEntryNode
from nl2sql.pipeline.routes import (
    aggregator_route,
    build_scan_layer_router,
    curated_route,
    entry_route,
    resolver_route,
)
from nl2sql.pipeline.state import GraphState
from nl2sql.pipeline.subgraphs.boundary import ScanPayload, wrap_subgraph
from nl2sql.pipeline.subgraphs.sql_agent import build_sql_agent_graph


class RunCancelled(NL2SQLError):
    """Raised before a node starts when the run's token is cancelled."""


def guarded(name: str, node: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a node: refuse to start once the run is cancelled; report start and finish."""

    def run(state: Any, runtime: Runtime[NL2SQLContext]) -> Any:
        ctx = runtime.context
        if ctx.cancel_token.cancelled:
            raise RunCancelled(f"run cancelled before {name}: {ctx.cancel_token.reason}")
        ctx.emit({"event": "start", "node": name})
        started = time.perf_counter()
        try:
            return node(state, runtime)
        finally:
            ctx.emit({"event": "finish", "node": name, "seconds": time.perf_counter() - started})

    run.__name__ = name
    return run


def build_graph(
    *, execute: bool = True, curated: bool = False, checkpointer: Any = None
) -> CompiledStateGraph[GraphState, NL2SQLContext, GraphState, GraphState]:
    """The compiled main graph. With execute=False the SQL agent stops after generating SQL and
    the run ends once every scan has been planned. With curated=True (curated answers are
    configured) and execute=True, the curated matcher is the entry point. A `checkpointer` makes
    the graph resumable from a given state (re-running from a trace node)."""
    sql_agent = build_sql_agent_graph(execute=execute, wrap=guarded)
    graph = StateGraph(GraphState, context_schema=NL2SQLContext)
    graph.add_node(DATASOURCE_RESOLVER, guarded(DATASOURCE_RESOLVER, DatasourceResolverNode()))
    graph.add_node(PINNED_ENTRY, guarded(PINNED_ENTRY, PinnedEntryNode()))
    graph.add_node(DECOMPOSER, guarded(DECOMPOSER, DecomposerNode()))
    graph.add_node(LAYER_ROUTER, guarded(LAYER_ROUTER, lambda state, runtime: {}))
    graph.add_node(SQL_AGENT, guarded(SQL_AGENT, wrap_subgraph(sql_agent, execute)), input_schema=ScanPayload)
    graph.add_node(AGGREGATOR, guarded(AGGREGATOR, AggregatorNode()))
    graph.add_node(ANSWER_SYNTHESIZER, guarded(ANSWER_SYNTHESIZER, AnswerSynthesizerNode()))

    entries = [PINNED_ENTRY, DATASOURCE_RESOLVER]
    if curated and execute:
        graph.add_node(CURATED_MATCHER, guarded(CURATED_MATCHER, CuratedMatcherNode()))
        graph.add_edge(START, CURATED_MATCHER)
        graph.add_conditional_edges(CURATED_MATCHER, curated_route, [LAYER_ROUTER, *entries])
    else:
        graph.add_conditional_edges(START, entry_route, entries)
    graph.add_conditional_edges(DATASOURCE_RESOLVER, resolver_route, [DECOMPOSER, END])
    graph.add_edge(PINNED_ENTRY, LAYER_ROUTER)
    graph.add_edge(DECOMPOSER, LAYER_ROUTER)
    graph.add_conditional_edges(
        LAYER_ROUTER, build_scan_layer_router(execute=execute), [SQL_AGENT, AGGREGATOR, END]
    )
    graph.add_edge(SQL_AGENT, LAYER_ROUTER)
    graph.add_conditional_edges(AGGREGATOR, aggregator_route, [ANSWER_SYNTHESIZER, END])
    graph.add_edge(ANSWER_SYNTHESIZER, END)
    return graph.compile(checkpointer=checkpointer)


def resumable_checkpointer() -> Any:
    """An in-memory checkpointer for re-runs from a node: it holds only this process's own
    states, so the enum types the state carries (error codes, severities, pin sources, guard
    codes) may load back without a warning."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    from nl2sql.errors import ErrorCode, ErrorSeverity
    from nl2sql.governance.approvals import PinnedSource
    from nl2sql.security.sql_guard_result import GuardCode

    serde = JsonPlusSerializer(allowed_msgpack_modules=[ErrorCode, ErrorSeverity, PinnedSource, GuardCode])
    return InMemorySaver(serde=serde)
