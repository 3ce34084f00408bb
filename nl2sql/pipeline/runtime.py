"""run_with_graph: one run of the graph with a real timeout and a per-run cancellation token.

The graph streams on a worker thread while the caller waits at most `timeout_s`: when the
timeout fires the run's token is cancelled (the worker stops before its next node) and the
caller gets PIPELINE_TIMEOUT at once, not when the graph finishes. The worker comes from the
Session's long-lived pool (`RunPool`): starting a thread per run costs more than a cheap run. Before the graph starts, the
run.before hooks may rewrite the question or deny the run, and the run's context is narrowed to
what the user may read (RBAC). `initial` carries the entrypoint's other fields: pinned, approvals.
"""

from __future__ import annotations

import contextvars
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
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
from nl2sql.names import (
    DECOMPOSER,
    LAYER_ROUTER,
    RUNTIME,
    SQL_AGENT,
    TRACE_FILTER,
    TRACE_MERGE,
    TRACE_ROOT,
)
from nl2sql.pipeline.graph import RunCancelled
from nl2sql.pipeline.state import GraphState, SubgraphExecutionState
from nl2sql.pipeline.subgraphs.schemas import SubgraphOutput
from nl2sql.pipeline.trace import StateTree, TraceRecorder, reducers_of
from nl2sql.progress import listening
from nl2sql.question import clean_question
from nl2sql.security.rbac import UserContext


class RunOutcome:
    """What a run leaves: the final state, the trace and timings (QueryResult wraps it).

    `tables` holds the run's results in memory, keyed by artifact URI: the artifacts are on
    disk for the record, and whoever reads this run's results takes them from here first."""

    def __init__(self, state: GraphState, tree: StateTree, final_node: int, seconds: float,
                 tables: dict[str, Any] | None = None):
        self.state = state
        self.tree = tree
        self.final_node = final_node
        self.seconds = seconds
        self.tables: dict[str, Any] = tables if tables is not None else {}


#: Upper bound on runs in flight in one Session; more wait for a free worker (their deadline runs).
MAX_CONCURRENT_RUNS = 64


class RunPool:
    """The Session's long-lived run workers: idle threads are reused, one is added only when
    every worker is busy (concurrent runs, or a timed-out run still winding down)."""

    def __init__(self, max_workers: int = MAX_CONCURRENT_RUNS):
        self._max = max_workers
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def submit(self, fn: Callable[[], None]) -> Future[None]:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._max, thread_name_prefix="nl2sql-run")
            # Each run starts from an empty context, as on a new thread: nothing leaks between runs.
            return self._pool.submit(contextvars.Context().run, fn)

    def close(self) -> None:
        """Stop accepting runs; queued ones are dropped, running ones finish on their own."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


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
    resume: tuple[str | None, dict[str, Any]] | None = None,
    pool: RunPool | None = None,
) -> RunOutcome:
    """Run the compiled graph once; never raises for a pipeline failure (it is in the state).

    `callbacks` (LangChain callback handlers, e.g. a LangSmith tracer) go into the graph's config,
    so they see every node and subgraph of the run as chain starts and ends. `resume` is
    (node name, state) from `resume_point`: the run starts from that state as if that node had
    just returned it (a graph built with a checkpointer), under a new trace id. `pool` runs the
    graph on a reused worker (without one, on a thread of its own)."""
    limit = timeout_s if timeout_s is not None else ctx.settings.pipeline_timeout_s
    started = time.perf_counter()
    user = user_context or UserContext()
    # The run sees the schemas as this user may read them (policies filter every snapshot).
    run_ctx = for_user(ctx.for_run(on_event, deadline=time.monotonic() + limit, cancel_token=cancel_token), user)
    asked, notes, refusal = run_before(run_ctx, clean_question(question), user, datasource_id)
    if resume is not None:  # the recorded state, with its own question; a new trace id
        state = GraphState.model_validate({k: v for k, v in resume[1].items() if k != "trace_id"})
    else:
        state = GraphState(
            user_query=clean_question(asked),  # a run.before hook may rewrite it
            user_context=user,
            datasource_id=datasource_id,
            **{**(initial or {}), "reasoning": [*(initial or {}).get("reasoning", []), *notes]},
        )
    start = state.model_dump()
    tree = StateTree(start, reducers_of(GraphState), reducers_of(SubgraphExecutionState))
    if refusal is not None:  # run.before denied the run (or broke): no node runs
        refused = state.model_copy(update={"errors": [refusal]})
        return RunOutcome(refused, tree, tree.root, time.perf_counter() - started, run_ctx.results)
    recorder = TraceRecorder(tree, frozenset({SQL_AGENT}), routing_order=scan_routing_order)
    box: dict[str, Any] = {"values": start, "error": None}
    config = {"callbacks": list(callbacks)} if callbacks else None

    def work() -> None:
        try:
            # first-run work inside the nodes (schemas, index, model) reports to this run
            with listening(on_event):
                for namespace, mode, data in _stream(graph, start, config, run_ctx,
                                                     resume[0] if resume else None):
                    recorder.on_event(namespace, mode, data)
                    if not namespace and mode == "values":
                        box["values"] = data
        except BaseException as exc:  # reported as a value below, never lost
            box["error"] = exc

    finished = _run_until(work, limit, pool, state.trace_id)
    extra: list[PipelineError] = []
    if not finished:
        run_ctx.cancel_token.cancel("timeout")
        extra.append(_runtime_error(ErrorCode.PIPELINE_TIMEOUT, f"the run did not finish within {limit:g}s"))
    elif box["error"] is not None:
        extra.append(_from_exception(box["error"]))
    # A timed-out worker may still be recording: read its cursor without settling branches.
    final_node = recorder.finish() if finished else recorder.current
    values = dict(box["values"])
    values["errors"] = list(values.get("errors") or []) + extra
    return RunOutcome(GraphState.model_validate(values), tree, final_node, time.perf_counter() - started,
                      run_ctx.results)


def _run_until(work: Callable[[], None], limit: float, pool: RunPool | None, trace_id: str) -> bool:
    """Run `work` on a worker and wait at most `limit` seconds; True when it finished."""
    if pool is None:
        worker = threading.Thread(target=work, name=f"nl2sql-run-{trace_id[:8]}", daemon=True)
        worker.start()
        worker.join(limit)
        return not worker.is_alive()
    future = pool.submit(work)
    done = threading.Event()
    future.add_done_callback(lambda _f: done.set())
    if done.wait(limit):
        return True
    future.cancel()  # still queued behind busy workers: it never starts (its token is cancelled too)
    return False


def _stream(graph: Any, start: dict[str, Any], config: dict[str, Any] | None, run_ctx: NL2SQLContext,
            as_node: str | None) -> Any:
    """The graph's event stream: from START, or from `start` as written by `as_node`.

    Resuming uses LangGraph's own mechanism: the state is written to a fresh thread of the
    graph's checkpointer as `as_node`'s update, and the graph continues with that node's edges."""
    modes = {"stream_mode": ["updates", "values"], "subgraphs": True, "context": run_ctx}
    if as_node is None:
        yield from graph.stream(start, config, **modes)
        return
    thread = {**(config or {}), "configurable": {"thread_id": f"rerun-{start['trace_id']}"}}
    try:
        graph.update_state(thread, start, as_node=as_node)
        yield from graph.stream(None, thread, **modes)
    finally:
        graph.checkpointer.delete_thread(thread["configurable"]["thread_id"])


def resume_point(tree: StateTree, node_id: int) -> tuple[str | None, dict[str, Any]]:
    """Where a re-run from trace node `node_id` starts: (graph node to resume as, its state).

    Main-graph nodes only: a node inside a sub-query's subgraph, or one scan branch, is part of
    the parallel step that the merge after it completes; re-run from that merge instead. The
    root re-runs the whole graph from its input state (None: from START)."""
    refusal = _not_resumable(tree, node_id)
    if refusal:
        raise ValueError(refusal)
    node = tree.nodes[node_id]
    # The layer router is a conditional edge that needs the run's context, which a state update
    # does not have: resume as the decomposer, whose plain edge leads to it (its delta is empty).
    as_node = {TRACE_ROOT: None, TRACE_MERGE: SQL_AGENT, LAYER_ROUTER: DECOMPOSER}.get(node.name, node.name)
    return as_node, tree.state_at(node_id)


def resumable(tree: StateTree, node_id: int) -> bool:
    """True when a re-run can start from trace node `node_id` (see resume_point)."""
    return _not_resumable(tree, node_id) is None


def _not_resumable(tree: StateTree, node_id: int) -> str | None:
    if not isinstance(node_id, int) or not 0 <= node_id < len(tree.nodes):
        return f"no trace node {node_id!r}; the trace has nodes 0..{len(tree.nodes) - 1}"
    node = tree.nodes[node_id]
    if node.namespace or node.name in (SQL_AGENT, TRACE_FILTER):
        return (f"trace node {node_id} ({node.name}) is inside a sub-query's run; "
                "re-run from a main-graph node (the merge after the scans)")
    return None


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
    return PipelineError(node=RUNTIME, message=message, severity=ErrorSeverity.ERROR,
                         error_code=code, details=details)


def _from_exception(exc: BaseException) -> PipelineError:
    if isinstance(exc, PipelineExecutionError):
        return exc.error
    if isinstance(exc, RunCancelled):
        return _runtime_error(ErrorCode.CANCELLED, safe_one_line(exc))
    return PipelineError(
        node=RUNTIME,
        message=f"unexpected {type(exc).__name__}: {safe_one_line(exc)}",
        severity=ErrorSeverity.CRITICAL,
        error_code=ErrorCode.UNKNOWN_ERROR,
        details={"trace": "".join(traceback.format_exception(exc))},
    )
