"""DecomposerNode: sub-queries and how to combine them, then the ExecutionDAG built in code."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from nl2sql.context import NL2SQLContext
from nl2sql.dag import DAGError, build_dag
from nl2sql.errors import ErrorCode, ErrorSeverity, error
from nl2sql.names import DECOMPOSER
from nl2sql.pipeline.nodes.common import reasoning, skill_failure
from nl2sql.pipeline.state import GraphState, required
from nl2sql.pushdown import placement, push_down
from nl2sql.reasoning.base import DecomposeRequest
from nl2sql.semantic.across import relevant_relationships

NODE = DECOMPOSER


class DecomposerNode:
    def __call__(self, state: GraphState, runtime: Runtime[NL2SQLContext]) -> dict[str, Any]:
        ctx = runtime.context
        allowed = required(state.datasource_resolver_response, "resolved datasources").allowed_datasource_ids
        snapshots = {ds: ctx.schemas.get(ds) for ds in allowed}
        try:
            response = ctx.models.skill(DECOMPOSER).decompose(
                DecomposeRequest(
                    question=state.user_query,
                    datasources=snapshots,
                    descriptions={ds: ctx.descriptions.get(ds, "") for ds in allowed},
                    relationships=relevant_relationships(ctx.relationships, snapshots),
                )
            )
        except Exception as exc:
            failure = skill_failure(NODE, exc, ErrorCode.ORCHESTRATOR_CRASH,
                                    severity=ErrorSeverity.CRITICAL)
            return {"errors": [failure], "reasoning": [reasoning(NODE, failure.message)]}
        unnamed = [sq.id for sq in response.sub_queries if not sq.datasource_id.strip()]
        stray = [sq.id for sq in response.sub_queries if sq.datasource_id not in snapshots]
        note = reasoning(NODE, response.reasoning or "decomposed", sub_queries=len(response.sub_queries))
        if unnamed:  # fatal: nothing can say where these would run
            failure = error(NODE, ErrorCode.MISSING_DATASOURCE_ID, f"sub-queries {unnamed} name no datasource")
            return {"decomposer_response": response, "errors": [failure], "reasoning": [note]}
        if response.unmapped_subqueries and response.sub_queries:
            # an answer to part of the question reads as the answer to all of it: refuse, and
            # say which part could be asked on its own
            answerable = [sq.intent for sq in response.sub_queries]
            failure = error(
                NODE, ErrorCode.QUESTION_NOT_ANSWERABLE,
                "only part of the question can be answered: no datasource answers "
                + ", ".join(f"'{u}'" for u in response.unmapped_subqueries)
                + "; ask " + " or ".join(f"'{a}'" for a in answerable) + " on its own",
                unmapped=list(response.unmapped_subqueries), answerable=answerable)
            return {"decomposer_response": response, "errors": [failure], "reasoning": [note]}
        if stray:
            failure = error(NODE, ErrorCode.PLANNER_FAILED,
                            f"sub-queries {stray} target datasources that were not resolved")
            return {"decomposer_response": response, "errors": [failure], "reasoning": [note]}
        # Only the push-down step fuses sub-queries: a model's own `pushed_down` is dropped.
        response = response.model_copy(update={"sub_queries": [
            sq.model_copy(update={"pushed_down": None}) for sq in response.sub_queries]})
        dialects = {ds: ctx.datasources[ds].dialect for ds in snapshots if ds in ctx.datasources}
        try:
            dag = build_dag(response)  # the decomposition as given must hold together first
            if ctx.settings.push_down:
                response, pushed = push_down(response, dialects)
                dag = build_dag(response) if pushed else dag
                note["content"] = "; ".join([note["content"], *pushed])
            note["sub_queries"] = len(response.sub_queries)
            note["runs_in"] = placement(response, dialects)  # the trace keeps where each step runs
        except DAGError as exc:
            failure = error(NODE, ErrorCode.PLANNER_FAILED, f"cannot build the execution plan: {exc}")
            return {"decomposer_response": response, "errors": [failure], "reasoning": [note]}
        return {"decomposer_response": response, "execution_dag": dag, "reasoning": [note]}
