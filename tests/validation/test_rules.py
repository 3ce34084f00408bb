"""Name rules (tables, aliases, columns, limit), validate_plan's report and checks_to_errors."""

from __future__ import annotations

from nl2sql.errors import ErrorCode, ErrorSeverity
from nl2sql.plan import (
    Aggregate,
    Comparison,
    Exists,
    Extract,
    InList,
    Join,
    OrderItem,
    SelectItem,
    SetOperation,
    col,
    lit,
)
from nl2sql.validation import checks_to_errors, validate_plan
from nl2sql.validation.rules import RULES

from .helpers import failed, passed, plan

BOOKS_BY_AUTHOR = plan(
    [("authors", "a"), ("books", "b")],
    [col("full_name", "a"), col("title")],
    joins=[
        Join(
            alias="b",
            on=Comparison(op="=", left=col("author_id", "b"), right=col("author_id", "a")),
        )
    ],
    where=Comparison(op=">", left=col("price", "b"), right=lit(10)),
)


def test_a_clean_plan_gets_one_passed_check_per_rule(shop):
    checks = validate_plan(BOOKS_BY_AUTHOR, shop)
    assert [c.name for c in checks] == [name for name, _, _ in RULES]
    assert all(c.passed for c in checks)


def test_unknown_table_is_table_not_found_with_suggestions(shop):
    checks = validate_plan(plan([("autors", "a")], [col("full_name", "a")]), shop)
    [check] = failed(checks)
    assert check.name == "tables_exist" and check.severity == ErrorSeverity.ERROR
    assert check.details["error_code"] == "TABLE_NOT_FOUND" and check.details["retryable"] is True
    assert check.details["table"] == "autors" and check.details["suggestions"] == ["authors"]
    assert "did you mean 'authors'" in check.message


def test_schema_qualified_and_bare_keys_both_resolve(shop):
    for name in ("hr.staff", "staff", "HR.Staff"):
        assert not failed(validate_plan(plan([(name, "s")], [col("salary", "s")]), shop))


def test_unknown_table_inside_a_subquery_is_reported_with_its_path(shop):
    inner = plan([("sale", "s")], [col("book_id", "s")])
    outer = plan(
        [("books", "b")], [col("title", "b")], where=InList(expr=col("book_id", "b"), query=inner)
    )
    [check] = failed(validate_plan(outer, shop), "tables_exist")
    assert check.details["path"] == "$.where[0]" and check.details["suggestions"] == ["sales"]


def test_duplicate_alias_is_an_invalid_structure(shop):
    checks = validate_plan(plan([("books", "b"), ("authors", "B")], [col("title", "b")]), shop)
    [check] = failed(checks, "aliases")
    assert check.details["error_code"] == "INVALID_PLAN_STRUCTURE" and check.details["alias"] == "B"


def test_undeclared_alias_suggests_the_declared_one(shop):
    [check] = failed(validate_plan(plan([("books", "bk")], [col("title", "b")]), shop), "aliases")
    assert check.details["suggestions"] == ["bk"] and check.details["column"] == "title"


def test_unqualified_column_must_be_in_exactly_one_table(shop):
    ambiguous = BOOKS_BY_AUTHOR.model_copy(update={"select": [SelectItem(expr=col("author_id"))]})
    [check] = failed(validate_plan(ambiguous, shop), "aliases")
    assert check.details["candidates"] == ["a", "b"]
    assert passed(validate_plan(BOOKS_BY_AUTHOR, shop), "aliases")  # `title` is only in books


def test_correlated_subquery_sees_outer_aliases_but_set_operands_do_not(shop):
    inner = plan(
        [("books", "b")],
        [lit(1)],
        where=Comparison(op="=", left=col("author_id", "b"), right=col("author_id", "a")),
    )
    correlated = plan([("authors", "a")], [col("full_name", "a")], where=Exists(query=inner))
    assert not failed(validate_plan(correlated, shop))
    right = plan([("books", "b")], [col("full_name", "a")])
    union = plan(
        [("authors", "a")],
        [col("full_name", "a")],
        set_operation=SetOperation(op="union", right=right),
    )
    [check] = failed(validate_plan(union, shop), "aliases")
    assert check.details["path"] == "$.set_operation" and check.details["alias"] == "a"


def test_missing_column_is_an_error_with_suggestions(shop):
    [check] = failed(validate_plan(plan([("books", "b")], [col("titel", "b")]), shop))
    assert check.name == "columns_exist" and check.severity == ErrorSeverity.ERROR
    assert check.details == {
        "error_code": "COLUMN_NOT_FOUND",
        "retryable": True,
        "table": "books",
        "alias": "b",
        "column": "titel",
        "suggestions": ["title"],
        "clause": "select",
        "path": "$",
    }


def test_missing_column_is_a_warning_when_not_strict(shop):
    checks = validate_plan(plan([("books", "b")], [col("titel", "b")]), shop, strict_columns=False)
    [check] = failed(checks)
    assert (
        check.severity == ErrorSeverity.WARNING
        and check.details["error_code"] == "COLUMN_NOT_FOUND"
    )


def test_unqualified_missing_column_suggests_from_every_table_in_scope(shop):
    checks = validate_plan(
        BOOKS_BY_AUTHOR.model_copy(update={"select": [SelectItem(expr=col("countri"))]}), shop
    )
    [check] = failed(checks, "columns_exist")
    assert check.details["table"] is None and check.details["suggestions"] == ["country"]


def test_order_by_may_name_a_select_alias_but_where_may_not(shop):
    total = SelectItem(expr=Aggregate(func="sum", arg=col("copies", "s")), alias="total")
    grouped = plan([("sales", "s")], [col("store", "s"), total], group_by=[col("store", "s")])
    ordered = grouped.model_copy(
        update={"order_by": [OrderItem(expr=col("total"), direction="desc")]}
    )
    assert not failed(validate_plan(ordered, shop))
    filtered = plan(
        [("sales", "s")],
        [SelectItem(expr=col("copies", "s"), alias="n")],
        where=Comparison(op=">", left=col("n"), right=lit(1)),
    )
    [check] = failed(validate_plan(filtered, shop), "columns_exist")
    assert check.details["clause"] == "where" and check.details["column"] == "n"


def test_group_by_may_name_a_select_alias(shop):
    year = SelectItem(expr=Extract(part="year", expr=col("sold_at", "s")), alias="yr")
    per_year = plan([("sales", "s")], [year, Aggregate(func="count")], group_by=[col("yr")])
    assert not failed(validate_plan(per_year, shop))


def test_limit_zero_and_offset_without_order_are_warnings(shop):
    checks = validate_plan(plan([("books", "b")], [col("title", "b")], limit=0, offset=5), shop)
    found = failed(checks, "limit")
    assert [c.severity for c in found] == [ErrorSeverity.WARNING] * 2
    assert {c.details.get("limit") for c in found} == {0, None} and {
        c.details.get("offset") for c in found
    } == {5, None}
    ordered = plan(
        [("books", "b")],
        [col("title", "b")],
        limit=5,
        offset=5,
        order_by=[OrderItem(expr=col("title", "b"))],
    )
    assert passed(validate_plan(ordered, shop), "limit")


def test_checks_to_errors_keeps_only_failures_with_their_codes(shop):
    checks = validate_plan(
        plan([("books", "b"), ("authors", "b")], [col("titel", "b")], limit=0), shop
    )
    errors = checks_to_errors(checks, sub_query_id="sq1")
    assert len(errors) == len(failed(checks)) >= 3
    assert {e.error_code for e in errors} >= {
        ErrorCode.INVALID_PLAN_STRUCTURE,
        ErrorCode.COLUMN_NOT_FOUND,
    }
    assert all(e.node == "logical_validator" and e.sub_query_id == "sq1" for e in errors)
    warning = next(e for e in errors if e.severity == ErrorSeverity.WARNING)
    assert warning.is_retryable and not warning.is_blocking and warning.details["check"] == "limit"
    assert checks_to_errors([c for c in checks if c.passed]) == []


def test_every_failed_check_carries_an_error_code_and_retryable(shop):
    broken = plan(
        [("books", "b"), ("bookz", "z"), ("staff", "b")],
        [col("titel", "b"), col("nope", "q"), Aggregate(func="sum", arg=col("price", "b"))],
        where=Comparison(op=">", left=Aggregate(func="count"), right=lit(1)),
        limit=0,
    )
    checks = validate_plan(broken, shop, allowed_tables=["books"])
    rules = {c.name for c in failed(checks)}
    assert rules >= {
        "tables_exist",
        "aliases",
        "columns_exist",
        "join_structure",
        "aggregation",
        "access_policy",
        "limit",
    }
    for check in failed(checks):
        assert ErrorCode(check.details["error_code"]) and isinstance(
            check.details["retryable"], bool
        )
        assert check.message and "\n" not in check.message
