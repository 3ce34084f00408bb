from __future__ import annotations

import pytest

from nl2sql.plan import Aggregate, Between, Comparison, Extract, InList, walk
from nl2sql.reasoning.offline.catalog.index import build_index
from nl2sql.reasoning.offline.plan.planner import plan_question

from ..conftest import library_snapshot

IDX = build_index(library_snapshot())


def plan(text, lookup=None, hints=None):
    return plan_question(text, IDX, lookup, hints)


def names(p):
    return [i.alias for i in p.select]


def tables(p):
    return [t.name for t in p.tables]


def filters(p):
    """(column, op, value) of every comparison / IN / BETWEEN in WHERE."""
    out = []
    for node in walk(p.where):
        if isinstance(node, Comparison) and node.right.kind == "literal":
            out.append((node.left.name, node.op, node.right.value))
        elif isinstance(node, InList):
            out.append(
                (node.expr.name, "not in" if node.negated else "in", [v.value for v in node.values])
            )
        elif isinstance(node, Between):
            out.append((node.expr.name, "between", (node.low.value, node.high.value)))
    return out


def test_count_rows_of_a_table():
    p = plan("How many members are there?").plan
    assert tables(p) == ["members"] and names(p) == ["count_members"]
    assert p.select[0].expr == Aggregate(func="count")


def test_count_in_a_year_filters_the_tables_own_date_column():
    p = plan("How many loans were made in 2024?").plan
    assert filters(p) == [("loan_date", "between", ("2024-01-01", "2024-12-31"))]


def test_text_date_column_gets_half_open_comparisons():
    p = plan("How many loans were returned in March 2024?").plan
    assert ("returned_date", ">=", "2024-03-01") in filters(p)
    assert ("returned_date", "<", "2024-04-01") in filters(p)


def test_count_distinct_column():
    p = plan("How many different cities do members live in?").plan
    (item,) = p.select
    assert item.expr.distinct and item.expr.arg.name == "city" and tables(p) == ["members"]
    assert item.alias == "count_distinct_city"


def test_count_per_column_groups_and_names_the_key_by_its_column():
    p = plan("How many books are there per genre?").plan
    assert names(p) == ["genre", "count_books"]
    assert [g.name for g in p.group_by] == ["genre"]
    # unasked, the largest groups come first
    assert p.order_by[0].expr.func == "count" and p.order_by[0].direction == "desc"


def test_average_with_a_sampled_value_filter():
    p = plan("What is the average price of books in the Fantasy genre?").plan
    assert names(p) == ["avg_price"]
    assert filters(p) == [("genre", "=", "Fantasy")]


def test_sum_per_entity_joins_along_foreign_keys_and_shows_its_label():
    out = plan("What is the total fee per district?")
    p = out.plan
    assert names(p) == ["district_name", "sum_fee"]
    assert tables(p) == ["loans", "members", "branches", "districts"]
    assert [t.alias for t in p.tables] == ["t1", "t2", "t3", "t4"]
    assert [g.name for g in p.group_by] == ["district_id", "district_name"]
    # two equally short paths (via members or via copies): chosen by declaration order, said, and cheaper
    assert "copies" in out.reasoning and out.confidence < 0.9


def test_mentioning_the_intermediate_table_chooses_its_path():
    p = plan("What is the total fee per copy branch?").plan
    assert names(p) == ["branch_name", "sum_fee"]
    assert tables(p) == ["loans", "copies", "branches"]


def test_top_n_entities_by_a_count():
    p = plan("Top 2 members by number of loans").plan
    assert names(p) == ["first_name", "last_name", "count_loans"]
    assert p.limit == 2 and p.order_by[0].direction == "desc"
    assert isinstance(p.order_by[0].expr, Aggregate)


def test_which_n_with_highest_column_orders_without_grouping():
    p = plan("Which 3 books have the highest price?").plan
    assert names(p) == ["title"] and p.limit == 3 and not p.group_by
    assert (p.order_by[0].expr.name, p.order_by[0].direction) == ("price", "desc")


@pytest.mark.parametrize(
    "text, direction",
    [
        ("What is the most expensive book?", "desc"),
        ("Which book is the cheapest?", "asc"),
        ("Which book has the lowest price?", "asc"),
    ],
)
def test_superlatives_rank_with_limit_one(text, direction):
    p = plan(text).plan
    assert (
        p.limit == 1 and p.order_by[0].expr.name == "price" and p.order_by[0].direction == direction
    )


def test_ranking_shows_asked_columns_and_reaches_attributes_without_grouping():
    p = plan("What is the title of the book with the most pages?").plan
    assert names(p) == ["title"] and not p.group_by and p.limit == 1


def test_listing_distinct_and_several_aggregates_of_one_column():
    assert plan("List the different cities of members").plan.distinct
    p = plan("What is the average, minimum and maximum price of books?").plan
    assert names(p) == ["avg_price", "min_price", "max_price"]


def test_columns_shown_beside_an_aggregate_group_it():
    p = plan("Show the genre and the total pages of books").plan
    assert names(p) == ["genre", "sum_pages"] and [g.name for g in p.group_by] == ["genre"]


def test_order_by_words_that_match_nothing_is_refused():
    out = plan("List the titles of books ordered by popularity")
    assert out.plan is None and "'popularity'" in out.reasoning


def test_what_is_the_highest_value_is_an_aggregate():
    p = plan("What is the highest price?").plan
    assert names(p) == ["max_price"] and p.limit is None


def test_entity_with_the_most_rows_of_another_table():
    p = plan("Which author has the most books?").plan
    assert (
        names(p) == ["name"] and p.limit == 1
    )  # the entity asked for; a top-N also shows the count
    assert isinstance(p.order_by[0].expr, Aggregate) and p.order_by[0].direction == "desc"
    assert tables(p) == ["books", "authors"]


def test_listing_with_explicit_order():
    p = plan("List the titles of books ordered by price descending").plan
    assert names(p) == ["title"]
    assert (p.order_by[0].expr.name, p.order_by[0].direction) == ("price", "desc")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("How many books have more than 300 pages?", ("pages", ">", 300)),
        ("How many books have at least 410 pages?", ("pages", ">=", 410)),
        ("How many books cost under 10?", ("price", "<", 10)),
        ("How many books are priced between 10 and 20?", ("price", "between", (10, 20))),
        ("How many loans have a fee of at most 1.5?", ("fee", "<=", 1.5)),
    ],
)
def test_numeric_comparisons_bind_to_the_column_before_them(text, expected):
    out = plan(text)
    if expected is None:
        assert out.plan is None and "under 10" in out.reasoning
    else:
        assert filters(out.plan) == [expected]


def test_having_on_a_count_of_another_table():
    p = plan("members with more than 1 loans").plan
    assert names(p) == ["first_name", "last_name"]
    assert p.having == Comparison(op=">", left=Aggregate(func="count"), right=p.having.right)
    assert p.having.right.value == 1


def test_count_of_entities_with_a_count_condition_uses_a_subquery():
    p = plan("How many members have more than 1 loans?").plan
    (sub,) = [n for n in walk(p.where) if isinstance(n, InList)]
    assert sub.query is not None and sub.query.having is not None
    assert tables(sub.query) == ["loans"] and [t.alias for t in sub.query.tables] == ["s1"]


def test_negated_value_and_several_values_of_one_column():
    assert filters(plan("List books not in the History genre").plan) == [("genre", "!=", "History")]
    p = plan("How many books are Fantasy or History?").plan
    assert filters(p) == [("genre", "in", ["Fantasy", "History"])]


def test_group_by_month_extracts_from_the_date_column():
    p = plan("number of loans per month in 2024").plan
    assert isinstance(p.group_by[0], Extract) and p.group_by[0].part == "month"
    assert names(p) == ["month", "count_loans"]


def test_join_that_repeats_rows_counts_distinct_keys():
    out = plan("How many members borrowed copies in good condition?")
    p = out.plan
    (item,) = p.select
    assert item.expr.distinct and item.expr.arg.name == "member_id"
    assert "DISTINCT" in out.reasoning


def test_value_found_only_by_lookup_is_emitted_as_stored(lookup):
    p = plan("How many members are in ohio?", lookup).plan
    assert filters(p) == [("state", "=", "Ohio")]


def test_value_in_a_joined_table(lookup):
    p = plan("How many books by authors from Japan?", lookup).plan
    assert tables(p) == ["books", "authors"] and filters(p) == [("country", "=", "Japan")]
    assert not p.group_by  # "by authors from …" is a relation, not a grouping


def test_replace_value_hint_fixes_a_typo(lookup):
    first = plan("How many members are in Ohoi?", lookup)
    assert filters(first.plan) == [("state", "=", "Ohoi")] and first.confidence < 0.8
    hint = {"replace_value": {"table": "members", "column": "state", "old": "Ohoi", "new": "Ohio"}}
    again = plan("How many members are in Ohoi?", lookup, hint)
    assert filters(again.plan) == [("state", "=", "Ohio")]


def test_avoid_fan_out_hint_counts_distinct_primary_key():
    p = plan("How many loans are overdue?", hints={"avoid_join_fan_out": {"table": "loans"}}).plan
    assert p.select[0].expr.distinct and p.select[0].expr.arg.name == "loan_id"


def test_column_suggestions_hint_renames_columns():
    p = plan(
        "How many books are there per genre?", hints={"column_suggestions": {"genre": "category"}}
    ).plan
    assert names(p)[0] == "genre"  # the output name is kept; the column is renamed
    assert p.group_by[0].name == "category"


@pytest.mark.parametrize(
    "text, says",
    [
        ("What is the weather today?", "today"),
        ("What is the capital of France?", "'capital'"),
        ("How many members are in Atlantis?", "'Atlantis'"),
        ("What is the average?", "average"),
        ("List books cheaper than the book Moon Song", "nested"),
        ("hello", "hello"),
        ("How many loans were made on 2024-02-30?", "not a valid date"),
        ("", "no words"),
    ],
)
def test_refusals_say_what_was_not_understood(text, says):
    out = plan(text)
    assert out.plan is None and out.confidence == 0
    assert out.reasoning.startswith("could not plan") and says in out.reasoning


def test_ambiguous_column_without_context_is_refused():
    out = plan("How many different cities are there?")
    assert out.plan is None and "branches.city" in out.reasoning and "members.city" in out.reasoning


def test_same_question_same_plan():
    a = plan("Top 2 members by number of loans in 2024")
    b = plan("Top 2 members by number of loans in 2024")
    assert a.plan == b.plan and a.reasoning == b.reasoning and a.confidence == b.confidence


@pytest.mark.parametrize(
    "text, says",
    [
        ("List books that are either Fantasy or cheap", "'or'"),
        ("How many books have more pages than the book Moon Song?", "nested"),
        ("List members who both borrowed copies", "both"),
        ("How many loans are there in each?", "in each"),
        ("Frobnicate the books sideways", "'Frobnicate', 'sideways'"),
        ("books?", "does not say what to do"),
    ],
)
def test_words_that_would_be_silently_dropped_are_refused(text, says):
    out = plan(text)
    assert out.plan is None and says in out.reasoning


def test_qualifier_column_before_a_negated_value_is_not_shown():
    p = plan("List the titles of books whose genre is not 'History'").plan
    assert names(p) == ["title"] and filters(p) == [("genre", "!=", "History")]


def test_sort_verb_with_by_later_and_plural_of_a_stored_value():
    p = plan("Sort the books by price in descending order and show their titles").plan
    assert (p.order_by[0].expr.name, p.order_by[0].direction) == ("price", "desc")
    assert filters(plan("How many loans are overdues?").plan) == [("status", "=", "overdue")]


@pytest.mark.parametrize(
    "text",
    [
        "What is the page number of the book Dragon Gate?",
        "How many pages does Dragon Gate have?",
        "What is the number of pages of the book Dragon Gate?",
    ],
)
def test_count_words_on_a_numeric_column_read_its_value(text, lookup):
    p = plan(text, lookup).plan
    assert names(p) == ["pages"] and filters(p) == [("title", "=", "Dragon Gate")]


def test_how_many_of_a_numeric_column_without_filter_is_its_total():
    assert names(plan("How many pages are there in all books?").plan) == ["sum_pages"]
