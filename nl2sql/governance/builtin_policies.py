"""The built-in execute.before policies a config file can switch on (`[policies]`).

    [policies]
    require_approval = true                              # every execution
    sensitive = { warehouse = { customers = ["email"], payments = "*" } }
    max_rows_without_limit = 100000                      # unbounded reads of big tables

Each is an ordinary execute.before hook (named "policy:<name>"), so it shows in
`session.hooks` and behaves like one. An approval of the exact request satisfies them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from nl2sql.governance.hooks import Decision, ExecuteHookContext
from nl2sql.settings import PoliciesConfig

Hook = Callable[..., Decision | str]


def builtin_hooks(config: PoliciesConfig) -> list[tuple[str, Hook]]:
    """(name, execute.before hook) for every built-in policy `config` switches on."""
    hooks: list[tuple[str, Hook]] = []
    if config.require_approval:
        hooks.append(("policy:require_approval", approve_every_execution))
    if config.sensitive:
        hooks.append(("policy:sensitive", approve_sensitive(config.sensitive)))
    if config.max_rows_without_limit is not None:
        hooks.append(("policy:max_rows_without_limit", approve_unbounded_scans(config.max_rows_without_limit)))
    return hooks


def approve_every_execution(sub_query: Any, plan: Any, sql: str, ctx: ExecuteHookContext) -> Decision:
    """Every query needs an approval before it runs."""
    return Decision.require_approval("the policy requires an approval for every execution")


def approve_sensitive(tags: Mapping[str, Mapping[str, list[str] | str]]) -> Hook:
    """Queries reading a tagged table ("*") or a tagged column need an approval."""
    wanted = {
        ds.lower(): {t.lower(): ("*" if cols == "*" else {c.lower() for c in cols}) for t, cols in tables.items()}
        for ds, tables in tags.items()
    }

    def sensitive(sub_query: Any, plan: Any, sql: str, ctx: ExecuteHookContext) -> Decision:
        tagged = wanted.get(ctx.datasource_id.lower(), {})
        touches = ctx.touches
        hits = sorted(
            {t for t in touches.tables if tagged.get(t.lower()) == "*"}
            | {f"{t}.{c}" for t, c in touches.columns
               if isinstance(tagged.get(t.lower()), set) and c.lower() in tagged[t.lower()]}
        )
        if hits:
            return Decision.require_approval(f"the query reads sensitive data: {', '.join(hits)}")
        return Decision.allow()

    return sensitive


def approve_unbounded_scans(max_rows: int) -> Hook:
    """Queries without a LIMIT over a table with more than `max_rows` rows need an approval.

    A table whose row count is unknown is not counted as large.
    """

    def unbounded(sub_query: Any, plan: Any, sql: str, ctx: ExecuteHookContext) -> Decision:
        if _has_limit(plan, ctx):
            return Decision.allow()
        big = sorted(
            f"{t.key} ({t.row_count:,} rows)"
            for key in ctx.touches.tables
            if (t := ctx.snapshot.table(key)) is not None and t.row_count is not None and t.row_count > max_rows
        )
        if big:
            return Decision.require_approval(
                f"the query has no LIMIT and reads more than {max_rows:,} rows of {', '.join(big)}"
            )
        return Decision.allow()

    return unbounded


def _has_limit(plan: Any, ctx: ExecuteHookContext) -> bool:
    if plan is not None and getattr(plan, "limit", None) is not None:
        return True
    return ctx.touches.has_limit
