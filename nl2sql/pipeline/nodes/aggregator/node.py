"""AggregatorNode: combine the scans' results along the DAG (DuckDB over Arrow)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from nl2sql.aggregation import run_combine
from nl2sql.aggregation.engine import CombineBudget
from nl2sql.context import NL2SQLContext
from nl2sql.errors import ErrorCode, crash
from nl2sql.execution.artifacts import combined_version
from nl2sql.execution.models import ArtifactRef
from nl2sql.names import AGGREGATOR
from nl2sql.pipeline.nodes.aggregator.schemas import AggregatorResponse
from nl2sql.pipeline.nodes.common import reasoning
from nl2sql.pipeline.state import GraphState, required
from nl2sql.pushdown import LOCAL_ENGINE

NODE = AGGREGATOR


def _schema_version(ctx: NL2SQLContext, state: GraphState) -> str:
    """A combined result's `{schema_version}`: the versions of every source it reads."""
    sources = sorted({sq.datasource_id for sq in state.decomposer_response.sub_queries}
                     if state.decomposer_response else set())
    return combined_version([ctx.schemas.get(ds).fingerprint for ds in sources])


def _written(ctx: NL2SQLContext, table: Any, **where: Any) -> ArtifactRef:
    """Write a combined result as an artifact and keep it in the run's memory (by URI)."""
    ref = ctx.artifacts.write(table, prune=False, **where)
    ctx.artifacts.prune_soon()
    ctx.results[ref.uri] = table
    return ref


class AggregatorNode:
    def __call__(self, state: GraphState, runtime: Runtime[NL2SQLContext]) -> dict[str, Any]:
        ctx = runtime.context
        dag = state.execution_dag
        inputs, unreadable = {}, []
        for sq_id, ref in state.artifact_refs.items():
            try:  # in memory when this run wrote it; from the file otherwise (a re-run)
                inputs[sq_id] = ctx.table_of(ref)
            except Exception as exc:  # e.g. the file was removed: only the groups needing it fail
                unreadable.append(reasoning(NODE, f"artifact of {sq_id} unreadable: {type(exc).__name__}"))
        truncated = {sq_id: ref.truncated for sq_id, ref in state.artifact_refs.items()}
        try:
            outcome = run_combine(required(dag, "execution DAG"),
                                  required(state.decomposer_response, "decomposition"), inputs, truncated,
                                  pool=ctx.combiner,
                                  budget=CombineBudget(ctx.settings.combine_max_rows,
                                                       ctx.settings.combine_max_bytes))
            results = {}
            for node_id, table in outcome.results.items():
                # A standalone result is its scan's own table: reuse that artifact as it is.
                same = next((sq for sq, t in inputs.items() if t is table), None)
                results[node_id] = state.artifact_refs[same] if same else _written(
                    ctx, table,
                    tenant_id=state.user_context.tenant_id,
                    request_id=state.trace_id,
                    sub_query_id=node_id.replace(":", "_"),
                    truncated=outcome.truncated.get(node_id, False),
                    dag_node_id=node_id,
                    subgraph_name=NODE,
                    schema_version=_schema_version(ctx, state),
                )
        except Exception as exc:
            failure = crash(NODE, ErrorCode.AGGREGATOR_FAILED, exc)
            response = AggregatorResponse(errors=[failure])
            return {"aggregator_response": response, "errors": [failure],
                    "reasoning": [reasoning(NODE, failure.message)]}
        response = AggregatorResponse(
            terminal_results=results, operations=outcome.operations,
            errors=outcome.errors, warnings=outcome.warnings,
        )
        note = "; ".join(
            f"{k}: {v}" + ("" if v == "standalone" else f" ({LOCAL_ENGINE})")
            for k, v in outcome.operations.items()
        ) or "nothing to combine"
        return {
            "aggregator_response": response,
            "errors": outcome.errors,
            "warnings": outcome.warnings,
            "reasoning": [*unreadable, reasoning(NODE, note)],
        }
