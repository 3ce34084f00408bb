"""Running a curated answer's verified query: RBAC check, SQL guard, execution, artifact.

The same protections as a generated query: the user's access must cover every table and column
the SQL reads (checked on the unfiltered schema, so a denied object is named as denied), the SQL
guard sees only the tables this user may read, and the result is written as an artifact at the
same path template, keyed by the sub-query id.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from nl2sql.context import NL2SQLContext
from nl2sql.dag import scan_node_id
from nl2sql.datasources.base import ResultError
from nl2sql.errors import ErrorCode, ErrorSeverity, PipelineError, crash, error
from nl2sql.execution.models import ArtifactRef
from nl2sql.governance.curated import CuratedAnswer
from nl2sql.governance.services import access_of
from nl2sql.governance.touches import sql_touches
from nl2sql.security.rbac import UserContext, raw_snapshot
from nl2sql.security.sql_guard import check_sql


@dataclass(frozen=True)
class VerifiedRun:
    artifact: ArtifactRef | None
    error: PipelineError | None
    row_count: int = 0


def verified_sql(ctx: NL2SQLContext, answer: CuratedAnswer) -> str:
    """The answer's SQL, or its plan rendered for the datasource's dialect."""
    if answer.sql and answer.sql.strip():
        return answer.sql.strip().rstrip(";").strip()
    from nl2sql.sqlgen import render_plan

    adapter = ctx.datasources[answer.datasource]
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
    tag = {"sub_query_id": sub_query_id}
    verdict = check_sql(sql, adapter.dialect, allowed_tables=[t.key for t in snapshot.tables])
    if not verdict.allowed:
        message = f"SQL guard refused the verified query ({verdict.code}): {verdict.message}"
        return VerifiedRun(None, error(node, ErrorCode.SQL_GUARD_REFUSED, message,
                                       severity=ErrorSeverity.CRITICAL, guard_code=verdict.code, **tag))
    row_cap = getattr(adapter, "row_cap", None) or ctx.settings.row_cap
    timeout_s = min(getattr(adapter, "timeout_s", None) or ctx.settings.statement_timeout_s,
                    ctx.settings.statement_timeout_s)
    if ctx.deadline is not None:  # never outlive the run's own timeout
        timeout_s = max(0.05, min(timeout_s, ctx.deadline - time.monotonic()))
    try:
        frame = adapter.execute(sql, row_cap=row_cap, timeout_s=timeout_s)
    except ResultError as exc:
        return VerifiedRun(None, error(node, ErrorCode.DB_EXECUTION_ERROR, exc.safe_message, kind=exc.kind, **tag))
    except Exception as exc:  # noqa: BLE001 - reported as a value
        return VerifiedRun(None, crash(node, ErrorCode.DB_EXECUTION_ERROR, exc, **tag))
    try:
        artifact = ctx.artifacts.write(
            frame.table, tenant_id=user.tenant_id if user else None, request_id=trace_id,
            sub_query_id=sub_query_id, truncated=frame.truncated, subgraph_name=subgraph_name,
            dag_node_id=scan_node_id(sub_query_id), schema_version=snapshot.fingerprint,
        )
    except Exception as exc:  # noqa: BLE001 - disk full, read-only folder: reported as a value
        return VerifiedRun(None, crash(node, ErrorCode.ARTIFACT_WRITE_FAILED, exc, **tag))
    return VerifiedRun(artifact, None, frame.row_count)
