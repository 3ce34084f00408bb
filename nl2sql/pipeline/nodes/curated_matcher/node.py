"""CuratedMatcherNode: answer with a verified query when the question matches a curated one.

A match the user may read (RBAC on its datasource, tables and columns) runs the verified SQL
through the execute.before hooks, the SQL guard and the datasource, and fills the state as one
sub-query (plan_source "verified"): decomposer_response, execution_dag, artifact_refs and
subgraph_outputs, so the layer router finds the scan done and the resolver, decomposer and SQL
agent never run. No match — or a pinned run, whose plan outranks a curated answer — falls back
with nothing in the state changed.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from nl2sql.context import NL2SQLContext
from nl2sql.dag import build_dag
from nl2sql.decomposition import DecomposerResponse, SubQuery, sub_query_id
from nl2sql.errors import ErrorCode, PipelineError, RunWarning, error
from nl2sql.governance.curated import CuratedHit, VerifiedMatch
from nl2sql.governance.curated_template import column_values
from nl2sql.governance.gate import Candidate, screen
from nl2sql.governance.services import access_of, governance_of
from nl2sql.governance.verified import rbac_denied, run_verified, verified_sql
from nl2sql.names import CURATED_MATCHER
from nl2sql.pipeline.nodes.common import reasoning
from nl2sql.pipeline.state import GraphState
from nl2sql.pipeline.subgraphs.boundary import subgraph_id_for
from nl2sql.pipeline.subgraphs.nodes.generator.schemas import SqlDraft
from nl2sql.pipeline.subgraphs.registry import resolve_subgraph
from nl2sql.pipeline.subgraphs.schemas import SubgraphOutput
from nl2sql.retrieval.breaker import VectorStoreError

NODE = CURATED_MATCHER


class CuratedMatcherNode:
    def __call__(self, state: GraphState, runtime: Runtime[NL2SQLContext]) -> dict[str, Any]:
        ctx = runtime.context
        curated = governance_of(ctx).curated
        if curated is None or state.pinned is not None:
            return {}
        access = access_of(ctx, state.user_context)
        allowed = [ds for ds in ctx.datasources if access.allows_datasource(ds)
                   and state.datasource_id in (None, ds)]
        try:
            hit = curated.match(state.user_query, allowed,
                                values=lambda ds, ref: column_values(ctx.schemas.get(ds), ref))
        except VectorStoreError as exc:  # the pipeline can still answer: say why this did not
            return {"warnings": [RunWarning(node=NODE, code=ErrorCode.VECTOR_STORE_UNAVAILABLE.value,
                                            message=f"curated answers not searched: {exc}")]}
        if hit is None:
            return {}
        try:
            sql = verified_sql(ctx, hit.answer, hit.bindings)
        except ValueError as exc:  # a template whose SQL the dialect cannot read
            why = error(NODE, ErrorCode.VERIFIED_SQL_UNREADABLE, str(exc).splitlines()[0])
            return _fell_back(hit, why)
        if rbac_denied(ctx, state.user_context, hit.answer.datasource, sql):
            return {}  # this user may not read what it reads: the pipeline answers within their access
        return self._answer(state, ctx, hit, sql)

    def _answer(self, state: GraphState, ctx: NL2SQLContext, hit: CuratedHit, sql: str) -> dict[str, Any]:
        ds = hit.answer.datasource
        asked = state.user_query if hit.bindings else hit.answer.question  # a template: per value
        sq = SubQuery(id=sub_query_id(ds, asked, 0), datasource_id=ds, intent=state.user_query)
        decomposition = DecomposerResponse(sub_queries=[sq], reasoning=f"verified answer: {hit.answer.question!r}")
        name = resolve_subgraph(ds, ctx.datasources[ds]).name
        dialect = ctx.datasources[ds].dialect
        output = SubgraphOutput(sub_query=sq, subgraph_id=subgraph_id_for(name, sq.id), subgraph_name=name,
                                plan=hit.answer.plan, plan_source="verified", sql_draft=sql,
                                sql_drafts=[SqlDraft(attempt=0, sql=sql, dialect=dialect)],
                                dialect=dialect)
        match = VerifiedMatch(question=hit.answer.question, datasource_id=ds, sql=sql,
                              score=hit.score, method=hit.method, bindings=hit.bindings)
        delta = {"verified_match": match, "decomposer_response": decomposition,
                 "execution_dag": build_dag(decomposition)}
        note = f"verified answer ({hit.method}, {hit.score:.2f}): {hit.answer.question!r} on {ds}"
        if hit.bindings:
            values = ", ".join(f"{k}={v!r}" for k, v in hit.bindings.items())
            note = f"answered from curated template {hit.answer.template!r} with {values} on {ds}"
        query = Candidate(question=state.user_query, sub_query=sq, plan=hit.answer.plan, sql=sql,
                          dialect=dialect, user=state.user_context,
                          approvals=tuple(state.approvals), curated=True)
        verdict = screen(ctx, query, node=NODE)
        notes = [reasoning(NODE, note), reasoning(NODE, verdict.note, request_id=verdict.request.id)]
        if verdict.outcome == "hold":
            return {**delta, "subgraph_outputs": {output.subgraph_id: output},
                    "approvals_needed": [verdict.request], "reasoning": notes}
        if verdict.outcome in ("deny", "fail"):
            status = "dropped" if verdict.outcome == "deny" else "error"
            failed = output.model_copy(update={"status": status, "errors": [verdict.error]})
            return {**delta, "subgraph_outputs": {output.subgraph_id: failed},
                    "errors": [verdict.error], "reasoning": notes}
        ran = run_verified(ctx, sql=sql, datasource_id=ds, sub_query_id=sq.id, user=state.user_context,
                           trace_id=state.trace_id, subgraph_name=name, node=NODE)
        if ran.error is not None:
            return _fell_back(hit, ran.error)
        done = output.model_copy(update={"status": "success", "artifact": ran.artifact})
        notes.append(reasoning(NODE, f"{ran.row_count} rows"))
        return {**delta, "subgraph_outputs": {output.subgraph_id: done},
                "artifact_refs": {sq.id: ran.artifact}, "reasoning": notes}


def _fell_back(hit: CuratedHit, why: PipelineError) -> dict[str, Any]:
    """The verified query failed (e.g. the schema moved on): the pipeline answers instead."""
    message = f"the verified answer for {hit.answer.question!r} failed ({why.message}); answered by the pipeline"
    return {"warnings": [RunWarning(node=NODE, code="CURATED_ANSWER_FAILED", message=message,
                                    detail={"error_code": why.error_code.value})]}
