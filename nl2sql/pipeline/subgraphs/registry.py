"""Capability-keyed registry of subgraphs: which subgraph runs a datasource's scans."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nl2sql.errors import ErrorCode, ErrorSeverity, PipelineError, PipelineExecutionError
from nl2sql.names import LAYER_ROUTER, SQL_AGENT


@dataclass(frozen=True)
class SubgraphSpec:
    name: str  # the main-graph node that runs it
    requires: frozenset[str]


#: In order of preference; the first whose requirements a datasource meets runs its scans.
SUBGRAPHS: tuple[SubgraphSpec, ...] = (SubgraphSpec(name=SQL_AGENT, requires=frozenset({"sql"})),)


def resolve_subgraph(datasource_id: str, adapter: Any) -> SubgraphSpec:
    """The subgraph for a datasource, or PipelineExecutionError when none is compatible."""
    names: frozenset[str] = getattr(getattr(adapter, "capabilities", None), "names", frozenset())
    for spec in SUBGRAPHS:
        if spec.requires <= names:
            return spec
    raise PipelineExecutionError(
        PipelineError(
            node=LAYER_ROUTER,
            message=f"no subgraph can run queries on datasource {datasource_id!r}",
            severity=ErrorSeverity.CRITICAL,
            error_code=ErrorCode.INVALID_STATE,
        )
    )
