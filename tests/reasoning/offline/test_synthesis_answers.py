"""Answer sentences that answer: never the question again, never the rows the table shows, the
columns named by their labels — with plans and labels as the synthesizer node reads them."""

from __future__ import annotations

import re

import pytest

from nl2sql.labels import Source, describe_columns
from nl2sql.plan import Aggregate, ColumnRef, Extract, OrderItem, PlanModel, SelectItem, TableRef
from nl2sql.reasoning.base import ResultPreview
from nl2sql.reasoning.offline.synthesis import synthesize


def col(name):
    return ColumnRef(table="t", name=name)


def plan(table, select, group_by=(), **kw):
    return PlanModel(tables=[TableRef(name=table, alias="t")],
                     select=[SelectItem(expr=e, alias=a) for e, a in select], group_by=list(group_by), **kw)


def answer(question, p, columns, rows, *, sources=None, row_count=None, compare=False):
    kinds = [("number" if isinstance(v, (int, float)) else "text") for v in rows[0]]
    info = describe_columns(list(zip(columns, kinds, strict=True)), sources or [Source(p)])
    preview = ResultPreview("result", columns, rows, row_count or len(rows), plan=p, column_info=tuple(info))
    return synthesize(question, [preview], compare).answer


def _echoes(question: str, text: str) -> bool:
    """Whether the answer repeats the question's words in order (five or more of them)."""
    words = re.findall(r"\w+", question.lower())
    said = " ".join(re.findall(r"\w+", text.lower()))
    return any(" ".join(words[i:i + 5]) in said for i in range(max(len(words) - 4, 0)))


PEOPLE = plan("tblPatient", [(col(c), None) for c in ("PatientID", "FullName", "EmailAddress", "City")])
ROWS = [(i, f"Person {i}", f"person{i}@clinic.example", "Springfield") for i in range(1, 8)]


def test_a_list_says_how_many_matched_and_pastes_no_rows():
    question = "List the patients who live in Springfield"
    text = answer(question, PEOPLE, ["PatientID", "FullName", "EmailAddress", "City"], ROWS)
    assert text == "7 patients match."
    assert "@" not in text and "Person" not in text and not _echoes(question, text)


def test_a_long_list_says_it_was_cut_without_rows():
    text = answer("show every patient", PEOPLE, ["PatientID", "FullName", "EmailAddress", "City"], ROWS,
                  row_count=5000)
    assert "5,000 patients" in text and "@" not in text


def test_a_cut_list_says_the_table_shows_the_first_rows():
    columns = ["PatientID", "FullName", "EmailAddress", "City"]
    info = describe_columns([(c, "text") for c in columns], [Source(PEOPLE)])
    preview = ResultPreview("result", columns, ROWS, 1000, truncated=True, plan=PEOPLE, column_info=tuple(info))
    assert synthesize("patients", [preview]).answer == "At least 1,000 patients match; the table shows the first 1,000."


SITE = col("site_name")
STOCK = Aggregate(func="sum", arg=col("stock_units"))


def test_a_superlative_names_the_winner_instead_of_echoing_the_question():
    question = "Which depot site holds the largest stock?"
    p = plan("depot", [(SITE, "site_name"), (STOCK, "sum_stock_units")], [SITE],
             order_by=[OrderItem(expr=STOCK, direction="desc")], limit=1)
    text = answer(question, p, ["site_name", "sum_stock_units"], [("north yard", 3400125)])
    assert text == "North yard has the highest total stock units (3,400,125)."
    assert not text.lower().startswith("which") and not _echoes(question, text)


def test_a_measure_per_group_names_the_top_and_the_bottom_by_label():
    region = col("SalesRegion")
    p = plan("orders", [(region, None), (Aggregate(func="count"), "OrderCount")], [region])
    rows = [("North", 5213), ("South", 13126), ("East", 7980)]
    text = answer("How many orders per region?", p, ["SalesRegion", "OrderCount"], rows)
    assert text == "South has the most orders (13,126) and North the fewest (5,213), of 3 sales regions."
    assert "OrderCount" not in text and "East" not in text  # labels, and not every row


def test_a_time_series_names_its_periods():
    month = Extract(part="month", expr=col("created"))
    p = plan("tickets", [(month, "month"), (Aggregate(func="avg", arg=col("wait_minutes")), "avg_wait_minutes")],
             [month])
    rows = [(1, 12.5), (2, 30.25), (3, 8.0)]
    text = answer("Average wait by month", p, ["month", "avg_wait_minutes"], rows)
    assert text == ("Month 2 has the highest average wait minutes (30.25) and month 3 the lowest (8), "
                    "of 3 months.")


def test_a_compare_names_both_sides_by_label():
    region = col("region")
    left = plan("orders", [(region, "region"), (Aggregate(func="count"), "count_orders")], [region])
    right = plan("support_tickets", [(region, "region"), (Aggregate(func="count"), "count_support_tickets")],
                 [region])
    columns = ["region", "count_orders_left", "count_support_tickets_right",
               "count_support_tickets_minus_count_orders_diff"]
    rows = [("North", 5213, 813, -4400), ("South", 13126, 1917, -11209)]
    question = "For each region, compare the number of orders with the number of support tickets"
    text = answer(question, None, columns, rows,
                  sources=[Source(left, "left", "sales"), Source(right, "right", "crm")], compare=True)
    assert text == "Of 2 regions, South differs most: Orders 13,126 vs Support tickets 1,917 (difference -11,209)."
    assert "_left" not in text and not _echoes(question, text)


@pytest.mark.parametrize("question", ["How many patients live in Springfield?", "Count the patients"])
def test_a_single_count_is_a_sentence_not_the_question(question):
    p = plan("tblPatient", [(Aggregate(func="count"), "count_patients")])
    text = answer(question, p, ["count_patients"], [(1234,)])
    assert "1,234" in text and not _echoes(question, text)


def test_a_ranking_names_its_leader_and_what_was_ranked():
    from nl2sql.plan import Comparison, Join

    given, family = ColumnRef(table="c", name="GivenName"), ColumnRef(table="c", name="FamilyName")
    count = Aggregate(func="count")
    p = PlanModel(tables=[TableRef(name="Sale", alias="s"), TableRef(name="Client", alias="c")],
                  joins=[Join(alias="c", on=Comparison(op="=", left=ColumnRef(table="s", name="ClientId"),
                                                      right=ColumnRef(table="c", name="Id")))],
                  select=[SelectItem(expr=given), SelectItem(expr=family), SelectItem(expr=count, alias="SaleCount")],
                  group_by=[given, family], order_by=[OrderItem(expr=count, direction="desc")], limit=3)
    rows = [("Ann", "Lee", 40), ("Bo", "Ek", 31), ("Cy", "Po", 9)]
    text = answer("Top 3 clients by sales", p, ["GivenName", "FamilyName", "SaleCount"], rows)
    assert text == "Ann Lee has the most sales (40) of the 3 clients listed."
