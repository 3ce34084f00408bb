"""Approvals and pinned runs: the values GraphState carries for them.

An `ApprovalRequest` is what the approval gate emits when an execute.before hook holds a
sub-query back; its id is derived from the question, the sub-query, the plan and the SQL, so an
approval cannot be replayed for a different query. Approving creates an `Approval`; running again
with it pins the approved plans (`pinned_from_approvals`, source "approved") so nothing is
re-planned, and the gate lets exactly that request run.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from nl2sql.decomposition import DecomposerResponse, SubQuery
from nl2sql.plan import PlanModel


class PinnedSource(StrEnum):
    SUPPLIED = "supplied"  # the analyst passed a plan
    APPROVED = "approved"  # an approval of a held plan
    CHOSEN = "chosen"  # the analyst pinned a run's plan


class ApprovalRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str  # derived from question, sub-query, plan and SQL (request_id)
    sub_query_id: str
    reason: str
    plan: PlanModel | None = None  # None for a curated answer given as SQL only
    sql: str
    datasource_id: str
    question: str = ""  # the run's question (after run.before)
    intent: str = ""  # the sub-query's intent, for people reading the request
    dialect: str | None = None
    fingerprint: str | None = None  # schema fingerprint of the datasource when it was planned


class Approval(BaseModel):
    model_config = ConfigDict(extra="forbid")

    request_id: str
    approved: bool = True  # False records a rejection
    by: str | None = None
    note: str | None = None


class PinnedRun(BaseModel):
    """A decomposition and its plans, run again without re-planning."""

    model_config = ConfigDict(extra="forbid")

    source: PinnedSource
    decomposition: dict[str, Any]  # DecomposerResponse as a dict (kept loose: it is re-validated on entry)
    plans: dict[str, PlanModel] = Field(default_factory=dict)  # sub_query_id -> plan
    fingerprints: dict[str, str] = Field(default_factory=dict)  # datasource_id -> schema fingerprint
    question: str = ""  # the question it was made for


def request_id(question: str, sub_query: SubQuery, plan: PlanModel | None, sql: str) -> str:
    """The stable id of an approval request: a hash of what would run and why.

    >>> from nl2sql.decomposition import SubQuery
    >>> sq = SubQuery(id="sq_1", datasource_id="w", intent="count orders")
    >>> request_id("q", sq, None, "SELECT 1") == request_id("q", sq, None, "SELECT 1")
    True
    >>> request_id("q", sq, None, "SELECT 1") == request_id("q", sq, None, "SELECT 2")
    False
    """
    payload = {
        "question": question,
        "sub_query": sub_query.model_dump(mode="json"),
        "plan": plan.model_dump(mode="json") if plan is not None else None,
        "sql": sql,
    }
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
    return "apr_" + hashlib.sha256(blob).hexdigest()[:16]


def pinned_from_approvals(
    approvals: Iterable[Approval],
    requests: Iterable[ApprovalRequest],
    decomposition: DecomposerResponse | dict[str, Any] | None,
    question: str = "",
) -> PinnedRun | None:
    """The approved requests' plans pinned on their run's decomposition (source "approved").

    None when nothing approved carries a plan (e.g. a curated answer, which runs its verified
    SQL again without a pin) or when the decomposition is unknown.
    """
    if decomposition is None:
        return None
    approved = {a.request_id for a in approvals if a.approved}
    chosen = [r for r in requests if r.id in approved and r.plan is not None]
    if not chosen:
        return None
    if isinstance(decomposition, DecomposerResponse):
        decomposition = decomposition.model_dump(mode="json")
    return PinnedRun(
        source=PinnedSource.APPROVED,
        decomposition=decomposition,
        plans={r.sub_query_id: r.plan for r in chosen},
        fingerprints={r.datasource_id: r.fingerprint for r in chosen if r.fingerprint},
        question=question or chosen[0].question,
    )
