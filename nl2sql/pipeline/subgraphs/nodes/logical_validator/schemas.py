"""The logical validator's response: one check per rule."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from nl2sql.validation.checks import ValidationCheck


class LogicalValidatorResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    checks: list[ValidationCheck] = Field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)
