"""ApprovalGateNode: the execute.before hooks, between the generator and the executor.

allow → the executor runs the SQL; deny → the sub-query is dropped (SECURITY_VIOLATION);
require_approval → an ApprovalRequest and nothing runs; a hook that breaks → a clear error and
nothing runs. An approval of this exact request (question, sub-query, plan, SQL) lets it run.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from nl2sql.context import NL2SQLContext
from nl2sql.governance.gate import Candidate, screen
from nl2sql.names import APPROVAL_GATE
from nl2sql.pipeline.nodes.common import reasoning
from nl2sql.pipeline.state import SubgraphExecutionState
from nl2sql.security.rbac import UserContext

NODE = APPROVAL_GATE


class ApprovalGateNode:
    def __call__(self, state: SubgraphExecutionState, runtime: Runtime[NL2SQLContext]) -> dict[str, Any]:
        ctx = runtime.context
        generated = state.require_generated()
        query = Candidate(
            question=state.user_query,
            sub_query=state.require_sub_query(),
            plan=state.ast_planner_response.plan if state.ast_planner_response else None,
            sql=generated.sql_draft,
            dialect=generated.dialect,
            user=state.user_context or UserContext(),
            approvals=tuple(state.approvals),
        )
        verdict = screen(ctx, query, node=NODE, attempt=state.retry_count)
        note = [reasoning(NODE, verdict.note, request_id=verdict.request.id)]
        if verdict.outcome == "deny":
            return {"dropped": True, "errors": [verdict.error], "reasoning": note}
        if verdict.outcome == "fail":
            return {"errors": [verdict.error], "reasoning": note}
        if verdict.outcome == "hold":
            return {"approvals_needed": [verdict.request], "reasoning": note}
        return {"reasoning": note}
