"""ExecutorNode: guard the SQL, run it read-only with a row cap and timeout, write the artifact."""

from __future__ import annotations

import time

from langgraph.runtime import Runtime

from nl2sql.context import NL2SQLContext
from nl2sql.dag import scan_node_id
from nl2sql.datasources.base import ResultError
from nl2sql.errors import ErrorCode, crash, error
from nl2sql.pipeline.names import EXECUTOR
from nl2sql.pipeline.nodes.common import reasoning
from nl2sql.pipeline.state import SubgraphExecutionState
from nl2sql.pipeline.subgraphs.nodes.executor.checks import (
    join_fan_out,
    matched_nothing,
    value_not_found,
)
from nl2sql.pipeline.subgraphs.nodes.executor.schemas import ExecutorResponse
from nl2sql.security.sql_guard import check_sql

NODE = EXECUTOR
_DEADLINE_GRACE_S = 0.5


class ExecutorNode:
    def __call__(self, state: SubgraphExecutionState, runtime: Runtime[NL2SQLContext]) -> dict:
        ctx = runtime.context
        sq = state.sub_query
        tag = {"sub_query_id": sq.id, "attempt": state.retry_count}
        if state.generator_response is None or not state.generator_response.sql_draft:
            return self._fail(error(NODE, ErrorCode.MISSING_SQL, "no SQL to execute", **tag))
        sql = state.generator_response.sql_draft
        adapter = ctx.datasources.get(sq.datasource_id)
        if adapter is None:
            return self._fail(error(NODE, ErrorCode.INVALID_STATE, f"datasource {sq.datasource_id!r} is not registered", **tag))
        snapshot = ctx.schemas.get(sq.datasource_id)
        verdict = check_sql(sql, adapter.dialect, allowed_tables=[t.key for t in snapshot.tables])
        if not verdict.allowed:
            # Unparseable generated SQL is our generator's failure; anything else is a refusal.
            code = ErrorCode.SQL_GEN_FAILED if verdict.code == "PARSE_ERROR" else ErrorCode.SQL_GUARD_REFUSED
            return self._fail(error(NODE, code, f"SQL guard refused the query ({verdict.code}): {verdict.message}",
                                    guard_code=verdict.code, **tag))
        row_cap = getattr(adapter, "row_cap", None) or ctx.settings.row_cap
        timeout_s = min(getattr(adapter, "timeout_s", None) or ctx.settings.statement_timeout_s,
                        ctx.settings.statement_timeout_s)
        if ctx.deadline is not None:
            # Stop an in-flight query soon after the run's own timeout has fired (the grace lets
            # the run report PIPELINE_TIMEOUT first) instead of letting it run its full course.
            timeout_s = max(0.05, min(timeout_s, ctx.deadline - time.monotonic() + _DEADLINE_GRACE_S))
        started = time.perf_counter()
        try:
            frame = adapter.execute(sql, row_cap=row_cap, timeout_s=timeout_s)
        except ResultError as exc:
            code = ErrorCode.EXECUTION_FAILED if exc.retryable else ErrorCode.DB_EXECUTION_ERROR
            return self._fail(error(NODE, code, exc.safe_message, retryable=exc.retryable, kind=exc.kind, **tag))
        except Exception as exc:
            return self._fail(crash(NODE, ErrorCode.DB_EXECUTION_ERROR, exc, **tag))
        elapsed = time.perf_counter() - started
        try:
            artifact = ctx.artifacts.write(
                frame.table,
                tenant_id=state.user_context.tenant_id if state.user_context else None,
                request_id=state.trace_id,
                sub_query_id=sq.id,
                truncated=frame.truncated,
                subgraph_name=state.subgraph_name or "",
                dag_node_id=scan_node_id(sq.id),
                schema_version=snapshot.fingerprint,
            )
        except Exception as exc:  # disk full, read-only folder: this sub-query fails, not the run
            return self._fail(crash(NODE, ErrorCode.ARTIFACT_WRITE_FAILED, exc, **tag))
        response = ExecutorResponse(
            artifact=artifact, row_count=frame.row_count, truncated=frame.truncated,
            metrics={"execute_s": round(elapsed, 6), "row_cap": row_cap},
        )
        note = f"{frame.row_count} rows" + (f" (truncated at {row_cap})" if frame.truncated else "")
        delta = {"executor_response": response, "reasoning": [reasoning(NODE, note)]}
        finding = self._post_check(state, ctx, adapter, snapshot, matched_nothing(frame.table), tag)
        if finding is not None:
            delta.update(errors=[finding], post_checks_done=[finding.error_code.value])
            delta["reasoning"].append(reasoning(NODE, finding.message))
        return delta

    def _post_check(self, state, ctx, adapter, snapshot, empty: bool, tag: dict):
        """At most one finding, each kind once per sub-query, only while a retry is possible."""
        if state.pinned_plan is not None or state.retry_count >= ctx.settings.sql_agent_max_retries:
            return None
        plan = state.ast_planner_response.plan
        done = set(state.post_checks_done)
        if empty and "VALUE_NOT_FOUND" not in done:
            finding = value_not_found(plan, snapshot, getattr(adapter, "lookup_values", None), **tag)
            if finding is not None:
                return finding
        if "JOIN_FAN_OUT" not in done:
            return join_fan_out(plan, snapshot, **tag)
        return None

    def _fail(self, failure) -> dict:
        return {"errors": [failure], "reasoning": [reasoning(NODE, failure.message)]}
