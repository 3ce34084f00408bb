"""Approvals and pinned runs: the values GraphState carries for them."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict, Field

from nl2sql.plan import PlanModel



class PinnedSource(str, Enum):
    SUPPLIED = "supplied"  # the analyst passed a plan
    APPROVED = "approved"  # an approval of a held plan
    CHOSEN = "chosen"  # the analyst pinned a run's plan


class ApprovalRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str  # derived from question, sub-query, plan and SQL
    sub_query_id: str
    reason: str
    plan: PlanModel
    sql: str
    datasource_id: str


class Approval(BaseModel):
    model_config = ConfigDict(extra="forbid")

    request_id: str
    approved: bool = True
    by: str | None = None
    note: str | None = None


class PinnedRun(BaseModel):
    """A decomposition and its plans, run again without re-planning."""

    model_config = ConfigDict(extra="forbid")

    source: PinnedSource
    decomposition: dict  # DecomposerResponse as a dict (kept loose: it is re-validated on entry)
    plans: dict[str, PlanModel] = Field(default_factory=dict)  # sub_query_id -> plan
    fingerprints: dict[str, str] = Field(default_factory=dict)  # datasource_id -> schema fingerprint
