"""The generator's response, and one SQL draft of a sub-query (every attempt's is kept)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class GeneratorResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sql_draft: str
    dialect: str


class SqlDraft(BaseModel):
    """The SQL one attempt of a sub-query rendered (attempt 0 first, then each retry's)."""

    model_config = ConfigDict(extra="forbid")

    attempt: int
    sql: str
    dialect: str
