"""ASTPlannerNode: a PlanModel for the sub-query (a pinned plan is returned as it is)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from langgraph.runtime import Runtime

from nl2sql.context import NL2SQLContext
from nl2sql.decomposition import SubQuery
from nl2sql.errors import ErrorCode, PipelineError, error, safe_one_line
from nl2sql.names import AST_PLANNER
from nl2sql.pipeline.nodes.common import reasoning, skill_failure
from nl2sql.pipeline.state import SubgraphExecutionState
from nl2sql.pushdown import FuseError, fuse_plans, runs_in
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
            if sq.pushed_down is not None:
                return self._fused(sq, request, ctx, attempt)
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
                            sub_query_id=sq.id, attempt=attempt, **_refused(response))
            return {"ast_planner_response": response, "errors": [failure], "reasoning": [note]}
        return {"ast_planner_response": response, "reasoning": [note]}

    def _fused(self, sq: SubQuery, request: PlanRequest, ctx: NL2SQLContext, attempt: int) -> dict[str, Any]:
        """Plan each part of a pushed-down group, then fuse the plans into one query."""
        pushed = sq.pushed_down
        assert pushed is not None
        plans, notes, confidence = [], [], 1.0
        for part in pushed.parts:
            response = ctx.models.skill(AST_PLANNER).plan(replace(request, sub_query=part))
            notes.append(f"'{part.intent}': {response.reasoning}")
            if response.plan is None:
                message = f"part '{part.intent}' could not be planned: {response.reasoning or 'no plan'}"
                failure = error(NODE, ErrorCode.PLANNING_FAILURE, message, sub_query_id=sq.id, attempt=attempt,
                                **_refused(response))
                return {"ast_planner_response": ASTPlannerResponse(plan=None, confidence=0.0, reasoning=message),
                        "errors": [failure], "reasoning": [reasoning(NODE, message, attempt=attempt)]}
            plans.append(response.plan)
            confidence = min(confidence, response.confidence)
        where = runs_in(ctx.datasources[sq.datasource_id].dialect, sq.datasource_id)
        try:
            plan = fuse_plans(pushed, plans, ctx.schemas.get(sq.datasource_id))
        except FuseError as exc:
            message = f"the {pushed.operation} cannot run as one query in {where}: {exc}"
            failure = error(NODE, ErrorCode.PLANNING_FAILURE, message, sub_query_id=sq.id, attempt=attempt)
            return {"ast_planner_response": ASTPlannerResponse(plan=None, confidence=0.0, reasoning=message),
                    "errors": [failure], "reasoning": [reasoning(NODE, message, attempt=attempt)]}
        text = (f"{pushed.operation} of {len(plans)} parts pushed down: runs as one query in {where}; "
                + "; ".join(notes))
        response = ASTPlannerResponse(plan=plan, confidence=confidence, reasoning=text)
        note = reasoning(NODE, text, confidence=confidence, attempt=attempt, runs_in=where)
        return {"ast_planner_response": response, "reasoning": [note]}


def _refused(response: ASTPlannerResponse) -> dict[str, Any]:
    """The refusal's data for the error's details (what teaching reads), or nothing."""
    return {"refusal": response.refusal.model_dump(mode="json")} if response.refusal else {}


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
