"""The subgraph boundary: build_scan_payload (the state filter in) and wrap_subgraph (the way back)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from pydantic import BaseModel, ConfigDict, Field

from nl2sql.context import NL2SQLContext
from nl2sql.decomposition import SubQuery
from nl2sql.errors import ErrorCode, PipelineError, RunWarning, error
from nl2sql.governance.approvals import Approval, PinnedSource
from nl2sql.names import SQL_AGENT
from nl2sql.pipeline.state import GraphState, SubgraphExecutionState
from nl2sql.pipeline.subgraphs.schemas import SubgraphOutput
from nl2sql.plan import PlanModel
from nl2sql.security.rbac import UserContext


class ScanPayload(BaseModel):
    """What a Send carries into a subgraph: only what the scan needs (a state filter)."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    trace_id: str
    user_query: str
    user_context: UserContext
    subgraph_id: str
    subgraph_name: str
    sub_query: SubQuery
    approvals: list[Approval] = Field(default_factory=list)
    pinned_plan: PlanModel | None = None
    pinned_source: PinnedSource | None = None
    row_budget: int | None = None  # at most this many rows: the scan feeds a combine across engines


def subgraph_id_for(subgraph_name: str, sub_query_id: str) -> str:
    return f"{subgraph_name}:{sub_query_id}"


def build_scan_payload(
    state: GraphState, sub_query: SubQuery, subgraph_name: str, row_budget: int | None = None
) -> ScanPayload:
    """The state filter into one scan: its sub-query, who asks, the approvals and its pinned plan
    (and, for an input of a local combine, the most rows it may pull)."""
    pinned = state.pinned
    plan = pinned.plans.get(sub_query.id) if pinned is not None else None
    return ScanPayload(
        trace_id=state.trace_id,
        user_query=state.user_query,
        user_context=state.user_context,
        subgraph_id=subgraph_id_for(subgraph_name, sub_query.id),
        subgraph_name=subgraph_name,
        sub_query=sub_query,
        approvals=state.approvals,
        pinned_plan=plan,
        pinned_source=pinned.source if pinned is not None and plan is not None else None,
        row_budget=row_budget,
    )


def wrap_subgraph(
    compiled: CompiledStateGraph[SubgraphExecutionState, NL2SQLContext, SubgraphExecutionState, SubgraphExecutionState],
    execute: bool,
) -> Callable[[ScanPayload, Runtime[NL2SQLContext]], dict[str, Any]]:
    """A main-graph node that runs `compiled` for one scan and reports back into GraphState."""

    def run_scan(payload: ScanPayload, runtime: Runtime[NL2SQLContext]) -> dict[str, Any]:
        initial = SubgraphExecutionState(
            trace_id=payload.trace_id,
            user_query=payload.user_query,
            sub_query=payload.sub_query,
            user_context=payload.user_context,
            subgraph_id=payload.subgraph_id,
            subgraph_name=payload.subgraph_name,
            approvals=payload.approvals,
            pinned_plan=payload.pinned_plan,
            pinned_source=payload.pinned_source,
            row_budget=payload.row_budget,
        )
        final = SubgraphExecutionState.model_validate(
            # langgraph takes a dict of the state's fields too; its typing asks for the model
            compiled.invoke(initial.model_dump(), context=runtime.context)  # type: ignore[call-overload]
        )
        return report(final, execute)

    return run_scan


def report(final: SubgraphExecutionState, execute: bool) -> dict[str, Any]:
    """The delta one finished sub-query contributes to GraphState (status from its last attempt)."""
    sq = final.require_sub_query()
    plan = final.ast_planner_response.plan if final.ast_planner_response else None
    sql = final.generator_response.sql_draft if final.generator_response else None
    artifact = final.executor_response.artifact if final.executor_response else None
    held = bool(final.approvals_needed) and not final.dropped and not _last_attempt_blocked(final)
    if final.dropped:
        status = "dropped"
    elif held:
        status = "needs_approval"  # waiting for an approval: neither run nor failed
    elif sql and (artifact is not None or not execute) and not _last_attempt_blocked(final):
        status = "success"
    else:
        status = "error"
    output = SubgraphOutput(
        sub_query=sq,
        subgraph_id=final.subgraph_id or "",
        subgraph_name=final.subgraph_name,
        retry_count=final.retry_count,
        plan=plan,
        plan_source=final.ast_planner_response.plan_source if final.ast_planner_response else None,
        sql_draft=sql,
        sql_drafts=final.sql_drafts,
        dialect=final.generator_response.dialect if final.generator_response else None,
        artifact=artifact if status == "success" else None,
        errors=final.errors,
        validation=final.logical_validator_response.checks if final.logical_validator_response else [],
        reasoning=final.reasoning,
        status=status,
    )
    delta: dict[str, Any] = {
        "subgraph_outputs": {output.subgraph_id: output},
        "reasoning": final.reasoning,
        "warnings": list(final.warnings),
        "approvals_needed": final.approvals_needed,
    }
    if status in ("success", "needs_approval"):
        if artifact is not None and status == "success":
            delta["artifact_refs"] = {sq.id: artifact}
        delta["warnings"] += [_recovered(e, sq.id) for e in final.errors]
    else:
        errors = list(final.errors)
        if status == "error" and not any(e.is_blocking for e in errors):
            errors.append(error(SQL_AGENT, ErrorCode.MISSING_SQL,
                                "the sub-query ended without an executed query", sub_query_id=sq.id))
        errors = [e if e.sub_query_id else e.model_copy(update={"sub_query_id": sq.id}) for e in errors]
        # a policy refusal is the reason the sub-query stopped: it comes first
        delta["errors"] = sorted(errors, key=lambda e: e.error_code != ErrorCode.SECURITY_VIOLATION)
    return delta


def _last_attempt_blocked(final: SubgraphExecutionState) -> bool:
    return any(
        e.is_blocking and e.details.get("attempt", final.retry_count) == final.retry_count
        for e in final.errors
    )


def _recovered(err: PipelineError, sub_query_id: str) -> RunWarning:
    return RunWarning(
        node=err.node,
        code=err.error_code.value,
        message=err.message,
        sub_query_id=err.sub_query_id or sub_query_id,
        detail={"recovered": err.is_blocking, "severity": err.severity.value},
    )
