"""The answer synthesizer's response."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class AnswerSynthesizerResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer: str
    format: str = "text"
