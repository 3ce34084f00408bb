"""The datasource resolver's response."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ResolvedDatasource(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    score: float = 1.0
    reason: str = ""


class AnswerabilityResponse(BaseModel):
    """What the answerability skill decides (offline engine or a model)."""

    model_config = ConfigDict(extra="forbid")

    answerable: bool
    datasource_ids: list[str] = Field(default_factory=list)  # those that can answer
    reason: str = ""
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)


class DatasourceResolverResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    candidates: list[ResolvedDatasource] = Field(default_factory=list)
    allowed_datasource_ids: list[str] = Field(default_factory=list)
    answerable: bool = False
    reason: str = ""
