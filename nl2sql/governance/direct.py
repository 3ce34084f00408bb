"""One SQL statement run directly (an SQL cell inserted by `%nl2sql --sql` or "Insert as cell"),
under the same protections as a generated query.

The text goes through what the executor's query goes through: the session user's access (RBAC:
the tables the guard lets through, then the columns the SQL touches), the execute.before hooks,
then the SQL guard, the row cap and the statement timeout (`run_guarded`). A query a hook would
hold for approval is refused here: an approval is given to a question's plan, in its widget,
never to free text.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from nl2sql.decomposition import SubQuery
from nl2sql.errors import ErrorCode
from nl2sql.execution.guarded import run_guarded
from nl2sql.governance.gate import Candidate, screen
from nl2sql.governance.services import for_user
from nl2sql.governance.verified import rbac_denied

if TYPE_CHECKING:
    import pyarrow as pa

    from nl2sql.context import NL2SQLContext
    from nl2sql.security.rbac import UserContext

NODE = "sql_cell"


def run_sql(ctx: NL2SQLContext, datasource: str, sql: str, user: UserContext) -> pa.Table:
    """The rows of `sql` on `datasource` as Arrow; ValueError (one line) when it may not run."""
    if datasource not in ctx.datasources:
        raise ValueError(f"unknown datasource {datasource!r}; known: {', '.join(ctx.datasources)}")
    if not isinstance(sql, str) or not sql.strip():
        raise ValueError("the SQL is empty")
    sql = sql.strip().rstrip(";").strip()
    run_ctx = for_user(ctx.for_run(deadline=time.monotonic() + ctx.settings.pipeline_timeout_s), user)
    denied = rbac_denied(run_ctx, user, datasource, sql)
    if denied:
        raise ValueError(f"access denied: this SQL reads {', '.join(sorted(denied))}")
    adapter = run_ctx.datasources[datasource]
    sub_query = SubQuery(id="sql", datasource_id=datasource, intent="SQL cell")
    screened = screen(run_ctx, Candidate(question=sql, sub_query=sub_query, plan=None, sql=sql,
                                         dialect=adapter.dialect, user=user), node=NODE)
    if screened.outcome == "hold":
        raise ValueError(f"this SQL needs an approval ({screened.note}); ask the question with "
                         "%nl2sql and approve it in its widget")
    if screened.error is not None:
        raise ValueError(screened.error.message)
    snapshot = run_ctx.schemas.get(datasource)
    ran = run_guarded(run_ctx, adapter, sql, allowed_tables=[t.key for t in snapshot.tables],
                      node=NODE, unreadable=ErrorCode.SQL_GEN_FAILED)
    if ran.error is not None:
        raise ValueError(ran.error.message)
    assert ran.frame is not None  # run_guarded returns either rows or the error that stopped them
    return ran.frame.table
