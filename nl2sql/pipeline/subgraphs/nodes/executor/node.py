"""ExecutorNode: guard the SQL, run it read-only with a row cap and timeout, write the artifact."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from nl2sql.context import NL2SQLContext
from nl2sql.datasources.base import DatasourceAdapter
from nl2sql.errors import ErrorCode, PipelineError, error
from nl2sql.execution.guarded import run_guarded, write_artifact
from nl2sql.names import EXECUTOR
from nl2sql.pipeline.nodes.common import reasoning
from nl2sql.pipeline.state import SubgraphExecutionState
from nl2sql.pipeline.subgraphs.nodes.executor.checks import (
    join_fan_out,
    matched_nothing,
    value_not_found,
)
from nl2sql.pipeline.subgraphs.nodes.executor.schemas import ExecutorResponse
from nl2sql.schema.models import SchemaSnapshot

NODE = EXECUTOR


class ExecutorNode:
    def __call__(self, state: SubgraphExecutionState, runtime: Runtime[NL2SQLContext]) -> dict[str, Any]:
        ctx = runtime.context
        sq = state.require_sub_query()
        tag: dict[str, Any] = {"sub_query_id": sq.id, "attempt": state.retry_count}
        if state.generator_response is None or not state.generator_response.sql_draft:
            return self._fail(error(NODE, ErrorCode.MISSING_SQL, "no SQL to execute", **tag))
        sql = state.generator_response.sql_draft
        adapter = ctx.datasources.get(sq.datasource_id)
        if adapter is None:
            return self._fail(error(NODE, ErrorCode.INVALID_STATE, f"datasource {sq.datasource_id!r} is not registered", **tag))
        snapshot = ctx.schemas.get(sq.datasource_id)
        ran = run_guarded(ctx, adapter, sql, allowed_tables=[t.key for t in snapshot.tables], node=NODE,
                          unreadable=ErrorCode.SQL_GEN_FAILED, row_budget=state.row_budget, **tag)
        if ran.error is not None:
            return self._fail(ran.error)
        frame, row_cap = ran.frame, ran.row_cap
        assert frame is not None  # run_guarded returns either rows or the error that stopped them
        artifact, failure = write_artifact(
            ctx, frame, node=NODE, sub_query_id=sq.id, request_id=state.trace_id,
            tenant_id=state.user_context.tenant_id if state.user_context else None,
            subgraph_name=state.subgraph_name or "", schema_version=snapshot.fingerprint,
            **{k: v for k, v in tag.items() if k != "sub_query_id"},
        )
        if failure is not None or artifact is None:
            return self._fail(failure or error(NODE, ErrorCode.ARTIFACT_WRITE_FAILED, "no artifact", **tag))
        response = ExecutorResponse(
            artifact=artifact, row_count=frame.row_count, truncated=frame.truncated,
            metrics={"execute_s": round(ran.elapsed_s, 6), "row_cap": row_cap},
        )
        note = f"{frame.row_count} rows" + (f" (truncated at {row_cap})" if frame.truncated else "")
        delta: dict[str, Any] = {"executor_response": response, "reasoning": [reasoning(NODE, note)]}
        finding = self._post_check(state, ctx, adapter, snapshot, matched_nothing(frame.table), tag)
        if finding is not None:
            delta.update(errors=[finding], post_checks_done=[finding.error_code.value])
            delta["reasoning"].append(reasoning(NODE, finding.message))
        return delta

    def _post_check(
        self, state: SubgraphExecutionState, ctx: NL2SQLContext, adapter: DatasourceAdapter,
        snapshot: SchemaSnapshot, empty: bool, tag: dict[str, Any],
    ) -> PipelineError | None:
        """At most one finding, each kind once per sub-query, only while a retry is possible."""
        if state.pinned_plan is not None or state.retry_count >= ctx.settings.sql_agent_max_retries:
            return None
        plan = state.require_plan()
        done = set(state.post_checks_done)
        if empty and "VALUE_NOT_FOUND" not in done:
            finding = value_not_found(plan, snapshot, adapter.lookup_values, **tag)
            if finding is not None:
                return finding
        if "JOIN_FAN_OUT" not in done:
            return join_fan_out(plan, snapshot, **tag)
        return None

    def _fail(self, failure: PipelineError) -> dict[str, Any]:
        return {"errors": [failure], "reasoning": [reasoning(NODE, failure.message)]}
