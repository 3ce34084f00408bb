"""The aggregator's response: one result per terminal node of the DAG."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from nl2sql.errors import PipelineError, RunWarning
from nl2sql.execution.models import ArtifactRef


class AggregatorResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    terminal_results: dict[str, ArtifactRef] = Field(default_factory=dict)  # dag node id -> result
    operations: dict[str, str] = Field(default_factory=dict)  # dag node id -> operation label
    errors: list[PipelineError] = Field(default_factory=list)
    warnings: list[RunWarning] = Field(default_factory=list)
