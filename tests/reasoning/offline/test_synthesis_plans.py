"""The answer says what the plan did: DISTINCT, counted rows, sums, ties, relative dates."""

from __future__ import annotations

import datetime as dt

from nl2sql.plan import (
    Aggregate,
    ColumnRef,
    Comparison,
    Join,
    OrderItem,
    PlanModel,
    ScalarSubquery,
    SelectItem,
    TableRef,
)
from nl2sql.reasoning.base import ResultPreview
from nl2sql.reasoning.offline.synthesis import synthesize


def col(alias, name):
    return ColumnRef(table=alias, name=name)


def plan(select, tables=(("shop_orders", "o"),), joins=(), **kw):
    return PlanModel(
        tables=[TableRef(name=n, alias=a) for n, a in tables],
        joins=list(joins),
        select=[SelectItem(expr=e, alias=a) for e, a in select],
        **kw,
    )


def answer(question, columns, rows, p=None, reference=None):
    r = ResultPreview("result", columns, rows, len(rows), plan=p)
    return synthesize(question, [r], reference=reference).answer


JOINED = (("shop_orders", "o"), ("Client", "c"))
ON = [Join(alias="c", on=Comparison(op="=", left=col("o", "clientId"), right=col("c", "clientId")))]


def test_distinct_is_said_only_when_the_plan_counts_distinct():
    rows_plan = plan([(Aggregate(func="count"), "n")])
    text = answer("How many different shop orders are there?", ["n"], [(149,)], rows_plan)
    assert text == "There are 149 shop orders."
    distinct = plan([(Aggregate(func="count", arg=col("o", "clientId"), distinct=True), "n")])
    text = answer("How many different clients are there?", ["n"], [(46,)], distinct)
    assert text == (
        "There are 46 different clients. Counted distinct values of shop_orders.clientId."
    )


def test_a_row_count_over_a_join_is_not_stated_as_a_count_of_entities():
    p = plan([(Aggregate(func="count"), "n")], tables=JOINED, joins=ON)
    text = answer("How many clients are there with orders?", ["n"], [(149,)], p)
    assert text == "The count is 149. Counted rows of shop_orders joined with Client."
    assert "149 clients" not in text


def test_a_sum_says_it_summed():
    p = plan([(Aggregate(func="sum", arg=col("o", "qty_units")), "total")])
    text = answer("How many units were sold?", ["total"], [(545548,)], p)
    assert text == "545,548 units were sold. Sum of shop_orders.qty_units."


def test_a_which_question_is_answered_with_the_value_not_echoed():
    p = plan(
        [(col("s", "stateName"), "state")],
        tables=(("geo_state", "s"),),
        order_by=[OrderItem(expr=col("s", "pop_total"), direction="desc")],
        limit=1,
    )
    text = answer("Which state has the largest population?", ["state"], [("ohio",)], p)
    assert text == "Ohio has the largest population."


def test_a_fallback_states_the_value_and_the_computation():
    p = plan([(Aggregate(func="avg", arg=col("o", "amt")), "avg_amt")])
    assert answer("Average amt please", ["avg_amt"], [(12.5,)], p) == (
        "The answer is 12.50. Average of shop_orders.amt."
    )


def test_ties_at_the_top_of_a_ranking_are_said():
    count = Aggregate(func="count")
    p = plan(
        [(col("c", "clientName"), "client"), (count, "n")],
        tables=JOINED,
        joins=ON,
        group_by=[col("c", "clientName")],
        order_by=[OrderItem(expr=count, direction="desc")],
        limit=3,
    )
    rows = [("Ann", 12), ("Bo", 12), ("Cy", 3)]
    text = answer("Which 3 clients have the most orders?", ["client", "n"], rows, p)
    # the rest of the ranking is in the table
    assert text == "2 clients tie for the highest count: Ann and Bo (12)."


def test_ties_kept_by_a_max_filter_are_all_named():
    top = PlanModel(
        tables=[TableRef(name="geo_state", alias="s2")],
        select=[SelectItem(expr=Aggregate(func="max", arg=col("s2", "pop_total")))],
    )
    p = plan(
        [(col("s", "stateName"), "state")],
        tables=(("geo_state", "s"),),
        where=Comparison(op="=", left=col("s", "pop_total"), right=ScalarSubquery(query=top)),
    )
    text = answer("Which state has the largest population?", ["state"], [("A",), ("B",)], p)
    assert text == "2 states tie for the highest pop total: A and B."


def test_relative_dates_say_their_days_and_the_reference_date():
    p = plan([(Aggregate(func="count"), "n")])
    text = answer(
        "How many shop orders were placed last month?", ["n"], [(7,)], p, dt.date(2026, 12, 1)
    )
    assert text == (
        "7 shop orders were placed last month (2026-11-01 to 2026-11-30, as of 2026-12-01)."
    )
    assert "as of" not in answer("How many shop orders were placed in 2024?", ["n"], [(7,)], p,
                                 dt.date(2026, 12, 1))
