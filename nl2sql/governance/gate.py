"""The execute.before screen: one query, about to run, against the hooks and the approvals.

Shared by the SQL agent's approval gate and the curated matcher (a verified query runs the same
hooks). The outcome is one of: allow; deny (the sub-query is dropped, SECURITY_VIOLATION);
hold (an ApprovalRequest); fail (a hook broke: a clear error, never a silent allow). A rejection
on record for the exact request denies it; an approval satisfies require_approval, never a deny.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from nl2sql.context import NL2SQLContext
from nl2sql.decomposition import SubQuery
from nl2sql.errors import ErrorCode, ErrorSeverity, PipelineError, error
from nl2sql.governance.approvals import Approval, ApprovalRequest, request_id
from nl2sql.governance.hooks import ExecuteHookContext, HookError
from nl2sql.governance.services import governance_of
from nl2sql.plan import PlanModel
from nl2sql.security.rbac import UserContext, raw_snapshot


@dataclass(frozen=True)
class Screened:
    outcome: Literal["allow", "deny", "hold", "fail"]
    request: ApprovalRequest
    note: str  # one line for the reasoning trail
    error: PipelineError | None = None  # deny / fail


@dataclass(frozen=True)
class Candidate:
    """The query about to run, and on whose behalf."""

    question: str
    sub_query: SubQuery
    plan: PlanModel | None
    sql: str
    dialect: str
    user: UserContext
    approvals: tuple[Approval, ...] = ()
    curated: bool = False


def screen(ctx: NL2SQLContext, query: Candidate, *, node: str, attempt: int | None = None) -> Screened:
    """Run the execute.before hooks on `query` and honour the decisions on record."""
    sq = query.sub_query
    ds = sq.datasource_id
    rid = request_id(query.question, sq, query.plan, query.sql)
    request = ApprovalRequest(
        id=rid, sub_query_id=sq.id, reason="", plan=query.plan, sql=query.sql, datasource_id=ds,
        question=query.question, intent=sq.intent, dialect=query.dialect,
        fingerprint=raw_snapshot(ctx.schemas, ds).fingerprint,
    )
    tag: dict[str, Any] = {"sub_query_id": sq.id, **({"attempt": attempt} if attempt is not None else {})}
    decided = [a for a in query.approvals if a.request_id == rid]
    if any(not a.approved for a in decided):
        by = next(a for a in decided if not a.approved)
        reason = "this query was rejected" + (f" by {by.by}" if by.by else "") + (f": {by.note}" if by.note else "")
        return Screened("deny", request, reason, _denied(node, reason, rid, **tag))
    hook_ctx = ExecuteHookContext(
        question=query.question, user=query.user, datasource_id=ds, dialect=query.dialect,
        snapshot=ctx.schemas.get(ds), request_id=rid, sql=query.sql, approvals=query.approvals,
        curated=query.curated,
    )
    try:
        decision, by_hook = governance_of(ctx).hooks.execute_before(sq, query.plan, query.sql, hook_ctx)
    except HookError as exc:
        failure = error(node, ErrorCode.INVALID_CONFIG, f"{exc}; the query was not executed",
                        severity=ErrorSeverity.CRITICAL, hook=exc.hook, event=exc.event, **tag)
        return Screened("fail", request, failure.message, failure)
    reason = decision.reason or f"{by_hook or 'a hook'} decided {decision.action}"
    if decision.action == "deny":
        message = f"execute.before hook {by_hook!r} denied the query: {reason}"
        return Screened("deny", request, message, _denied(node, message, rid, hook=by_hook, **tag))
    if decision.action == "require_approval":
        if hook_ctx.approved:
            who = next(a.by for a in decided if a.approved)
            return Screened("allow", request, f"approved{f' by {who}' if who else ''}: {reason}")
        held = request.model_copy(update={"reason": reason})
        return Screened("hold", held, f"held for approval ({held.id}): {reason}")
    return Screened("allow", request, "execute.before: allowed")


def _denied(node: str, message: str, rid: str, **details: Any) -> PipelineError:
    return error(node, ErrorCode.SECURITY_VIOLATION, message, severity=ErrorSeverity.CRITICAL,
                 request_id=rid, **details)


def run_before(ctx: NL2SQLContext, question: str, user: UserContext,
               datasource_id: str | None) -> tuple[str, list[dict[str, Any]], PipelineError | None]:
    """(question to run, reasoning notes, refusal) after the run.before hooks.

    A deny or a broken hook is the refusal: the run does not start."""
    from nl2sql.governance.hooks import RunHookContext

    hook_ctx = RunHookContext(user=user, datasource_id=datasource_id, datasources=tuple(ctx.datasources))
    try:
        final, decision, notes = governance_of(ctx).hooks.run_before(question, hook_ctx)
    except HookError as exc:
        return question, [], error("run.before", ErrorCode.INVALID_CONFIG, f"{exc}; the run did not start",
                                   severity=ErrorSeverity.CRITICAL, hook=exc.hook, event=exc.event)
    trail = [{"node": "run.before", "content": note} for note in notes]
    if decision.action == "deny":
        message = "a run.before hook denied the run" + (f": {decision.reason}" if decision.reason else "")
        return question, trail, error("run.before", ErrorCode.SECURITY_VIOLATION, message,
                                      severity=ErrorSeverity.CRITICAL)
    return final, trail, None
