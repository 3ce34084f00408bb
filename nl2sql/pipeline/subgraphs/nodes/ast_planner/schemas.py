"""The AST planner's response."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from nl2sql.plan import PlanModel


class ASTPlannerResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    plan: PlanModel | None = None
    plan_source: Literal["planned", "pinned", "verified"] = "planned"
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    reasoning: str = ""
