"""LogicalValidatorNode: the plan against the schema snapshot and the policies."""

from __future__ import annotations

from langgraph.runtime import Runtime

from nl2sql.context import NL2SQLContext
from nl2sql.pipeline.names import LOGICAL_VALIDATOR
from nl2sql.pipeline.nodes.common import reasoning
from nl2sql.pipeline.state import SubgraphExecutionState
from nl2sql.pipeline.subgraphs.nodes.logical_validator.schemas import LogicalValidatorResponse
from nl2sql.validation import checks_to_errors, validate_plan

NODE = LOGICAL_VALIDATOR


class LogicalValidatorNode:
    def __call__(self, state: SubgraphExecutionState, runtime: Runtime[NL2SQLContext]) -> dict:
        ctx = runtime.context
        sq = state.sub_query
        plan = state.ast_planner_response.plan
        snapshot = ctx.schemas.get(sq.datasource_id)
        checks = validate_plan(
            plan, snapshot, strict_columns=ctx.settings.logical_validator_strict_columns
        )
        failed = [c for c in checks if not c.passed]
        errors = [
            e.model_copy(update={"details": {**e.details, "attempt": state.retry_count}})
            for e in checks_to_errors(failed, node=NODE, sub_query_id=sq.id)
        ]
        note = f"{len(checks) - len(failed)}/{len(checks)} checks passed" + (
            "; " + "; ".join(c.message for c in failed) if failed else ""
        )
        return {
            "logical_validator_response": LogicalValidatorResponse(checks=checks),
            "errors": errors,
            "reasoning": [reasoning(NODE, note)],
        }
