"""ValidationCheck: the outcome of one rule applied to a plan (or to a result)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from nl2sql.errors import ErrorSeverity


class ValidationCheck(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    passed: bool
    severity: ErrorSeverity = ErrorSeverity.ERROR
    message: str = ""
    details: dict[str, Any] = Field(default_factory=dict)
