"""The decomposer's response: sub-queries, how to combine them, and what to do after."""

from __future__ import annotations

import hashlib
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from nl2sql.plan import Expr, OrderItem, SelectItem

_FORBID = ConfigDict(extra="forbid")


def sub_query_id(datasource_id: str, intent: str, position: int) -> str:
    """Stable id: hash of datasource, normalized intent and position (retries keep the same id)."""
    norm = re.sub(r"\s+", " ", intent.strip().lower())
    digest = hashlib.sha256(f"{datasource_id}\x1f{norm}\x1f{position}".encode()).hexdigest()
    return f"sq_{digest[:12]}"


class SubQuery(BaseModel):
    model_config = _FORBID

    id: str
    datasource_id: str
    intent: str  # natural language; no word of English is forbidden here
    metrics: list[str] = Field(default_factory=list)
    filters: list[str] = Field(default_factory=list)
    group_by: list[str] = Field(default_factory=list)
    order_by: list[str] = Field(default_factory=list)
    limit: int | None = None
    expected_schema: list[str] = Field(default_factory=list)  # output column names, when known
    # `table.column` of this datasource that a join across sources matches on (a relationship of
    # the semantic layer): selected by the plan and, when it aggregates, grouped by, so its
    # measures come per key.
    key_columns: list[str] = Field(default_factory=list, exclude_if=lambda v: not v)
    # Set by the push-down step (nl2sql/pushdown.py), never by a model: the sub-queries this one
    # answers as one query on their common datasource, and how they are combined.
    pushed_down: PushedDown | None = Field(default=None, exclude_if=lambda v: v is None)


class CombineInput(BaseModel):
    model_config = _FORBID
    subquery_id: str
    role: str = "input"  # e.g. left / right, or a label for compare


class JoinKey(BaseModel):
    model_config = _FORBID
    left: str  # column of the first input
    right: str  # column of the second input


class PushedDown(BaseModel):
    """A combine group run as one query on the engine all its sub-queries live on."""

    model_config = _FORBID

    group_id: str
    operation: Literal["union", "join", "compare"]
    parts: list[SubQuery] = Field(min_length=2)
    roles: list[str]
    join_keys: list[JoinKey] = Field(default_factory=list)


class CombineGroup(BaseModel):
    model_config = _FORBID

    group_id: str
    operation: Literal["standalone", "union", "join", "compare"]
    inputs: list[CombineInput] = Field(min_length=1)
    join_keys: list[JoinKey] = Field(default_factory=list)


class PostCombineOp(BaseModel):
    """One step of the chain applied, in list order, to a combine group's result."""

    model_config = _FORBID

    op_id: str
    group_id: str
    op: Literal["filter", "aggregate", "project", "sort", "limit"]
    condition: Expr | None = None  # filter: columns referenced by output name (table=None)
    group_by: list[str] = Field(default_factory=list)  # aggregate
    aggregates: list[SelectItem] = Field(default_factory=list)  # aggregate
    columns: list[str] = Field(default_factory=list)  # project
    order_by: list[OrderItem] = Field(default_factory=list)  # sort
    limit: int | None = None  # limit


SubQuery.model_rebuild()


class DecomposerResponse(BaseModel):
    model_config = _FORBID

    sub_queries: list[SubQuery] = Field(default_factory=list)
    combine_groups: list[CombineGroup] = Field(default_factory=list)
    post_combine_ops: list[PostCombineOp] = Field(default_factory=list)
    unmapped_subqueries: list[str] = Field(default_factory=list)  # parts no datasource can answer
    reasoning: str = ""
