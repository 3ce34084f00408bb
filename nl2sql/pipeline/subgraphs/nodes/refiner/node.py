"""RefinerNode: turn the latest attempt's failure into feedback for the planner."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from nl2sql.context import NL2SQLContext
from nl2sql.errors import ErrorCode, PipelineError
from nl2sql.names import REFINER
from nl2sql.pipeline.nodes.common import reasoning, skill_failure
from nl2sql.pipeline.state import SubgraphExecutionState
from nl2sql.reasoning.base import RefineRequest, RefinerResponse

NODE = REFINER


def latest_errors(state: SubgraphExecutionState, attempt: int) -> list[PipelineError]:
    return [e for e in state.errors if e.details.get("attempt") == attempt]


class RefinerNode:
    def __call__(self, state: SubgraphExecutionState, runtime: Runtime[NL2SQLContext]) -> dict[str, Any]:
        ctx = runtime.context
        previous = latest_errors(state, state.retry_count - 1)
        # Only the latest attempt is fed back, its most severe finding first.
        previous.sort(key=lambda e: (not e.is_blocking,))
        latest = previous[0] if previous else None
        summary = (
            {"node": latest.node, "error_code": latest.error_code.value, "message": latest.message}
            if latest else {}
        )
        plan = state.ast_planner_response.plan if state.ast_planner_response else None
        sq = state.require_sub_query()
        try:
            response = ctx.models.skill(REFINER).refine(
                RefineRequest(
                    question=state.user_query, sub_query=sq, plan=plan,
                    latest_error=summary,
                    details={k: v for k, v in (latest.details if latest else {}).items() if k != "trace"},
                    snapshot=ctx.schemas.get(sq.datasource_id),
                )
            )
        except Exception as exc:
            failure = skill_failure(NODE, exc, ErrorCode.PLANNING_FAILURE,
                                    sub_query_id=sq.id, attempt=state.retry_count)
            return {"errors": [failure], "refiner_response": RefinerResponse(feedback=failure.message, latest_error=summary)}
        response = response.model_copy(update={"latest_error": summary})
        return {"refiner_response": response, "reasoning": [reasoning(NODE, response.feedback)]}
