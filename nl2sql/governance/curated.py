"""Curated, verified answers: the value the matcher puts in state on a hit."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class VerifiedMatch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str  # the curated question that matched
    datasource_id: str
    sql: str
    score: float
    method: str  # "exact" | "embedding"
