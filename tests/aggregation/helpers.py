"""Builders shared by the aggregation tests: a decomposition, its DAG, and one combine run."""

from __future__ import annotations

import pyarrow as pa

from nl2sql.aggregation import CombineOutcome, run_combine
from nl2sql.dag import build_dag
from nl2sql.decomposition import (
    CombineGroup,
    CombineInput,
    DecomposerResponse,
    JoinKey,
    PostCombineOp,
    SubQuery,
)


def group(
    group_id: str,
    operation: str,
    *inputs: str | tuple[str, str],
    keys: list[tuple[str, str]] | None = None,
) -> CombineGroup:
    """A combine group; an input is a sub-query id or (sub-query id, role)."""
    parsed = [
        CombineInput(subquery_id=i)
        if isinstance(i, str)
        else CombineInput(subquery_id=i[0], role=i[1])
        for i in inputs
    ]
    return CombineGroup(
        group_id=group_id,
        operation=operation,
        inputs=parsed,
        join_keys=[JoinKey(left=left, right=right) for left, right in keys or []],
    )


def run(
    groups: list[CombineGroup],
    inputs: dict[str, pa.Table],
    *,
    ops: list[PostCombineOp] | None = None,
    truncated: dict[str, bool] | None = None,
    sub_queries: list[str] | None = None,
) -> CombineOutcome:
    """Build the decomposition and its DAG, then run the combine engine over `inputs`."""
    ids = sub_queries or list(inputs)
    response = DecomposerResponse(
        sub_queries=[SubQuery(id=i, datasource_id="shop", intent=f"part {i}") for i in ids],
        combine_groups=groups,
        post_combine_ops=ops or [],
    )
    return run_combine(build_dag(response), response, inputs, truncated or {})
