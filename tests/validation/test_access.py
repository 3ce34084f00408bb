"""The access-policy rule: denied tables and columns are CRITICAL, non-retryable violations."""

from __future__ import annotations

from nl2sql.errors import ErrorSeverity
from nl2sql.plan import Aggregate, InList, Star, col
from nl2sql.validation import checks_to_errors, validate_plan

from .helpers import failed, passed, plan

PUBLIC = ["authors", "books", "sales"]


def test_no_policy_and_an_allowing_policy_pass(shop):
    titles = plan([("books", "b")], [col("title", "b")])
    assert passed(validate_plan(titles, shop), "access_policy")
    assert passed(validate_plan(titles, shop, allowed_tables=["BOOKS"]), "access_policy")


def test_a_table_outside_the_allowed_set_is_a_security_violation(shop):
    salaries = plan([("staff", "s")], [col("salary", "s")])
    [check] = failed(validate_plan(salaries, shop, allowed_tables=PUBLIC), "access_policy")
    assert check.severity == ErrorSeverity.CRITICAL and check.details["table"] == "hr.staff"
    assert (
        check.details["error_code"] == "SECURITY_VIOLATION" and check.details["retryable"] is False
    )
    [error] = checks_to_errors([check])
    assert error.is_blocking and not error.is_retryable


def test_a_denied_table_inside_a_subquery_is_found(shop):
    staff_ids = plan([("hr.staff", "h")], [col("staff_id", "h")])
    sneaky = plan(
        [("sales", "s")],
        [col("copies", "s")],
        where=InList(expr=col("sale_id", "s"), query=staff_ids),
    )
    [check] = failed(validate_plan(sneaky, shop, allowed_tables=PUBLIC), "access_policy")
    assert check.details["path"] == "$.where[0]"


def test_an_unknown_table_is_denied_too(shop):
    checks = validate_plan(plan([("payroll", "p")], [col("x", "p")]), shop, allowed_tables=PUBLIC)
    assert failed(checks, "access_policy")[0].details["table"] == "payroll"


def test_a_column_outside_the_allowed_columns_is_a_violation(shop):
    policy = {"books": ["book_id", "title"]}
    prices = plan([("books", "b")], [col("title", "b"), col("PRICE")])
    [check] = failed(validate_plan(prices, shop, allowed_columns=policy), "access_policy")
    assert (check.details["table"], check.details["column"]) == ("books", "price")
    other_tables_are_not_restricted = plan([("sales", "s")], [col("copies", "s")])
    assert passed(
        validate_plan(other_tables_are_not_restricted, shop, allowed_columns=policy),
        "access_policy",
    )


def test_star_reads_every_column_but_count_star_reads_none(shop):
    policy = {"books": ["book_id", "title"]}
    [check] = failed(
        validate_plan(plan([("books", "b")], [Star(table="b")]), shop, allowed_columns=policy),
        "access_policy",
    )
    # the error says how many columns are denied, never which: their names are what is hidden
    assert check.details["denied_columns"] == 4
    shown = f"{check.message} {check.details}"
    assert not any(name in shown for name in ("author_id", "genre", "price", "published_on"))
    counted = plan([("books", "b")], [Aggregate(func="count")])
    assert passed(validate_plan(counted, shop, allowed_columns=policy), "access_policy")
