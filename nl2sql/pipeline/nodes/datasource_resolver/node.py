"""DatasourceResolverNode: which datasources can answer, then the answerability check."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from nl2sql.context import NL2SQLContext
from nl2sql.errors import ErrorCode, ErrorSeverity, PipelineError, error
from nl2sql.governance.services import access_of
from nl2sql.names import ANSWERABILITY, DATASOURCE_RESOLVER
from nl2sql.pipeline.nodes.common import reasoning, skill_failure
from nl2sql.pipeline.nodes.datasource_resolver.schemas import (
    DatasourceResolverResponse,
    ResolvedDatasource,
)
from nl2sql.pipeline.state import GraphState
from nl2sql.reasoning.base import AnswerabilityRequest

NODE = DATASOURCE_RESOLVER


class DatasourceResolverNode:
    """Explicit id → check it exists and RBAC allows it; otherwise only the datasources the
    user's roles allow are candidates: one → no search; several → vector search. Then the
    answerability skill decides whether any candidate can answer (it sees only what the user may
    read: the run's schema store is filtered by their access)."""

    def __call__(self, state: GraphState, runtime: Runtime[NL2SQLContext]) -> dict[str, Any]:
        ctx = runtime.context
        candidates, failure = self._candidates(state, ctx)
        if failure is not None:
            return self._end(candidates, failure, "")
        snapshots = {c.id: ctx.schemas.get(c.id) for c in candidates}
        try:
            skill = ctx.models.skill(ANSWERABILITY)
            verdict = skill.check_answerability(
                AnswerabilityRequest(question=state.user_query, datasources=snapshots)
            )
        except Exception as exc:  # a model call that failed is the resolver's failure
            return self._end(candidates, skill_failure(NODE, exc, ErrorCode.SCHEMA_RETRIEVAL_FAILED), "")
        if not verdict.answerable:
            failure = error(NODE, ErrorCode.QUESTION_NOT_ANSWERABLE, verdict.reason)
            return self._end(candidates, failure, verdict.reason)
        allowed = [c.id for c in candidates if c.id in set(verdict.datasource_ids)]
        response = DatasourceResolverResponse(
            candidates=candidates, allowed_datasource_ids=allowed, answerable=True,
            reason=verdict.reason,
        )
        note = f"candidates {[c.id for c in candidates]}; answerable by {allowed}: {verdict.reason}"
        return {
            "datasource_resolver_response": response,
            "reasoning": [reasoning(NODE, note, confidence=verdict.confidence)],
        }

    def _candidates(
        self, state: GraphState, ctx: NL2SQLContext
    ) -> tuple[list[ResolvedDatasource], PipelineError | None]:
        access = access_of(ctx, state.user_context)
        ids = [i for i in ctx.datasources if access.allows_datasource(i)]
        if state.datasource_id is not None:
            if state.datasource_id not in ctx.datasources:
                msg = f"unknown datasource {state.datasource_id!r}; known: {', '.join(ctx.datasources)}"
                return [], error(NODE, ErrorCode.INVALID_STATE, msg)
            if state.datasource_id not in ids:
                return [], _denied(f"datasource {state.datasource_id!r} is not allowed for this user's roles")
            return [ResolvedDatasource(id=state.datasource_id, reason="explicit")], None
        if not ids:
            return [], _denied("no datasource is allowed for this user's roles "
                               f"({', '.join(access.roles) or 'no roles'})")
        if len(ids) == 1:
            return [ResolvedDatasource(id=ids[0], reason="only datasource")], None
        try:
            store = ctx.vector_store
            if store is None:
                msg = "several datasources are registered but no vector store is configured"
                return [], error(NODE, ErrorCode.SCHEMA_RETRIEVAL_FAILED, msg)
            hits = store.search_datasources(state.user_query, k=len(ids))
        except Exception as exc:
            return [], error(NODE, ErrorCode.SCHEMA_RETRIEVAL_FAILED, f"datasource search failed: {exc}")
        ranked = [ResolvedDatasource(id=i, score=round(s, 4), reason="vector search") for i, s in hits if i in ids]
        if not ranked:
            return [], error(NODE, ErrorCode.SCHEMA_RETRIEVAL_FAILED, "no datasource matches the question")
        return ranked, None

    def _end(self, candidates: list[ResolvedDatasource], failure: PipelineError, reason: str) -> dict[str, Any]:
        response = DatasourceResolverResponse(candidates=candidates, answerable=False, reason=reason or failure.message)
        return {
            "datasource_resolver_response": response,
            "errors": [failure],
            "reasoning": [reasoning(NODE, failure.message)],
        }


def _denied(message: str) -> PipelineError:
    return error(NODE, ErrorCode.SECURITY_VIOLATION, message, severity=ErrorSeverity.CRITICAL)
