"""What an analyst can do with a result: approve, reject, pin, verify (QueryResult's buttons).

    approve → record the approvals, then run again on the approved plans (a pin of source
              "approved": no re-planning) with the approvals, which let exactly those queries run
    reject  → record the rejections; the returned result shows the sub-queries dropped (nothing runs)
    pin     → store the run's decomposition and plans (source "chosen") for its question
    verify  → promote a successful single-query run to a curated answer
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from nl2sql.errors import ErrorCode, ErrorSeverity, error
from nl2sql.governance.approvals import (
    Approval,
    ApprovalRequest,
    PinnedRun,
    PinnedSource,
    pinned_from_approvals,
)
from nl2sql.governance.curated import CuratedAnswer
from nl2sql.names import APPROVAL

if TYPE_CHECKING:
    from nl2sql.result import QueryResult


def approve(result: QueryResult, request_ids: Iterable[str] | None = None, *,
            by: str | None = None, note: str | None = None) -> QueryResult:
    """Approve the held requests (all by default) and run again with the approvals."""
    requests = _pending(result, request_ids)
    session = result._session
    approvals = [Approval(request_id=r.id, approved=True, by=by or _who(result), note=note) for r in requests]
    for request, approval in zip(requests, approvals, strict=True):
        session.approvals.record(request, approval)
    pinned = pinned_from_approvals(approvals, requests, result.decomposition, question=result._state.user_query)
    earlier = result._state.pinned
    if pinned is not None and earlier is not None and earlier.decomposition == pinned.decomposition:
        # the held run was itself pinned: keep its other plans, the approved ones on top
        pinned = pinned.model_copy(update={"plans": {**earlier.plans, **pinned.plans},
                                           "fingerprints": {**earlier.fingerprints, **pinned.fingerprints}})
    return session._run(result.question, result.datasource, result.executed, user=result.user,
                        pinned=pinned, approvals=approvals)


def reject(result: QueryResult, request_ids: Iterable[str] | None = None, *,
           by: str | None = None, note: str | None = None) -> QueryResult:
    """Record the refusal of the held requests; the result shows them dropped. Nothing runs."""
    from nl2sql.pipeline.runtime import RunOutcome
    from nl2sql.result import QueryResult

    requests = _pending(result, request_ids)
    session = result._session
    who = by or _who(result)
    for request in requests:
        session.approvals.record(request, Approval(request_id=request.id, approved=False, by=who, note=note))
    refusals = [_refusal(r, who, note) for r in requests]
    rejected = {r.sub_query_id: e for r, e in zip(requests, refusals, strict=True)}
    state = result._state
    outputs = {
        key: out.model_copy(update={"status": "dropped", "errors": [rejected[out.sub_query.id], *out.errors]})
        if out.sub_query is not None and out.sub_query.id in rejected else out
        for key, out in state.subgraph_outputs.items()
    }
    ids = {r.id for r in requests}
    updated = state.model_copy(update={
        "errors": refusals + list(state.errors),
        "approvals_needed": [a for a in state.approvals_needed if a.id not in ids],
        "subgraph_outputs": outputs,
    })
    outcome = RunOutcome(updated, result.trace, result.trace_final_node, 0.0)
    return QueryResult(outcome, session, question=result.question, datasource=result.datasource,
                       execute=result.executed, user=result.user)


def pin(result: QueryResult) -> PinnedRun:
    """Store the run's decomposition and plans so its question runs on them next time."""
    decomposition = result.decomposition
    if decomposition is None or not decomposition.sub_queries:
        raise ValueError("nothing to pin: the run produced no decomposition")
    if result._state.verified_match is not None:
        raise ValueError("this answer is a curated one: it already runs its verified query")
    failed = [o.sub_query.id for o in result.sub_queries if o.status in ("error", "dropped") and o.sub_query]
    plans = {o.sub_query.id: o.plan for o in result.sub_queries if o.sub_query and o.plan is not None}
    missing = [sq.id for sq in decomposition.sub_queries if sq.id not in plans]
    if failed or missing:
        raise ValueError(f"cannot pin: sub-queries {sorted(set(failed + missing))} have no usable plan")
    session = result._session
    fingerprints = {sq.datasource_id: session.context.schemas.get(sq.datasource_id).fingerprint
                    for sq in decomposition.sub_queries}
    pinned = PinnedRun(source=PinnedSource.CHOSEN, decomposition=decomposition.model_dump(mode="json"),
                       plans=plans, fingerprints=fingerprints, question=result._state.user_query)
    session.pins.save(result.question, pinned, result.datasource)
    return pinned


def verify(result: QueryResult, *, by: str | None = None, note: str | None = None) -> CuratedAnswer:
    """Promote a successful run of one query to a curated answer (`.nl2sql/curated.yaml`)."""
    if result.status != "success" or not result.executed:
        raise ValueError(f"only a successful, executed run can be verified (this one: {result.status})")
    outputs = [o for o in result.sub_queries if o.sql_draft]
    decomposition = result.decomposition
    if len(outputs) != 1 or (decomposition is not None and decomposition.post_combine_ops):
        raise ValueError("a curated answer is one query on one datasource; this run combines "
                         f"{len(outputs)} sub-queries")
    out = outputs[0]
    # the SQL that ran is what was verified (the plan stays in the run's history)
    answer = CuratedAnswer(question=result._state.user_query, datasource=out.sub_query.datasource_id,
                           sql=out.sql_draft, verified_by=by or _who(result), note=note)
    curated = result._session.governance.curated
    if curated is None:
        raise ValueError("curated answers are not available in this session")
    curated.promote(answer)
    return answer


def _pending(result: QueryResult, request_ids: Iterable[str] | None) -> list[ApprovalRequest]:
    pending = list(result.approvals_needed)
    if not pending:
        raise ValueError("nothing to decide: the run holds no query for approval")
    if request_ids is None:
        return pending
    wanted = [request_ids] if isinstance(request_ids, str) else list(request_ids)
    unknown = sorted(set(wanted) - {r.id for r in pending})
    if unknown:
        raise ValueError(f"unknown approval request(s) {unknown}; pending: {[r.id for r in pending]}")
    return [r for r in pending if r.id in set(wanted)]


def _who(result: QueryResult) -> str | None:
    return result.user.user_id if result.user is not None else None


def _refusal(request: ApprovalRequest, by: str | None, note: str | None):
    message = "execution was rejected" + (f" by {by}" if by else "") + (f": {note}" if note else "")
    return error(APPROVAL, ErrorCode.SECURITY_VIOLATION, message, severity=ErrorSeverity.CRITICAL,
                 sub_query_id=request.sub_query_id, request_id=request.id)


def supplied_pin(context, question: str, plan, datasource: str | None) -> PinnedRun:
    """A supplied plan (PlanModel, its dict, or a whole PinnedRun) as a pin of source "supplied".

    The datasource is `datasource`, or the one datasource whose schema has every table the plan
    names; the pin carries the schema's current fingerprint (the plan is validated as it runs).
    """
    from nl2sql.decomposition import DecomposerResponse, SubQuery, sub_query_id
    from nl2sql.plan import PlanModel

    if isinstance(plan, PinnedRun):
        return plan
    plan = plan if isinstance(plan, PlanModel) else PlanModel.model_validate(plan)
    ds = datasource or _datasource_for(context, plan)
    if ds not in context.datasources:
        raise ValueError(f"unknown datasource {ds!r}; known: {', '.join(context.datasources)}")
    sq = SubQuery(id=sub_query_id(ds, question, 0), datasource_id=ds, intent=question)
    decomposition = DecomposerResponse(sub_queries=[sq], reasoning="a plan supplied by the analyst")
    return PinnedRun(source=PinnedSource.SUPPLIED, decomposition=decomposition.model_dump(mode="json"),
                     plans={sq.id: plan}, fingerprints={ds: context.schemas.get(ds).fingerprint},
                     question=question)


def _datasource_for(context, plan) -> str:
    ids = list(context.datasources)
    if len(ids) == 1:
        return ids[0]
    names = [t.name for t in plan.tables]
    fits = [ds for ds in ids if all(context.schemas.get(ds).table(n) is not None for n in names)]
    if len(fits) != 1:
        where = f"it fits {fits}" if fits else "no datasource has all its tables"
        raise ValueError(f"pass datasource=: the plan's datasource is ambiguous ({where})")
    return fits[0]
