"""GeneratorNode: the validated plan rendered as SQL in the datasource's dialect (sqlglot)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from nl2sql.context import NL2SQLContext
from nl2sql.errors import ErrorCode, crash
from nl2sql.names import GENERATOR
from nl2sql.pipeline.nodes.common import reasoning
from nl2sql.pipeline.state import SubgraphExecutionState
from nl2sql.pipeline.subgraphs.nodes.generator.schemas import GeneratorResponse, SqlDraft
from nl2sql.sqlgen import render_plan

NODE = GENERATOR


class GeneratorNode:
    def __call__(self, state: SubgraphExecutionState, runtime: Runtime[NL2SQLContext]) -> dict[str, Any]:
        ctx = runtime.context
        sq = state.require_sub_query()
        adapter = ctx.datasources[sq.datasource_id]
        try:
            sql = render_plan(state.require_plan(), adapter.dialect, ctx.schemas.get(sq.datasource_id))
        except Exception as exc:
            failure = crash(NODE, ErrorCode.SQL_GEN_FAILED, exc, sub_query_id=sq.id, attempt=state.retry_count)
            return {"errors": [failure], "reasoning": [reasoning(NODE, failure.message)]}
        return {
            "generator_response": GeneratorResponse(sql_draft=sql, dialect=adapter.dialect),
            # retry_handler clears generator_response; the drafts list keeps every attempt's SQL.
            "sql_drafts": [SqlDraft(attempt=state.retry_count, sql=sql, dialect=adapter.dialect)],
            "reasoning": [reasoning(NODE, f"rendered for {adapter.dialect}", sql=sql)],
        }
