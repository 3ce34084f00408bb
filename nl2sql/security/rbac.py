"""Who is asking: UserContext. (Role policies arrive with the governance work; until a policy file
is configured every datasource, table and column is allowed.)"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class UserContext(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    user_id: str | None = None
    tenant_id: str | None = None
    roles: tuple[str, ...] = Field(default_factory=tuple)
