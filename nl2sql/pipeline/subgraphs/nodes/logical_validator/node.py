"""LogicalValidatorNode: the plan against the schema snapshot and the policies.

Without a policy the plan is checked against the snapshot. With one, access is checked against
the unfiltered snapshot with the user's allowed tables and columns, so a plan touching a denied
object is refused as such (SECURITY_VIOLATION, fatal: never retried, nothing runs); every other
rule runs on the snapshot as the user sees it, so no finding (e.g. a "did you mean" suggestion
that the refiner would pass to a model) can name a denied object.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from nl2sql.context import NL2SQLContext
from nl2sql.governance.services import access_of
from nl2sql.names import LOGICAL_VALIDATOR
from nl2sql.pipeline.nodes.common import reasoning
from nl2sql.pipeline.state import SubgraphExecutionState
from nl2sql.pipeline.subgraphs.nodes.logical_validator.schemas import LogicalValidatorResponse
from nl2sql.plan import PlanModel
from nl2sql.security.rbac import raw_snapshot
from nl2sql.validation import checks_to_errors, validate_plan
from nl2sql.validation.checks import ValidationCheck
from nl2sql.validation.rules import RULES

NODE = LOGICAL_VALIDATOR
ACCESS_RULE = "access_policy"


class LogicalValidatorNode:
    def __call__(self, state: SubgraphExecutionState, runtime: Runtime[NL2SQLContext]) -> dict[str, Any]:
        ctx = runtime.context
        sq = state.require_sub_query()
        plan = state.require_plan()
        checks = self._checks(plan, ctx, state)
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

    def _checks(self, plan: PlanModel, ctx: NL2SQLContext, state: SubgraphExecutionState) -> list[ValidationCheck]:
        ds = state.require_sub_query().datasource_id
        strict = ctx.settings.logical_validator_strict_columns
        seen = ctx.schemas.get(ds)  # filtered by the user's access when a policy exists
        access = access_of(ctx, state.user_context)
        if not access.restricted:
            return validate_plan(plan, seen, strict_columns=strict)
        full = raw_snapshot(ctx.schemas, ds)
        policy = [
            c for c in validate_plan(plan, full, strict_columns=strict,
                                     allowed_tables=access.allowed_tables(full),
                                     allowed_columns=access.allowed_columns(full))
            if c.name == ACCESS_RULE
        ]
        rest = [c for c in validate_plan(plan, seen, strict_columns=strict) if c.name != ACCESS_RULE]
        order = {name: i for i, (name, _, _) in enumerate(RULES)}
        return sorted(rest + policy, key=lambda c: order.get(c.name, len(order)))
