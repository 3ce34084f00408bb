"""The refiner's response: what the planner should change on its next attempt."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class RefinerResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    feedback: str
    latest_error: dict[str, Any] = Field(default_factory=dict)  # {node, error_code, message}
    hints: dict[str, Any] = Field(default_factory=dict)  # structured repairs, e.g. a value fix
