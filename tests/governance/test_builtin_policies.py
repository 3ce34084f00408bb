"""The built-in execute.before policies of `[policies]`, and what a query touches."""

from __future__ import annotations

from nl2sql.decomposition import SubQuery
from nl2sql.governance.builtin_policies import builtin_hooks
from nl2sql.governance.hooks import ExecuteHookContext, HookRegistry
from nl2sql.governance.touches import sql_touches
from nl2sql.security.rbac import UserContext
from nl2sql.settings import PoliciesConfig

SQ = SubQuery(id="sq_1", datasource_id="shop", intent="x")


def decide(config: PoliciesConfig, sql: str, shop) -> tuple[str, str]:
    hooks = HookRegistry()
    for name, hook in builtin_hooks(config):
        hooks.add("execute.before", hook, name=name)
    ctx = ExecuteHookContext(question="q", user=UserContext(), datasource_id="shop", dialect="duckdb",
                             snapshot=shop, request_id="apr_x", sql=sql)
    decision, _ = hooks.execute_before(SQ, None, sql, ctx)
    return decision.action, decision.reason


def test_no_built_in_policy_by_default(shop):
    assert builtin_hooks(PoliciesConfig()) == []


def test_require_approval_holds_every_query(shop):
    assert decide(PoliciesConfig(require_approval=True), "SELECT 1", shop)[0] == "require_approval"


def test_sensitive_columns_and_tables_hold_the_queries_that_read_them(shop):
    config = PoliciesConfig(sensitive={"shop": {"customers": ["email"], "salaries": "*"}})
    action, reason = decide(config, "SELECT c.email FROM customers c JOIN orders o USING (customer_id)", shop)
    assert action == "require_approval" and "customers.email" in reason
    assert decide(config, "SELECT SUM(amount) FROM salaries", shop)[0] == "require_approval"
    assert decide(config, "SELECT state, COUNT(*) FROM customers GROUP BY state", shop)[0] == "allow"
    # SELECT * reads the tagged column too
    assert decide(config, "SELECT * FROM customers", shop)[0] == "require_approval"


def test_unbounded_reads_of_big_tables_are_held_but_limited_or_small_ones_run(shop):
    config = PoliciesConfig(max_rows_without_limit=10_000)
    action, reason = decide(config, "SELECT * FROM orders", shop)
    assert action == "require_approval" and "orders (50,000 rows)" in reason
    assert decide(config, "SELECT * FROM orders LIMIT 10", shop)[0] == "allow"
    assert decide(config, "SELECT * FROM customers", shop)[0] == "allow"


def test_touches_resolve_aliases_ctes_and_subqueries(shop):
    sql = ("WITH big AS (SELECT customer_id FROM orders WHERE amount > 100) "
           "SELECT c.name FROM customers AS c WHERE c.customer_id IN (SELECT customer_id FROM big)")
    touches = sql_touches(sql, "duckdb", shop)
    assert touches.tables == {"orders", "customers"}
    assert {("customers", "name"), ("orders", "amount"), ("customers", "customer_id")} <= touches.columns
    assert touches.exact and not touches.has_limit


def test_unresolvable_columns_count_every_column_of_the_tables_read(shop):
    touches = sql_touches("SELECT nosuch FROM customers", "duckdb", shop)
    assert not touches.exact and ("customers", "email") in touches.columns
