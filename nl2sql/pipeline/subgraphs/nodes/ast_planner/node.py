"""ASTPlannerNode: a PlanModel for the sub-query (a pinned plan is returned as it is)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from nl2sql.context import NL2SQLContext
from nl2sql.errors import ErrorCode, PipelineError, error, safe_one_line
from nl2sql.names import AST_PLANNER
from nl2sql.pipeline.nodes.common import reasoning, skill_failure
from nl2sql.pipeline.state import SubgraphExecutionState
from nl2sql.reasoning.base import ASTPlannerResponse, PlanCandidate, PlanRequest
from nl2sql.settings import reference_date

NODE = AST_PLANNER


class ASTPlannerNode:
    def __call__(self, state: SubgraphExecutionState, runtime: Runtime[NL2SQLContext]) -> dict[str, Any]:
        sq = state.require_sub_query()
        if state.pinned_plan is not None:
            response = ASTPlannerResponse(plan=state.pinned_plan, plan_source="pinned",
                                          reasoning=f"pinned plan ({state.pinned_source})")
            return {"ast_planner_response": response, "reasoning": [reasoning(NODE, response.reasoning)]}
        ctx = runtime.context
        full = ctx.schemas.get(sq.datasource_id)
        adapter = ctx.datasources[sq.datasource_id]
        request = PlanRequest(
            question=state.user_query,
            sub_query=sq,
            snapshot=full.model_copy(update={"tables": state.relevant_tables or full.tables}),
            full_snapshot=full,
            dialect=adapter.dialect,
            feedback=state.refiner_response.latest_error if state.refiner_response else None,
            hints=state.refiner_response.hints if state.refiner_response else {},
            values=adapter.lookup_values,
            reference_date=reference_date(ctx.settings),
            clarify_below=ctx.settings.min_confidence,
        )
        attempt = state.retry_count
        try:
            response = ctx.models.skill(AST_PLANNER).plan(request)
        except Exception as exc:
            failure = skill_failure(NODE, exc, ErrorCode.PLANNING_FAILURE, retryable=True,
                                    sub_query_id=sq.id, attempt=attempt)
            return {"ast_planner_response": ASTPlannerResponse(plan=None, confidence=0.0),
                    "errors": [failure], "reasoning": [reasoning(NODE, failure.message)]}
        extra = {"evidence": response.evidence} if response.evidence else {}
        note = reasoning(NODE, response.reasoning, confidence=response.confidence, attempt=attempt,
                         **extra)
        unsure = _unsure(response, ctx.settings.min_confidence, sub_query_id=sq.id, attempt=attempt)
        if unsure is not None:
            return {"ast_planner_response": response, "errors": [unsure], "reasoning": [note]}
        if response.plan is None:
            # A deliberate refusal: asking again with the same inputs gives the same answer.
            failure = error(NODE, ErrorCode.PLANNING_FAILURE,
                            response.reasoning or "the question could not be planned",
                            sub_query_id=sq.id, attempt=attempt)
            return {"ast_planner_response": response, "errors": [failure], "reasoning": [note]}
        return {"ast_planner_response": response, "reasoning": [note]}


def _unsure(response: ASTPlannerResponse, min_confidence: float, **where: Any) -> PipelineError | None:
    """CLARIFICATION_NEEDED when the planner's reading is under `min_confidence` (or it refused
    but has readings to offer): the run is not answered; the candidates go to the user."""
    candidates = list(response.candidates)
    if response.plan is not None and response.confidence >= min_confidence:
        return None
    if response.plan is None and not candidates:
        return None  # a plain refusal
    if not candidates and response.plan is not None:  # a model's plan: offer it as it is
        candidates = [PlanCandidate(description=safe_one_line(response.reasoning or "the plan", 160),
                                    plan=response.plan, confidence=response.confidence)]
    shown = f"{response.confidence:.2f}" if response.plan is not None else "none"
    message = (f"not sure how to read the question (confidence {shown}, under "
               f"min_confidence {min_confidence:.2f}); choose one of {len(candidates)} reading(s)")
    return error(NODE, ErrorCode.CLARIFICATION_NEEDED, message,
                 candidates=[c.model_dump(mode="json") for c in candidates], **where)
