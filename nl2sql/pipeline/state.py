"""GraphState and SubgraphExecutionState, with their reducers (design doc: GraphState).

Each node returns only its delta; LangGraph merges it with the reducers declared here:
`update_results` for the dict fields ({**current, **new}) and list concatenation for errors,
reasoning, warnings and approvals_needed. Every other field is last-writer-wins and owned by one
node.
"""

from __future__ import annotations

import operator
import uuid
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from nl2sql.dag import ExecutionDAG
from nl2sql.decomposition import DecomposerResponse, SubQuery
from nl2sql.errors import PipelineError, RunWarning
from nl2sql.execution.models import ArtifactRef
from nl2sql.governance.approvals import Approval, ApprovalRequest, PinnedRun, PinnedSource
from nl2sql.governance.curated import VerifiedMatch
from nl2sql.pipeline.nodes.aggregator.schemas import AggregatorResponse
from nl2sql.pipeline.nodes.datasource_resolver.schemas import DatasourceResolverResponse
from nl2sql.pipeline.subgraphs.nodes.executor.schemas import ExecutorResponse
from nl2sql.pipeline.subgraphs.nodes.generator.schemas import GeneratorResponse, SqlDraft
from nl2sql.pipeline.subgraphs.nodes.logical_validator.schemas import LogicalValidatorResponse
from nl2sql.pipeline.subgraphs.schemas import SubgraphOutput
from nl2sql.plan import PlanModel
from nl2sql.reasoning.base import AnswerSynthesizerResponse, ASTPlannerResponse, RefinerResponse
from nl2sql.schema.models import Table
from nl2sql.security.rbac import UserContext


def update_results(
    current: dict[str, Any] | None, new: dict[str, Any] | None
) -> dict[str, Any]:
    """Merge two dicts, keys of `new` winning: {**current, **new}."""
    return {**(current or {}), **(new or {})}


_T = TypeVar("_T")


def required(value: _T | None, what: str) -> _T:
    """`value`, which the graph's wiring guarantees by the time a node reads it.

    None means a node ran out of order: a wiring bug, reported as such rather than as an
    AttributeError deep in the node."""
    if value is None:
        raise ValueError(f"the graph state carries no {what}")
    return value


_STATE_CONFIG = ConfigDict(extra="ignore", arbitrary_types_allowed=True)


class GraphState(BaseModel):
    model_config = _STATE_CONFIG

    trace_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    user_query: str
    user_context: UserContext = Field(default_factory=UserContext)
    datasource_id: str | None = None
    verified_match: VerifiedMatch | None = None
    datasource_resolver_response: DatasourceResolverResponse | None = None
    decomposer_response: DecomposerResponse | None = None
    execution_dag: ExecutionDAG | None = None
    aggregator_response: AggregatorResponse | None = None
    answer_synthesizer_response: AnswerSynthesizerResponse | None = None
    artifact_refs: Annotated[dict[str, ArtifactRef], update_results] = Field(default_factory=dict)
    subgraph_outputs: Annotated[dict[str, SubgraphOutput], update_results] = Field(
        default_factory=dict
    )
    errors: Annotated[list[PipelineError], operator.add] = Field(default_factory=list)
    reasoning: Annotated[list[dict[str, Any]], operator.add] = Field(default_factory=list)
    warnings: Annotated[list[RunWarning], operator.add] = Field(default_factory=list)
    subgraph_id: str | None = None
    subgraph_name: str | None = None
    pinned: PinnedRun | None = None
    approvals: list[Approval] = Field(default_factory=list)
    approvals_needed: Annotated[list[ApprovalRequest], operator.add] = Field(default_factory=list)

    def with_rejections(self, rejected: list[tuple[ApprovalRequest, PipelineError]]) -> GraphState:
        """This state once the held `rejected` requests are refused, each with its refusal: their
        sub-queries are dropped and the requests are no longer pending."""
        by_sub_query = {request.sub_query_id: refusal for request, refusal in rejected}
        ids = {request.id for request, _ in rejected}
        outputs = {
            key: out.model_copy(update={"status": "dropped", "errors": [by_sub_query[out.sub_query.id], *out.errors]})
            if out.sub_query is not None and out.sub_query.id in by_sub_query else out
            for key, out in self.subgraph_outputs.items()
        }
        return self.model_copy(update={
            "errors": [refusal for _, refusal in rejected] + list(self.errors),
            "approvals_needed": [a for a in self.approvals_needed if a.id not in ids],
            "subgraph_outputs": outputs,
        })


class SubgraphExecutionState(BaseModel):
    model_config = _STATE_CONFIG

    trace_id: str
    user_query: str = ""
    sub_query: SubQuery | None = None
    user_context: UserContext | None = None
    subgraph_id: str | None = None
    subgraph_name: str | None = None
    relevant_tables: list[Table] = Field(default_factory=list)
    pinned_plan: PlanModel | None = None
    pinned_source: PinnedSource | None = None
    approvals: list[Approval] = Field(default_factory=list)
    ast_planner_response: ASTPlannerResponse | None = None
    logical_validator_response: LogicalValidatorResponse | None = None
    generator_response: GeneratorResponse | None = None
    sql_drafts: Annotated[list[SqlDraft], operator.add] = Field(default_factory=list)
    executor_response: ExecutorResponse | None = None
    refiner_response: RefinerResponse | None = None
    retry_count: int = 0
    errors: Annotated[list[PipelineError], operator.add] = Field(default_factory=list)
    reasoning: Annotated[list[dict[str, Any]], operator.add] = Field(default_factory=list)
    warnings: Annotated[list[RunWarning], operator.add] = Field(default_factory=list)
    # Set by the approval gate (execute.before hooks); read by wrap_subgraph.
    approvals_needed: Annotated[list[ApprovalRequest], operator.add] = Field(default_factory=list)
    dropped: bool = False
    row_budget: int | None = None  # an input of a local combine pulls at most combine_max_rows
    # Which post-execution checks already went back through the refiner (each runs once).
    post_checks_done: Annotated[list[str], operator.add] = Field(default_factory=list)

    def require_sub_query(self) -> SubQuery:
        """The scan's sub-query: the boundary (build_scan_payload) sets one for every scan."""
        if self.sub_query is None:
            raise ValueError("the subgraph state carries no sub-query")
        return self.sub_query

    def require_plan(self) -> PlanModel:
        """The planned query: the nodes after the planner run only once it produced one."""
        plan = self.ast_planner_response.plan if self.ast_planner_response else None
        if plan is None:
            raise ValueError("the subgraph state carries no plan")
        return plan

    def require_generated(self) -> GeneratorResponse:
        """The rendered SQL: the approval gate and the executor run only after the generator."""
        if self.generator_response is None:
            raise ValueError("the subgraph state carries no generated SQL")
        return self.generator_response
