"""The governance decisions behind a result's buttons, as pure functions of the run's values.

`Session.approve / reject / pin / verify` call these and run (or rebuild) the result themselves;
nothing here knows a Session, a QueryResult or the pipeline's state.

    approve → approvals for the chosen requests, and the pin (source "approved") to run them on
    reject  → a refusal per chosen request (SECURITY_VIOLATION, CRITICAL)
    pin     → the run's decomposition and plans as a pin (source "chosen")
    verify  → a successful single-query run as a curated answer
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from nl2sql.decomposition import DecomposerResponse, SubQuery, sub_query_id
from nl2sql.errors import ErrorCode, ErrorSeverity, PipelineError, error
from nl2sql.governance.approvals import (
    Approval,
    ApprovalRequest,
    PinnedRun,
    PinnedSource,
    pinned_from_approvals,
)
from nl2sql.governance.curated import CuratedAnswer
from nl2sql.names import APPROVAL
from nl2sql.plan import PlanModel

if TYPE_CHECKING:
    from nl2sql.context import NL2SQLContext

def chosen_requests(pending: Sequence[ApprovalRequest],
                    request_ids: str | Iterable[str] | None) -> list[ApprovalRequest]:
    """The held requests a decision applies to: all by default, else those named."""
    if not pending:
        raise ValueError("nothing to decide: the run holds no query for approval")
    if request_ids is None:
        return list(pending)
    wanted = {request_ids} if isinstance(request_ids, str) else set(request_ids)
    unknown = sorted(wanted - {r.id for r in pending})
    if unknown:
        raise ValueError(f"unknown approval request(s) {unknown}; pending: {[r.id for r in pending]}")
    return [r for r in pending if r.id in wanted]


def approvals_for(requests: Iterable[ApprovalRequest], *, approved: bool, by: str | None,
                  note: str | None) -> list[Approval]:
    return [Approval(request_id=r.id, approved=approved, by=by, note=note) for r in requests]


def approved_pin(approvals: Sequence[Approval], requests: Sequence[ApprovalRequest],
                 decomposition: DecomposerResponse | None, question: str,
                 earlier: PinnedRun | None) -> PinnedRun | None:
    """The pin that runs exactly the approved plans; a held run that was itself pinned keeps its
    other plans, with the approved ones on top."""
    pinned = pinned_from_approvals(approvals, requests, decomposition, question=question)
    if pinned is not None and earlier is not None and earlier.decomposition == pinned.decomposition:
        pinned = pinned.model_copy(update={"plans": {**earlier.plans, **pinned.plans},
                                           "fingerprints": {**earlier.fingerprints, **pinned.fingerprints}})
    return pinned


def refusal(request: ApprovalRequest, by: str | None, note: str | None) -> PipelineError:
    """A rejected request, as the error its sub-query ends with."""
    message = "execution was rejected" + (f" by {by}" if by else "") + (f": {note}" if note else "")
    return error(APPROVAL, ErrorCode.SECURITY_VIOLATION, message, severity=ErrorSeverity.CRITICAL,
                 sub_query_id=request.sub_query_id, request_id=request.id)


def chosen_pin(decomposition: DecomposerResponse | None, plans: Mapping[str, PlanModel],
               failed: Iterable[str], fingerprint: Callable[[str], str], question: str) -> PinnedRun:
    """The run's decomposition and plans as a pin; refused when a sub-query has no usable plan.

    `fingerprint(datasource_id)` gives the schema fingerprint the pin is valid for.
    """
    if decomposition is None or not decomposition.sub_queries:
        raise ValueError("nothing to pin: the run produced no decomposition")
    missing = [sq.id for sq in decomposition.sub_queries if sq.id not in plans]
    unusable = sorted(set(failed) | set(missing))
    if unusable:
        raise ValueError(f"cannot pin: sub-queries {unusable} have no usable plan")
    fingerprints = {sq.datasource_id: fingerprint(sq.datasource_id) for sq in decomposition.sub_queries}
    return PinnedRun(source=PinnedSource.CHOSEN, decomposition=decomposition.model_dump(mode="json"),
                     plans=dict(plans), fingerprints=fingerprints, question=question)


def supplied_pin(context: NL2SQLContext, question: str, plan: object,
                 datasource: str | None) -> PinnedRun:
    """A supplied plan (PlanModel, its dict, or a whole PinnedRun) as a pin of source "supplied".

    The datasource is `datasource`, or the one datasource whose schema has every table the plan
    names; the pin carries the schema's current fingerprint (the plan is validated as it runs).
    """
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


def curated_answer(question: str, datasource: str, sql: str, *, by: str | None,
                   note: str | None, template: NL2SQLContext | None = None) -> CuratedAnswer:
    """The SQL that ran, as the verified answer to `question` (the plan stays in the history).

    With `template` (the session's context), the literals of the SQL that the question names
    become its parameters; a ValueError when there is none."""
    parameters = None
    if template is not None:
        from nl2sql.governance.curated_template import derive_parameters

        snapshot = template.schemas.get(datasource)
        parameters = derive_parameters(question, sql, snapshot, template.datasources[datasource].dialect)
        if not parameters:
            raise ValueError("no value of this run's SQL is named in its question: it cannot be a "
                             "template (save it with verify() alone)")
    return CuratedAnswer(question=question, datasource=datasource, sql=sql, verified_by=by, note=note,
                         parameters=parameters)


def _datasource_for(context: NL2SQLContext, plan: PlanModel) -> str:
    ids = list(context.datasources)
    if len(ids) == 1:
        return ids[0]
    names = [t.name for t in plan.tables]
    fits = [ds for ds in ids if all(context.schemas.get(ds).table(n) is not None for n in names)]
    if len(fits) != 1:
        where = f"it fits {fits}" if fits else "no datasource has all its tables"
        raise ValueError(f"pass datasource=: the plan's datasource is ambiguous ({where})")
    return fits[0]
