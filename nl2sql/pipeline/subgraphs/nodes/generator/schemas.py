"""The generator's response."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class GeneratorResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sql_draft: str
    dialect: str
