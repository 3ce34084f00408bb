"""The executor's response."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from nl2sql.execution.models import ArtifactRef


class ExecutorResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    artifact: ArtifactRef | None = None
    row_count: int = 0
    truncated: bool = False
    metrics: dict[str, Any] = Field(default_factory=dict)
