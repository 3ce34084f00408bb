"""run_with_graph: one run of the graph with a real timeout and a per-run cancellation token.

The graph streams on a worker thread while the caller waits at most `timeout_s`: when the
timeout fires the run's token is cancelled (the worker stops before its next node) and the
caller gets PIPELINE_TIMEOUT at once, not when the graph finishes. Before the graph starts, the
run.before hooks may rewrite the question or deny the run, and the run's context is narrowed to
what the user may read (RBAC). `initial` carries the entrypoint's other fields: pinned, approvals.
"""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from nl2sql.context import CancelToken, NL2SQLContext
from nl2sql.dag import ExecutionDAG
from nl2sql.errors import (
    ErrorCode,
    ErrorSeverity,
    PipelineError,
    PipelineExecutionError,
    safe_one_line,
)
from nl2sql.governance.gate import run_before
from nl2sql.governance.services import for_user
from nl2sql.pipeline.graph import RunCancelled
from nl2sql.pipeline.names import SQL_AGENT
from nl2sql.pipeline.state import GraphState, SubgraphExecutionState
from nl2sql.pipeline.subgraphs.schemas import SubgraphOutput
from nl2sql.pipeline.trace import StateTree, TraceRecorder, reducers_of
from nl2sql.security.rbac import UserContext


class RunOutcome:
    """What a run leaves: the final state, the trace and timings (QueryResult wraps it)."""

    def __init__(self, state: GraphState, tree: StateTree, final_node: int, seconds: float):
        self.state = state
        self.tree = tree
        self.final_node = final_node
        self.seconds = seconds


def run_with_graph(
    graph: Any,
    ctx: NL2SQLContext,
    question: str,
    *,
    datasource_id: str | None = None,
    user_context: UserContext | None = None,
    timeout_s: float | None = None,
    on_event: Callable[[dict[str, Any]], None] | None = None,
    initial: dict[str, Any] | None = None,
    cancel_token: CancelToken | None = None,
    callbacks: list[Any] | None = None,
) -> RunOutcome:
    """Run the compiled graph once; never raises for a pipeline failure (it is in the state).

    `callbacks` (LangChain callback handlers, e.g. a LangSmith tracer) go into the graph's config,
    so they see every node and subgraph of the run as chain starts and ends."""
    limit = timeout_s if timeout_s is not None else ctx.settings.pipeline_timeout_s
    started = time.perf_counter()
    user = user_context or UserContext()
    # The run sees the schemas as this user may read them (policies filter every snapshot).
    run_ctx = for_user(ctx.for_run(on_event, deadline=time.monotonic() + limit, cancel_token=cancel_token), user)
    asked, notes, refusal = run_before(run_ctx, question, user, datasource_id)
    state = GraphState(
        user_query=asked,
        user_context=user,
        datasource_id=datasource_id,
        reasoning=notes,
        **(initial or {}),
    )
    start = state.model_dump()
    tree = StateTree(start, reducers_of(GraphState), reducers_of(SubgraphExecutionState))
    if refusal is not None:  # run.before denied the run (or broke): no node runs
        refused = state.model_copy(update={"errors": [refusal]})
        return RunOutcome(refused, tree, tree.root, time.perf_counter() - started)
    recorder = TraceRecorder(tree, frozenset({SQL_AGENT}), routing_order=scan_routing_order)
    box: dict[str, Any] = {"values": start, "error": None}
    config = {"callbacks": list(callbacks)} if callbacks else None

    def work() -> None:
        try:
            for namespace, mode, data in graph.stream(
                start, config, context=run_ctx, stream_mode=["updates", "values"], subgraphs=True
            ):
                recorder.on_event(namespace, mode, data)
                if not namespace and mode == "values":
                    box["values"] = data
        except BaseException as exc:  # reported as a value below, never lost
            box["error"] = exc

    worker = threading.Thread(target=work, name=f"nl2sql-run-{state.trace_id[:8]}", daemon=True)
    worker.start()
    worker.join(limit)
    extra: list[PipelineError] = []
    if worker.is_alive():
        run_ctx.cancel_token.cancel("timeout")
        extra.append(_runtime_error(ErrorCode.PIPELINE_TIMEOUT, f"the run did not finish within {limit:g}s"))
    elif box["error"] is not None:
        extra.append(_from_exception(box["error"]))
    # A timed-out worker may still be recording: read its cursor without settling branches.
    final_node = recorder.current if worker.is_alive() else recorder.finish()
    values = dict(box["values"])
    values["errors"] = list(values.get("errors") or []) + extra
    return RunOutcome(GraphState.model_validate(values), tree, final_node, time.perf_counter() - started)


def scan_routing_order(state: dict[str, Any], delta: dict[str, Any]) -> int:
    """Position of a scan branch in the layer router's Send order (the DAG's scan order)."""
    if state.get("execution_dag") is None:
        return 0
    # The rebuilt state mixes dumped dicts (the root) and models (deltas): validate both alike.
    dag = ExecutionDAG.model_validate(state["execution_dag"])
    order = [n.sub_query_id for n in dag.scan_nodes]
    for output in (delta.get("subgraph_outputs") or {}).values():
        sq = SubgraphOutput.model_validate(output).sub_query
        if sq is not None and sq.id in order:
            return order.index(sq.id)
    return len(order)


def _runtime_error(code: ErrorCode, message: str, **details: Any) -> PipelineError:
    return PipelineError(node="runtime", message=message, severity=ErrorSeverity.ERROR,
                         error_code=code, details=details)


def _from_exception(exc: BaseException) -> PipelineError:
    if isinstance(exc, PipelineExecutionError):
        return exc.error
    if isinstance(exc, RunCancelled):
        return _runtime_error(ErrorCode.CANCELLED, safe_one_line(exc))
    return PipelineError(
        node="runtime",
        message=f"unexpected {type(exc).__name__}: {safe_one_line(exc)}",
        severity=ErrorSeverity.CRITICAL,
        error_code=ErrorCode.UNKNOWN_ERROR,
        details={"trace": "".join(traceback.format_exception(exc))},
    )
