"""The reasoning skills: one per model-made decision, its request and its response.

Every decision a model would make is a typed skill: a request dataclass in, a pydantic response
out. The offline engine implements all of them; a chat model implements them through structured
output. Nodes ask the model registry (`reasoning/registry.py`) for the skill of their node name
and never know which is behind it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from nl2sql.decomposition import DecomposerResponse, SubQuery
from nl2sql.errors import Refusal
from nl2sql.labels import ColumnInfo
from nl2sql.plan import PlanModel
from nl2sql.schema.models import SchemaSnapshot
from nl2sql.semantic.across import CrossRelationship

_FORBID = ConfigDict(extra="forbid")

#: Bounded lookup of existing values: (table_key, column, needle, limit) -> matching values.
ValueLookup = Callable[[str, str, str, int], list[str]]


@dataclass(frozen=True)
class AnswerabilityRequest:
    question: str
    datasources: Mapping[str, SchemaSnapshot]  # the allowed candidates, best first


@dataclass(frozen=True)
class DecomposeRequest:
    question: str
    datasources: Mapping[str, SchemaSnapshot]  # the allowed candidates, best first
    descriptions: Mapping[str, str] = field(default_factory=dict)
    # the semantic layer's relationships between two of these datasources
    relationships: Sequence[CrossRelationship] = ()


@dataclass(frozen=True)
class PlanRequest:
    question: str  # the run's question
    sub_query: SubQuery
    snapshot: SchemaSnapshot  # the relevant tables (retrieved)
    full_snapshot: SchemaSnapshot  # every table of the datasource, for join paths
    dialect: str
    feedback: Mapping[str, Any] | None = None  # latest attempt: {node, error_code, message}
    hints: Mapping[str, Any] = field(default_factory=dict)  # structured repairs from the refiner
    values: ValueLookup | None = None
    # the day relative dates ("last month") are counted from: the run's reference date
    reference_date: date | None = None
    # below this confidence the run asks the user to choose: the planner lists other readings
    clarify_below: float = 0.0


@dataclass(frozen=True)
class RefineRequest:
    question: str
    sub_query: SubQuery
    plan: PlanModel | None
    latest_error: Mapping[str, Any]  # {node, error_code, message}
    details: Mapping[str, Any]  # the error's structured details (e.g. suggestions)
    snapshot: SchemaSnapshot


@dataclass(frozen=True)
class ResultPreview:
    """What the synthesizer sees of one terminal result."""

    label: str
    columns: list[str]
    rows: list[tuple[Any, ...]]  # the first rows only
    row_count: int
    truncated: bool = False
    # what produced the rows, when they are one sub-query's own result (None once combined):
    # the answer may only claim what the query did ("distinct" only with DISTINCT)
    plan: PlanModel | None = None
    sql: str | None = None
    # each column's human label and role, read off the plans behind the result (also once
    # combined): the answer names "Orders", never `count_orders_left`
    column_info: tuple[ColumnInfo, ...] = ()

    def column_label(self, index: int) -> str:
        """The human label of column `index` (its SQL name when none is known)."""
        if index < len(self.column_info) and self.column_info[index].name == self.columns[index]:
            return self.column_info[index].label
        return self.columns[index]

    def column_role(self, index: int) -> str:
        if index < len(self.column_info) and self.column_info[index].name == self.columns[index]:
            return self.column_info[index].role
        return ""


@dataclass(frozen=True)
class SynthesizeRequest:
    question: str
    results: list[ResultPreview]
    decomposition: DecomposerResponse | None = None
    reference_date: date | None = None  # the day relative dates counted from


# -- responses (what a model emits: extra fields are refused, so a bad answer is asked again) ----


class AnswerabilityResponse(BaseModel):
    """Whether the question can be answered from the candidate datasources, and by which."""

    model_config = _FORBID

    answerable: bool
    datasource_ids: list[str] = Field(default_factory=list)  # those that can answer
    reason: str = ""
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)


class PlanCandidate(BaseModel):
    """One reading of a sub-query the user may choose: its plan, in one line, and how likely;
    `meaning` is what it takes the words the readings dispute to mean ({word: table or
    table.column}), each a term the analyst may teach."""

    model_config = _FORBID

    description: str
    plan: PlanModel
    confidence: float = Field(ge=0.0, le=1.0)
    meaning: dict[str, str] = Field(default_factory=dict)


class ASTPlannerResponse(BaseModel):
    """One sub-query's plan (None: the planner refused), and where it came from.

    `refusal` says, with `plan: null`, why in a form teaching can act on: words that name
    nothing in the schema, or tables no join path connects (see nl2sql/semantic/suggest.py).
    `candidates` (the readings to offer when the confidence is under `clarify_below`, best
    first, the plan's own first) and `evidence` (what the confidence was computed from) are
    filled by the offline engine; they are not part of a model's structured output."""

    model_config = _FORBID

    plan: PlanModel | None = None
    plan_source: Literal["planned", "pinned", "verified"] = "planned"
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    reasoning: str = ""
    refusal: Refusal | None = None
    candidates: SkipJsonSchema[list[PlanCandidate]] = Field(default_factory=list)
    evidence: SkipJsonSchema[dict[str, float]] = Field(default_factory=dict)


class RefinerResponse(BaseModel):
    """What the planner should change on its next attempt."""

    model_config = _FORBID

    feedback: str
    latest_error: dict[str, Any] = Field(default_factory=dict)  # {node, error_code, message}
    hints: dict[str, Any] = Field(default_factory=dict)  # structured repairs, e.g. a value fix


class AnswerSynthesizerResponse(BaseModel):
    """The answer in words."""

    model_config = _FORBID

    answer: str
    format: str = "text"


class AnswerabilitySkill(Protocol):
    def check_answerability(self, request: AnswerabilityRequest) -> AnswerabilityResponse: ...


class DecomposerSkill(Protocol):
    def decompose(self, request: DecomposeRequest) -> DecomposerResponse: ...


class PlannerSkill(Protocol):
    def plan(self, request: PlanRequest) -> ASTPlannerResponse: ...


class RefinerSkill(Protocol):
    def refine(self, request: RefineRequest) -> RefinerResponse: ...


class SynthesizerSkill(Protocol):
    def synthesize(self, request: SynthesizeRequest) -> AnswerSynthesizerResponse: ...
