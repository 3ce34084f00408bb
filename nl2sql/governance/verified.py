"""Running a curated answer's verified query: RBAC check, SQL guard, execution, artifact.

The same protections as a generated query: the user's access must cover every table and column
the SQL reads (checked on the unfiltered schema, so a denied object is named as denied), the SQL
guard sees only the tables this user may read, and the result is written as an artifact at the
same path template, keyed by the sub-query id.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nl2sql.context import NL2SQLContext
from nl2sql.errors import ErrorCode, PipelineError
from nl2sql.execution.guarded import run_guarded, write_artifact
from nl2sql.execution.models import ArtifactRef
from nl2sql.governance.curated import CuratedAnswer
from nl2sql.governance.curated_template import Value, bind_sql
from nl2sql.governance.services import access_of
from nl2sql.governance.touches import sql_touches
from nl2sql.security.rbac import UserContext, raw_snapshot


@dataclass(frozen=True)
class VerifiedRun:
    artifact: ArtifactRef | None
    error: PipelineError | None
    row_count: int = 0


def verified_sql(ctx: NL2SQLContext, answer: CuratedAnswer, bindings: Mapping[str, Value] | None = None) -> str:
    """The answer's SQL, or its plan rendered for the datasource's dialect; a template's with
    its parameters' literals replaced by `bindings` (rendered by sqlglot for the dialect)."""
    if answer.sql and answer.sql.strip():
        sql = answer.sql.strip().rstrip(";").strip()
        if bindings and answer.parameters:
            return bind_sql(sql, answer.parameters, bindings, ctx.datasources[answer.datasource].dialect)
        return sql
    from nl2sql.sqlgen import render_plan

    adapter = ctx.datasources[answer.datasource]
    assert answer.plan is not None  # CuratedAnswer's validator requires `sql` or `plan`
    return render_plan(answer.plan, adapter.dialect, ctx.schemas.get(answer.datasource))


def rbac_denied(ctx: NL2SQLContext, user: UserContext | None, datasource_id: str, sql: str) -> list[str]:
    """What `sql` reads that `user` may not (unparseable or unresolvable SQL: all it touches)."""
    access = access_of(ctx, user)
    if not access.restricted:
        return []
    adapter = ctx.datasources[datasource_id]
    raw = raw_snapshot(ctx.schemas, datasource_id)
    try:
        touches = sql_touches(sql, adapter.dialect, raw)
    except ValueError:
        return ["(unparseable query)"]
    return access.denied(datasource_id, raw, set(touches.tables), set(touches.columns))


def run_verified(ctx: NL2SQLContext, *, sql: str, datasource_id: str, sub_query_id: str,
                 user: UserContext | None, trace_id: str, subgraph_name: str, node: str) -> VerifiedRun:
    """Guard and execute `sql`; the artifact, or the error that stopped it."""
    adapter = ctx.datasources[datasource_id]
    snapshot = ctx.schemas.get(datasource_id)  # as the user sees it
    ran = run_guarded(ctx, adapter, sql, allowed_tables=[t.key for t in snapshot.tables], node=node,
                      unreadable=ErrorCode.VERIFIED_SQL_UNREADABLE, what="verified query",
                      sub_query_id=sub_query_id)
    if ran.frame is None:
        return VerifiedRun(None, ran.error)
    artifact, failure = write_artifact(
        ctx, ran.frame, node=node, sub_query_id=sub_query_id, request_id=trace_id,
        tenant_id=user.tenant_id if user else None, subgraph_name=subgraph_name,
        schema_version=snapshot.fingerprint,
    )
    if failure is not None:
        return VerifiedRun(None, failure)
    return VerifiedRun(artifact, None, ran.frame.row_count)
