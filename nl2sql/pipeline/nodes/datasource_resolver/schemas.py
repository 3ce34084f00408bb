"""The datasource resolver's response."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ResolvedDatasource(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    score: float = 1.0
    reason: str = ""


class DatasourceResolverResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    candidates: list[ResolvedDatasource] = Field(default_factory=list)
    allowed_datasource_ids: list[str] = Field(default_factory=list)
    answerable: bool = False
    reason: str = ""
