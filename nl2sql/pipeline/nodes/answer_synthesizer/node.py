"""AnswerSynthesizerNode: the answer in words, from the combined results."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from nl2sql.context import NL2SQLContext
from nl2sql.errors import ErrorCode
from nl2sql.labels import arrow_kind, describe_columns, plan_sources
from nl2sql.names import ANSWER_SYNTHESIZER
from nl2sql.pipeline.nodes.common import reasoning, skill_failure
from nl2sql.pipeline.state import GraphState, required
from nl2sql.reasoning.base import ResultPreview, SynthesizeRequest
from nl2sql.settings import reference_date

NODE = ANSWER_SYNTHESIZER


class AnswerSynthesizerNode:
    def __call__(self, state: GraphState, runtime: Runtime[NL2SQLContext]) -> dict[str, Any]:
        ctx = runtime.context
        aggregated = required(state.aggregator_response, "aggregator response")
        previews = []
        # a terminal result that is one sub-query's own artifact carries that sub-query's plan
        by_ref = {o.artifact.uri: o for o in state.subgraph_outputs.values() if o.artifact}
        for node_id, ref in aggregated.terminal_results.items():
            table = ctx.table_of(ref)  # in memory: this run just made it
            source = by_ref.get(ref.uri)
            head = table.slice(0, ctx.settings.answer_preview_rows).to_pylist()
            sources = plan_sources(node_id, state.decomposer_response, state.subgraph_outputs.values())
            columns = describe_columns([(f.name, arrow_kind(f.type)) for f in table.schema], sources)
            previews.append(
                ResultPreview(
                    label=aggregated.operations.get(node_id, node_id),
                    columns=table.column_names,
                    rows=[tuple(row.values()) for row in head],
                    row_count=table.num_rows,
                    truncated=ref.truncated,
                    plan=source.plan if source else None,
                    sql=source.sql_draft if source else None,
                    column_info=tuple(columns),
                )
            )
        try:
            response = ctx.models.skill(ANSWER_SYNTHESIZER).synthesize(
                SynthesizeRequest(question=state.user_query, results=previews,
                                  decomposition=state.decomposer_response,
                                  reference_date=reference_date(ctx.settings))
            )
        except Exception as exc:
            failure = skill_failure(NODE, exc, ErrorCode.SYNTHESIS_FAILED)
            return {"errors": [failure], "reasoning": [reasoning(NODE, failure.message)]}
        return {"answer_synthesizer_response": response, "reasoning": [reasoning(NODE, response.answer)]}
