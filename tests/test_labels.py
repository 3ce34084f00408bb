"""Human column labels and roles read off the plans, in several naming styles."""

from __future__ import annotations

import pytest

from nl2sql.labels import ColumnInfo, Source, describe_columns, humanize, is_key_name
from nl2sql.plan import Aggregate, ColumnRef, Extract, PlanModel, SelectItem, TableRef


def col(name):
    return ColumnRef(table="t", name=name)


def plan(table, select, group_by=()):
    return PlanModel(tables=[TableRef(name=table, alias="t")],
                     select=[SelectItem(expr=e, alias=a) for e, a in select], group_by=list(group_by))


@pytest.mark.parametrize(("name", "label"), [
    ("first_name", "First name"), ("FirstName", "First name"), ("firstName", "First name"),
    ("customerID", "Customer ID"), ("CUSTOMER_ID", "CUSTOMER ID"), ("zip-code", "Zip code"), ("region", "Region"),
])
def test_identifiers_read_as_words(name, label):
    assert humanize(name) == label


@pytest.mark.parametrize(("name", "key"), [
    ("id", True), ("customer_id", True), ("CustomerId", True), ("orderKey", True), ("sku", True),
    ("idea", False), ("paid", False), ("valid_until", False), ("identity_name", False),
])
def test_ids_and_keys_are_told_by_their_last_word(name, key):
    assert is_key_name(name) is key


@pytest.mark.parametrize(("table", "select", "labels"), [
    ("orders", [(Aggregate(func="count"), "count_orders")], ["Orders"]),
    ("dbo.tblShipment", [(Aggregate(func="count"), "ShipmentCount")], ["Shipment count"]),
    ("Invoice", [(Aggregate(func="sum", arg=col("amountDue")), "sum_amountDue")], ["Total amount due"]),
    ("sales", [(Aggregate(func="avg", arg=col("unit_price")), "avg_unit_price")], ["Average unit price"]),
    ("sales", [(Aggregate(func="sum", arg=col("net")), "revenue")], ["Revenue"]),  # the planner's own name
    ("visits", [(Aggregate(func="count", distinct=True, arg=col("patient_id")), "n_patients")], ["Patients"]),
    ("sales", [(Aggregate(func="max", arg=col("net")), None)], ["Highest net"]),
])
def test_a_measure_is_named_by_what_it_computed(table, select, labels):
    p = plan(table, select)
    names = [a or "max_net" for _, a in select]
    found = describe_columns([(n, "number") for n in names], [Source(p)])
    assert [c.label for c in found] == labels and all(c.role == "measure" for c in found)


def test_roles_follow_the_plan_not_the_types():
    month = Extract(part="month", expr=col("placed_at"))
    p = plan("orders", [(month, "month"), (col("StoreName"), None), (col("store_id"), None),
                        (Aggregate(func="count"), "count_orders")], group_by=[month, col("StoreName"), col("store_id")])
    found = describe_columns([("month", "number"), ("StoreName", "text"), ("store_id", "number"),
                              ("count_orders", "number")], [Source(p)])
    assert [(c.label, c.role) for c in found] == [("Month", "time"), ("Store name", "category"),
                                                  ("Store ID", "key"), ("Orders", "measure")]
    listed = plan("orders", [(col("order_id"), None), (col("note"), None), (col("total"), None)])
    found = describe_columns([("order_id", "number"), ("note", "text"), ("total", "number")], [Source(listed)])
    assert [c.role for c in found] == ["key", "text", "value"]  # a list: nothing is a measure


def test_a_compare_names_each_side_and_the_difference():
    region = col("region")
    left = plan("orders", [(region, "region"), (Aggregate(func="count"), "count_orders")], [region])
    right = plan("support_tickets", [(region, "region"), (Aggregate(func="count"), "count_support_tickets")],
                 [region])
    columns = [("region", "text"), ("count_orders_left", "number"), ("count_support_tickets_right", "number"),
               ("count_support_tickets_minus_count_orders_diff", "number")]
    found = describe_columns(columns, [Source(left, "left", "sales"), Source(right, "right", "crm")])
    assert [c.label for c in found] == ["Region", "Orders", "Support tickets", "Difference"]
    assert [c.role for c in found] == ["category", "measure", "measure", "measure"]


def test_the_same_measure_from_two_sources_is_told_apart_by_source():
    p = plan("orders", [(Aggregate(func="count"), "count_orders")])
    found = describe_columns([("count_orders_a", "number"), ("count_orders_b", "number")],
                             [Source(p, "a", "shop_eu"), Source(p, "b", "shop_us")])
    assert [c.label for c in found] == ["Orders (shop_eu)", "Orders (shop_us)"]


def test_labels_are_always_distinct():
    found = describe_columns([("Region", "text"), ("region", "text")], [])
    assert len({c.label for c in found}) == 2
    assert found[0] == ColumnInfo("Region", "Region", "category")


def test_a_top_n_by_a_number_ranks_a_measure_per_entity():
    from nl2sql.plan import OrderItem

    p = PlanModel(tables=[TableRef(name="Product", alias="t")],
                  select=[SelectItem(expr=col("ProductName")), SelectItem(expr=col("ListPrice")),
                          SelectItem(expr=col("ProductID"))],
                  order_by=[OrderItem(expr=col("ListPrice"), direction="desc")], limit=5)
    found = describe_columns([("ProductName", "text"), ("ListPrice", "number"), ("ProductID", "number")], [Source(p)])
    assert [c.role for c in found] == ["category", "measure", "key"]
    unranked = p.model_copy(update={"limit": None})
    found = describe_columns([("ProductName", "text"), ("ListPrice", "number"), ("ProductID", "number")],
                             [Source(unranked)])
    assert [c.role for c in found] == ["text", "value", "key"]  # a sorted list is still a list
