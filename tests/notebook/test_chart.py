"""The chart is chosen from the plan's shape, drawn as deterministic SVG, and saved as PNG/SVG."""

from __future__ import annotations

import datetime as dt
import re

import pyarrow as pa
import pytest

from nl2sql.errors import NL2SQLError
from nl2sql.labels import Source, arrow_kind, describe_columns
from nl2sql.notebook.chart import ChartSpec, choose_chart, with_kind
from nl2sql.notebook.chart_draw import chart_svg
from nl2sql.notebook.chart_export import chart_png, save_chart
from nl2sql.plan import Aggregate, ColumnRef, Extract, PlanModel, SelectItem, TableRef


def plan(table, select, group_by=()):
    return PlanModel(tables=[TableRef(name=table, alias="t")],
                     select=[SelectItem(expr=e, alias=a) for e, a in select], group_by=list(group_by))


def col(name):
    return ColumnRef(table="t", name=name)


def infos(table, *sources):
    return describe_columns([(f.name, arrow_kind(f.type)) for f in table.schema], list(sources))


# -- one plan per shape, in several naming styles -----------------------------------------------
REGION = col("RegionName")
PER_CATEGORY = (pa.table({"RegionName": ["North", "South", "East"], "order_count": [5, 9, 7]}),
                plan("tblOrders", [(REGION, "RegionName"), (Aggregate(func="count"), "order_count")], [REGION]))
MONTH = Extract(part="month", expr=col("placed_on"))
OVER_TIME = (pa.table({"month": [3, 1, 2], "sum_amount": [30.5, 10.0, 20.25]}),
             plan("sales", [(MONTH, "month"), (Aggregate(func="sum", arg=col("amount")), "sum_amount")], [MONTH]))
DAY = col("day")
OVER_DATES = (pa.table({"day": [dt.date(2024, 1, 3), dt.date(2024, 1, 1), dt.date(2024, 1, 2)],
                        "n": [3, 1, 2]}),
              plan("visits", [(DAY, None), (Aggregate(func="count"), "n")], [DAY]))
ENTITIES = (pa.table({"customer_id": [4, 2, 9], "name": ["Ann", "Bo", "Cy"], "email": ["a@x", "b@x", "c@x"],
                      "regionID": [1, 2, 1], "signup": [dt.date(2023, 5, 1), dt.date(2021, 1, 1), dt.date(2022, 3, 1)]}),
            plan("customers", [(col(c), None) for c in ("customer_id", "name", "email", "regionID", "signup")]))


def test_a_measure_per_category_is_a_bar_titled_by_labels():
    table, p = PER_CATEGORY
    spec = choose_chart(table, infos(table, Source(p)))
    assert (spec.kind, spec.x, spec.y, spec.panels) == ("bar", "RegionName", ("order_count",), ())
    svg = chart_svg(table, spec)
    assert ">Region name</text>" in svg  # the x axis title
    assert ">Orders</text>" in svg and "order_count" not in svg  # the measure by its label


@pytest.mark.parametrize("case", [OVER_TIME, OVER_DATES])
def test_a_measure_over_a_time_grain_is_a_line_in_time_order(case):
    table, p = case
    spec = choose_chart(table, infos(table, Source(p)))
    assert spec.kind == "line" and spec.sort_x
    svg = chart_svg(table, spec)
    ticks = re.findall(r'rotate\(-35[^)]*\)">([^<]*)</text>', svg)
    assert ticks == sorted(ticks)  # drawn in time order although the rows are not
    assert len(ticks) == 3


def test_a_list_of_entities_gets_no_chart_and_ids_are_never_drawn():
    table, p = ENTITIES
    columns = infos(table, Source(p))
    assert {c.name: c.role for c in columns}["customer_id"] == "key"
    assert {c.name: c.role for c in columns}["regionID"] == "key"
    assert choose_chart(table, columns).kind == "none"
    # asked for a bar anyway: nothing numeric is left once the keys are out
    assert with_kind(choose_chart(table, columns), "bar", table, columns).kind == "none"


def test_one_row_or_no_measure_gets_no_chart():
    one = pa.table({"count_orders": [17924]})
    assert choose_chart(one, infos(one, Source(plan("orders", [(Aggregate(func="count"), "count_orders")])))).kind \
        == "none"
    names = pa.table({"name": ["a", "b"], "city": ["x", "y"]})
    assert choose_chart(names).kind == "none"


def test_measures_of_different_scale_never_share_an_axis():
    table = pa.table({"region": ["N", "S"], "count_orders_left": [5000, 13000],
                      "count_tickets_right": [800, 1900], "count_tickets_minus_count_orders_diff": [-4200, -11100],
                      "sum_revenue_right": [9.5e6, 2.1e7]})
    left = plan("orders", [(col("region"), "region"), (Aggregate(func="count"), "count_orders")], [col("region")])
    right = plan("tickets", [(col("region"), "region"), (Aggregate(func="count"), "count_tickets"),
                             (Aggregate(func="sum", arg=col("revenue")), "sum_revenue")], [col("region")])
    columns = infos(table, Source(left, "left", "sales"), Source(right, "right", "crm"))
    assert [c.label for c in columns] == ["Region", "Orders", "Tickets", "Difference", "Total revenue"]
    spec = choose_chart(table, columns)
    assert spec.kind == "bar"
    assert spec.axes() == (("count_orders_left", "count_tickets_right"), ("count_tickets_minus_count_orders_diff",),
                           ("sum_revenue_right",))
    svg = chart_svg(table, spec)
    assert svg.count('stroke="#888"/>') == 2 * 3  # each panel its own y axis and zero line
    assert ">Difference</text>" in svg and ">Total revenue</text>" in svg


def test_without_a_plan_the_shape_is_guessed_from_names_and_keys_stay_out():
    table = pa.table({"first_name": ["Ann", "Bo"], "last_name": ["Li", "Ek"], "user_id": [7, 8], "n": [3, 2]})
    spec = choose_chart(table)
    assert (spec.kind, spec.x, spec.y, spec.labels) == ("bar", "first_name", ("n",), ("first_name", "last_name"))
    assert ">Ann Li</text>" in chart_svg(table, spec)


def test_svg_is_deterministic_and_handles_negative_values():
    table = pa.table({"region": ["North", "South"], "diff": [-4400, 1200]})
    spec = choose_chart(table)
    svg = chart_svg(table, spec)
    assert svg == chart_svg(table, spec)
    assert svg.count("</rect>") == 2
    assert "<title>-4,400</title>" in svg and ">North</text>" in svg
    ticks = re.findall(r'text-anchor="end">([^<]*)</text>', svg)
    assert ticks == ["-6,000", "-4,000", "-2,000", "0", "2,000"]  # round steps, zero included


def test_the_reader_can_draw_another_kind():
    table, p = PER_CATEGORY
    columns = infos(table, Source(p))
    line = with_kind(choose_chart(table, columns), "line", table, columns)
    assert (line.kind, line.x, line.y) == ("line", "RegionName", ("order_count",))
    assert "<polyline" in chart_svg(table, line)
    assert chart_svg(table, with_kind(line, "none", table)) == ""


def test_png_and_svg_export(tmp_path):
    table, p = OVER_TIME
    spec = choose_chart(table, infos(table, Source(p)))
    png = chart_png(table, spec)
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5_000
    saved = save_chart(table, spec, tmp_path / "sales.svg")
    assert saved.read_text(encoding="utf-8").startswith("<svg") and ">Total amount</text>" in saved.read_text()
    assert save_chart(table, spec, tmp_path / "sales.PNG").read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(NL2SQLError, match="use .png or .svg"):
        save_chart(table, spec, tmp_path / "sales.jpg")
    with pytest.raises(NL2SQLError, match="no chart to save"):
        save_chart(table, ChartSpec("none"), tmp_path / "none.png")


def test_a_series_over_year_and_month_is_ordered_and_named_by_both():
    year, month = Extract(part="year", expr=col("sold_at")), Extract(part="month", expr=col("sold_at"))
    p = plan("Sale", [(year, "yr"), (month, "mon"), (Aggregate(func="count"), "cnt")], [year, month])
    table = pa.table({"yr": [2024, 2023, 2024, 2023], "mon": [1, 12, 2, 11], "cnt": [5, 4, 6, 3]})
    spec = choose_chart(table, infos(table, Source(p)))
    assert (spec.kind, spec.labels, spec.x_title()) == ("line", ("yr", "mon"), "Year, Month")
    svg = chart_svg(table, spec)
    assert re.findall(r'rotate\(-35[^)]*\)">([^<]*)</text>', svg) == ["2023 11", "2023 12", "2024 1", "2024 2"]
    assert ">Year, Month</text>" in svg
