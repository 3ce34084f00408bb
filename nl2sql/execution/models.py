"""ArtifactRef: where a sub-query's result lives, with a hash of its data."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict


class ArtifactColumn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    dtype: str


class ArtifactRef(BaseModel):
    model_config = ConfigDict(extra="forbid")

    uri: str
    backend: str = "local"
    format: str = "parquet"
    row_count: int
    columns: list[ArtifactColumn]
    bytes: int
    content_hash: str  # sha256 of the data (schema + rows), not of the file's bytes
    truncated: bool = False
    created_at: datetime
