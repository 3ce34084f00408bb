"""PinnedEntryNode: a pinned run's entry — the pinned decomposition and its DAG, no re-planning.

Takes the decomposer's place (and the resolver's: the pin names its datasources). Before anything
runs, the pin is checked: every datasource must still exist and be allowed for this user, and
the schema of each datasource with a pinned plan must still have the fingerprint the plan was
made for. A stale pin is refused with a clear error (INVALID_STATE), never run on a changed schema.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from pydantic import ValidationError

from nl2sql.context import NL2SQLContext
from nl2sql.dag import DAGError, build_dag
from nl2sql.decomposition import DecomposerResponse
from nl2sql.errors import ErrorCode, ErrorSeverity, PipelineError, error
from nl2sql.governance.approvals import PinnedRun
from nl2sql.governance.services import access_of
from nl2sql.names import PINNED_ENTRY
from nl2sql.pipeline.nodes.common import reasoning
from nl2sql.pipeline.state import GraphState, required
from nl2sql.security.rbac import raw_snapshot

NODE = PINNED_ENTRY


class PinnedEntryNode:
    def __call__(self, state: GraphState, runtime: Runtime[NL2SQLContext]) -> dict[str, Any]:
        ctx = runtime.context
        pinned = required(state.pinned, "pinned run")  # the entry route checked it
        try:
            response = DecomposerResponse.model_validate(pinned.decomposition)
        except ValidationError as exc:
            return _fail(error(NODE, ErrorCode.INVALID_STATE,
                               f"the pinned decomposition is not valid: {exc.errors()[0]['msg']}"))
        failure = _check(pinned, response, ctx, state)
        if failure is not None:
            return _fail(failure)
        try:
            dag = build_dag(response)
        except DAGError as exc:
            return _fail(error(NODE, ErrorCode.PLANNER_FAILED, f"cannot build the pinned execution plan: {exc}"))
        note = (f"pinned run ({pinned.source.value}): {len(response.sub_queries)} sub-queries, "
                f"{len(pinned.plans)} pinned plans, schema fingerprints current")
        return {"decomposer_response": response, "execution_dag": dag, "reasoning": [reasoning(NODE, note)]}


def _check(pinned: PinnedRun, response: DecomposerResponse, ctx: NL2SQLContext,
           state: GraphState) -> PipelineError | None:
    """The first reason the pin may not run: unknown or denied datasource, stray plan, stale schema."""
    access = access_of(ctx, state.user_context)
    by_id = {sq.id: sq for sq in response.sub_queries}
    for sq in response.sub_queries:
        if sq.datasource_id not in ctx.datasources:
            return error(NODE, ErrorCode.INVALID_STATE,
                         f"the pinned run uses datasource {sq.datasource_id!r}, which is not registered")
        if not access.allows_datasource(sq.datasource_id):
            return error(NODE, ErrorCode.SECURITY_VIOLATION, f"datasource {sq.datasource_id!r} is not "
                         "allowed for this user's roles", severity=ErrorSeverity.CRITICAL)
    stray = sorted(set(pinned.plans) - set(by_id))
    if stray:
        return error(NODE, ErrorCode.INVALID_STATE, f"pinned plans {stray} belong to no sub-query of the pin")
    for ds in sorted({by_id[i].datasource_id for i in pinned.plans}):
        current = raw_snapshot(ctx.schemas, ds).fingerprint
        made_for = pinned.fingerprints.get(ds)
        if made_for != current:
            return error(
                NODE, ErrorCode.INVALID_STATE,
                f"the pinned plan is stale: datasource {ds!r} changed since it was pinned "
                f"(schema {made_for or 'unknown'} → {current}); unpin it (session.unpin(question)) and ask again to re-plan",
                reason="stale_pin", datasource_id=ds, pinned_fingerprint=made_for, current_fingerprint=current,
            )
    return None


def _fail(failure: PipelineError) -> dict[str, Any]:
    return {"errors": [failure], "reasoning": [reasoning(NODE, failure.message)]}
