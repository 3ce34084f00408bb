"""Hooks: decisions, the strictest wins, rewrites chain, and a broken hook is never an allow."""

from __future__ import annotations

import pytest

from nl2sql.decomposition import SubQuery
from nl2sql.governance.approvals import Approval
from nl2sql.governance.hooks import (
    Decision,
    ExecuteHookContext,
    HookError,
    HookRegistry,
    RunHookContext,
)
from nl2sql.security.rbac import UserContext

SQ = SubQuery(id="sq_1", datasource_id="shop", intent="count orders")
SQL = 'SELECT COUNT(*) FROM "orders"'
RUN = RunHookContext(user=UserContext(), datasource_id=None, datasources=("shop",))


def exec_ctx(shop, **kw) -> ExecuteHookContext:
    return ExecuteHookContext(question="q", user=UserContext(), datasource_id="shop", dialect="duckdb",
                              snapshot=shop, request_id="apr_x", sql=SQL, **kw)


def test_no_hook_allows(shop):
    decision, by = HookRegistry().execute_before(SQ, None, SQL, exec_ctx(shop))
    assert decision.action == "allow" and by is None


def test_the_strictest_execute_decision_wins_and_names_its_hook(shop):
    hooks = HookRegistry()
    hooks.add("execute.before", lambda *a: "allow", name="open")
    hooks.add("execute.before", lambda *a: Decision.require_approval("big"), name="careful")
    decision, by = hooks.execute_before(SQ, None, SQL, exec_ctx(shop))
    assert (decision.action, decision.reason, by) == ("require_approval", "big", "careful")
    hooks.add("execute.before", lambda *a: "deny", name="closed")
    assert hooks.execute_before(SQ, None, SQL, exec_ctx(shop))[0].action == "deny"


@pytest.mark.parametrize("bad", [None, "yes", 1, Decision.rewrite("x")])
def test_an_execute_hook_returning_no_decision_is_an_error(shop, bad):
    hooks = HookRegistry()
    hooks.add("execute.before", lambda *a: bad, name="sloppy")
    with pytest.raises(HookError, match="'sloppy' returned"):
        hooks.execute_before(SQ, None, SQL, exec_ctx(shop))


def test_a_hook_that_raises_is_an_error_naming_it(shop):
    def broken(sub_query, plan, sql, ctx):
        raise RuntimeError("lookup service down")

    hooks = HookRegistry()
    hooks.add("execute.before", broken)
    with pytest.raises(HookError, match="'broken' raised RuntimeError: lookup service down"):
        hooks.execute_before(SQ, None, SQL, exec_ctx(shop))


def test_run_hooks_rewrite_in_turn_and_a_deny_stops_the_run():
    hooks = HookRegistry()
    hooks.add("run.before", lambda q, ctx: q.replace("sales", "revenue"), name="glossary")
    hooks.add("run.before", lambda q, ctx: Decision.rewrite(q + " in 2024", "fiscal year"), name="year")
    question, decision, notes = hooks.run_before("total sales", RUN)
    assert (question, decision.action) == ("total revenue in 2024", "allow")
    assert notes == ["glossary rewrote the question to 'total revenue'",
                     "year rewrote the question to 'total revenue in 2024' (fiscal year)"]
    hooks.add("run.before", lambda q, ctx: Decision.deny("no revenue questions"), name="gate")
    _, decision, _ = hooks.run_before("total sales", RUN)
    assert (decision.action, decision.reason) == ("deny", "no revenue questions")


def test_hooks_can_be_listed_and_removed():
    hooks = HookRegistry()

    def audit(q, ctx):
        return "allow"

    hooks.add("run.before", audit)
    assert hooks.names("run.before") == ["audit"]
    assert hooks.remove("run.before", "audit") and hooks.names("run.before") == []
    with pytest.raises(ValueError, match="unknown hook event"):
        hooks.add("run.after", audit)


def test_the_context_says_whether_this_exact_query_was_approved(shop):
    assert exec_ctx(shop, approvals=(Approval(request_id="apr_x"),)).approved
    assert not exec_ctx(shop, approvals=(Approval(request_id="apr_x", approved=False),)).approved
    assert not exec_ctx(shop, approvals=(Approval(request_id="apr_other"),)).approved
