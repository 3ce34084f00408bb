"""SubgraphOutput: what one sub-query's SQL agent run leaves in the main state."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from nl2sql.decomposition import SubQuery
from nl2sql.errors import PipelineError
from nl2sql.execution.models import ArtifactRef
from nl2sql.pipeline.subgraphs.nodes.generator.schemas import SqlDraft
from nl2sql.plan import PlanModel
from nl2sql.validation.checks import ValidationCheck


class SubgraphOutput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sub_query: SubQuery | None = None
    subgraph_id: str
    subgraph_name: str | None = None
    retry_count: int = 0
    plan: PlanModel | None = None
    plan_source: str | None = None
    sql_draft: str | None = None  # the final attempt's SQL
    sql_drafts: list[SqlDraft] = Field(default_factory=list)  # every attempt's SQL, in order
    dialect: str | None = None
    artifact: ArtifactRef | None = None
    errors: list[PipelineError] = Field(default_factory=list)
    validation: list[ValidationCheck] = Field(default_factory=list)
    reasoning: list[dict[str, Any]] = Field(default_factory=list)
    status: Literal["success", "error", "dropped", "needs_approval"] | None = None
