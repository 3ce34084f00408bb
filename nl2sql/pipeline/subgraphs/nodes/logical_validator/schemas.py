"""The logical validator's response: one check per rule."""

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


class LogicalValidatorResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    checks: list[ValidationCheck] = Field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)
