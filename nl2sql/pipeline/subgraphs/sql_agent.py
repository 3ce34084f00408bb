"""The SQL agent subgraph: the only file that knows the order of its nodes.

schema_retriever → ast_planner → logical_validator → generator → approval_gate → executor, with
retry_handler → refiner → ast_planner on retryable findings of the latest attempt, while the
retry budget lasts. A pinned plan starts at the planner (which returns it as it is, with no
table retrieval and no model call) and is never retried. The approval gate runs the execute.before
hooks: a sub-query they deny or hold for approval ends there, and nothing is executed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from nl2sql.context import NL2SQLContext
from nl2sql.errors import PipelineError
from nl2sql.names import (
    APPROVAL_GATE,
    AST_PLANNER,
    EXECUTOR,
    GENERATOR,
    LOGICAL_VALIDATOR,
    REFINER,
    RETRY_HANDLER,
    SCHEMA_RETRIEVER,
)
from nl2sql.pipeline.state import SubgraphExecutionState
from nl2sql.pipeline.subgraphs.nodes.approval_gate.node import ApprovalGateNode
from nl2sql.pipeline.subgraphs.nodes.ast_planner.node import ASTPlannerNode
from nl2sql.pipeline.subgraphs.nodes.executor.node import ExecutorNode
from nl2sql.pipeline.subgraphs.nodes.generator.node import GeneratorNode
from nl2sql.pipeline.subgraphs.nodes.logical_validator.node import LogicalValidatorNode
from nl2sql.pipeline.subgraphs.nodes.refiner.node import RefinerNode
from nl2sql.pipeline.subgraphs.nodes.retry_handler.node import RetryHandlerNode
from nl2sql.pipeline.subgraphs.nodes.schema_retriever.node import SchemaRetrieverNode


def _attempt_errors(state: SubgraphExecutionState) -> list[PipelineError]:
    return [e for e in state.errors if e.details.get("attempt") == state.retry_count]


def _may_retry(state: SubgraphExecutionState, runtime: Runtime[NL2SQLContext]) -> bool:
    ctx = runtime.context
    return (
        state.pinned_plan is None
        and state.retry_count < ctx.settings.sql_agent_max_retries
        and not ctx.cancel_token.cancelled
    )


def _retry_or_end(state: SubgraphExecutionState, runtime: Runtime[NL2SQLContext]) -> str:
    errors = _attempt_errors(state)
    blocking = [e for e in errors if e.is_blocking]
    if blocking and all(e.is_retryable for e in blocking) and _may_retry(state, runtime):
        return RETRY_HANDLER
    return END


def after_planner(state: SubgraphExecutionState, runtime: Runtime[NL2SQLContext]) -> str:
    plan = state.ast_planner_response.plan if state.ast_planner_response else None
    # a plan under min_confidence comes with CLARIFICATION_NEEDED: it is offered, not run
    unsure = any(e.is_blocking for e in _attempt_errors(state))
    return LOGICAL_VALIDATOR if plan is not None and not unsure else _retry_or_end(state, runtime)


def after_validator(state: SubgraphExecutionState, runtime: Runtime[NL2SQLContext]) -> str:
    errors = _attempt_errors(state)
    if any(e.is_blocking for e in errors):
        return _retry_or_end(state, runtime)
    if errors and _may_retry(state, runtime):
        return RETRY_HANDLER  # warnings only: try for a clean plan while the budget lasts
    return GENERATOR


def _entry(state: SubgraphExecutionState) -> str:
    return AST_PLANNER if state.pinned_plan is not None else SCHEMA_RETRIEVER


def after_gate(state: SubgraphExecutionState) -> str:
    """Execute only what the hooks allowed: not dropped, not held, no broken hook."""
    if state.dropped or state.approvals_needed or any(e.is_blocking for e in _attempt_errors(state)):
        return END
    return EXECUTOR


def build_sql_agent_graph(
    *, execute: bool = True,
    wrap: Callable[[str, Callable[..., Any]], Callable[..., Any]] | None = None,
) -> CompiledStateGraph[SubgraphExecutionState, NL2SQLContext, SubgraphExecutionState, SubgraphExecutionState]:
    def after_generator(state: SubgraphExecutionState) -> str:
        if state.generator_response is None or not execute:
            return END
        return APPROVAL_GATE

    nodes: dict[str, Callable[..., dict[str, Any]]] = {
        SCHEMA_RETRIEVER: SchemaRetrieverNode(),
        AST_PLANNER: ASTPlannerNode(),
        LOGICAL_VALIDATOR: LogicalValidatorNode(),
        GENERATOR: GeneratorNode(),
        APPROVAL_GATE: ApprovalGateNode(),
        EXECUTOR: ExecutorNode(),
        RETRY_HANDLER: RetryHandlerNode(),
        REFINER: RefinerNode(),
    }
    graph = StateGraph(SubgraphExecutionState, context_schema=NL2SQLContext)
    for name, node in nodes.items():
        graph.add_node(name, wrap(name, node) if wrap else node)
    # a pinned plan needs no table retrieval: the planner returns it as it is
    graph.add_conditional_edges(START, _entry, [SCHEMA_RETRIEVER, AST_PLANNER])
    graph.add_edge(SCHEMA_RETRIEVER, AST_PLANNER)
    graph.add_conditional_edges(AST_PLANNER, after_planner, [LOGICAL_VALIDATOR, RETRY_HANDLER, END])
    graph.add_conditional_edges(LOGICAL_VALIDATOR, after_validator, [GENERATOR, RETRY_HANDLER, END])
    graph.add_conditional_edges(GENERATOR, after_generator, [APPROVAL_GATE, END])
    graph.add_conditional_edges(APPROVAL_GATE, after_gate, [EXECUTOR, END])
    graph.add_conditional_edges(EXECUTOR, _retry_or_end, [RETRY_HANDLER, END])
    graph.add_edge(RETRY_HANDLER, REFINER)
    graph.add_edge(REFINER, AST_PLANNER)
    return graph.compile()
