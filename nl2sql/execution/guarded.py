"""Guarded execution: the SQL guard, the row cap and timeout, then the datasource.

Generated SQL (the executor) and a curated answer's verified SQL run through this one function,
so both get the same protections and the same failure codes. It lives below the pipeline because
the curated-answer path (governance/) may not import `nl2sql.pipeline`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nl2sql.dag import scan_node_id
from nl2sql.datasources.base import ResultError
from nl2sql.errors import ErrorCode, PipelineError, crash, error
from nl2sql.security.sql_guard import check_sql

if TYPE_CHECKING:
    from nl2sql.context import NL2SQLContext
    from nl2sql.datasources.base import DatasourceAdapter, ResultFrame
    from nl2sql.execution.models import ArtifactRef

#: Seconds an in-flight statement may outlive the run's deadline, so the run reports
#: PIPELINE_TIMEOUT first instead of the statement's own timeout.
DEADLINE_GRACE_S = 0.5
_MIN_TIMEOUT_S = 0.05


@dataclass(frozen=True)
class GuardedRun:
    """The rows (or the error that stopped them), the row cap applied and the time it took."""

    frame: ResultFrame | None
    error: PipelineError | None
    row_cap: int
    elapsed_s: float = 0.0


def statement_limits(ctx: NL2SQLContext, adapter: DatasourceAdapter) -> tuple[int, float]:
    """The row cap and statement timeout for one statement on `adapter` in this run.

    The adapter's own timeout may only tighten the session's; with a run deadline the statement
    is stopped soon after it (plus DEADLINE_GRACE_S) instead of running its full course.
    """
    row_cap = getattr(adapter, "row_cap", None) or ctx.settings.row_cap
    timeout_s = min(getattr(adapter, "timeout_s", None) or ctx.settings.statement_timeout_s,
                    ctx.settings.statement_timeout_s)
    if ctx.deadline is not None:
        left = ctx.deadline - time.monotonic() + DEADLINE_GRACE_S
        timeout_s = max(_MIN_TIMEOUT_S, min(timeout_s, left))
    return row_cap, timeout_s


def run_stopped(ctx: NL2SQLContext, node: str, **tag: Any) -> PipelineError | None:
    """PIPELINE_TIMEOUT (deadline passed) or CANCELLED (token cancelled) once the run has ended.

    The guard cannot be interrupted mid-parse (its cost is bounded by `max_sql_bytes` instead),
    so a run whose time is up must not start it, nor the statement after it.
    """
    if ctx.deadline is not None and time.monotonic() >= ctx.deadline:
        return error(node, ErrorCode.PIPELINE_TIMEOUT,
                     "the run's time was up before the query was checked; it was not run", **tag)
    token = ctx.cancel_token
    if token.cancelled:
        code = ErrorCode.PIPELINE_TIMEOUT if token.reason == "timeout" else ErrorCode.CANCELLED
        return error(node, code,
                     f"the run was stopped ({token.reason}) before the query was checked", **tag)
    return None


def run_guarded(
    ctx: NL2SQLContext,
    adapter: DatasourceAdapter,
    sql: str,
    *,
    allowed_tables: Iterable[str],
    node: str,
    unreadable: ErrorCode,
    what: str = "query",
    row_budget: int | None = None,
    **tag: Any,
) -> GuardedRun:
    """Guard `sql`, then run it read-only with this run's limits.

    Args:
        allowed_tables: the table keys the guard lets through (those this user may read).
        node: the node named on an error.
        unreadable: the code when sqlglot cannot parse `sql` — a PARSE_ERROR is a broken query,
            not an attack, so never a refusal (the executor says SQL_GEN_FAILED); anything else
            the guard refuses is SQL_GUARD_REFUSED.
        what: how the message names the query ("query", "verified query").
        row_budget: a tighter row cap (an input of a local combine: `combine_max_rows`).
        tag: details added to every error (sub_query_id, attempt).
    """
    stopped = run_stopped(ctx, node, **tag)
    if stopped is not None:
        return GuardedRun(None, stopped, ctx.settings.row_cap)
    verdict = check_sql(sql, adapter.dialect, allowed_tables=list(allowed_tables),
                        max_bytes=ctx.settings.max_sql_bytes)
    row_cap, timeout_s = statement_limits(ctx, adapter)
    row_cap = min(row_cap, row_budget) if row_budget is not None else row_cap
    if not verdict.allowed:
        code = unreadable if verdict.code == "PARSE_ERROR" else ErrorCode.SQL_GUARD_REFUSED
        message = f"SQL guard refused the {what} ({verdict.code}): {verdict.message}"
        return GuardedRun(None, error(node, code, message, guard_code=verdict.code, **tag), row_cap)
    started = time.perf_counter()
    try:
        frame = adapter.execute(sql, row_cap=row_cap, timeout_s=timeout_s)
    except ResultError as exc:
        # The database said the query is wrong (retryable) or refused it (fatal).
        code = ErrorCode.EXECUTION_FAILED if exc.retryable else ErrorCode.DB_EXECUTION_ERROR
        failure = error(node, code, exc.safe_message, retryable=exc.retryable, kind=exc.kind, **tag)
        return GuardedRun(None, failure, row_cap)
    except Exception as exc:  # noqa: BLE001 - reported as a value
        return GuardedRun(None, crash(node, ErrorCode.DB_EXECUTION_ERROR, exc, **tag), row_cap)
    return GuardedRun(frame, None, row_cap, time.perf_counter() - started)


def write_artifact(
    ctx: NL2SQLContext, frame: ResultFrame, *, node: str, sub_query_id: str, request_id: str,
    tenant_id: str | None, subgraph_name: str, schema_version: str, **tag: Any,
) -> tuple[ArtifactRef | None, PipelineError | None]:
    """Write `frame` as the sub-query's artifact, filling every path placeholder.

    A failed write (disk full, read-only folder) is this sub-query's ARTIFACT_WRITE_FAILED, so
    the other sub-queries finish and keep their results. The table also stays in the run's
    memory (`ctx.results`, by URI): the aggregator and the result read it without a re-read.
    """
    try:
        artifact = ctx.artifacts.write(
            frame.table, tenant_id=tenant_id, request_id=request_id, sub_query_id=sub_query_id,
            truncated=frame.truncated, subgraph_name=subgraph_name,
            dag_node_id=scan_node_id(sub_query_id), schema_version=schema_version, prune=False,
        )
        ctx.artifacts.prune_soon()
    except Exception as exc:  # noqa: BLE001 - reported as a value
        return None, crash(node, ErrorCode.ARTIFACT_WRITE_FAILED, exc, sub_query_id=sub_query_id, **tag)
    ctx.results[artifact.uri] = frame.table  # the rest of the run reads it here, not from disk
    return artifact, None
