"""The chart is chosen from the result's shape and drawn as deterministic SVG."""

from __future__ import annotations

import datetime as dt
import re

import pyarrow as pa
import pytest

from nl2sql.notebook.chart import ChartSpec, chart_svg, choose_chart, with_kind


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        (pa.table({"month": [1, 2, 3], "count_orders": [5, 7, 6]}), ChartSpec("line", "month", ("count_orders",))),
        (pa.table({"day": pa.array([dt.date(2024, 1, 1), dt.date(2024, 1, 2)]), "total": [1.0, 2.0]}),
         ChartSpec("line", "day", ("total",))),
        (pa.table({"category": ["a", "b"], "sum_quantity": [3, 4], "avg_price": [1.5, 2.5]}),
         ChartSpec("bar", "category", ("sum_quantity", "avg_price"), ("category",))),
        (pa.table({"first_name": ["Ann", "Bo"], "last_name": ["Li", "Ek"], "n": [3, 2]}),
         ChartSpec("bar", "first_name", ("n",), ("first_name", "last_name"))),
        (pa.table({"count_orders": [17924]}), ChartSpec("none")),
        (pa.table({"name": ["a", "b"], "city": ["x", "y"]}), ChartSpec("none")),
    ],
)
def test_choice_follows_the_shape(table, expected):
    assert choose_chart(table) == expected


def test_svg_is_deterministic_and_handles_negative_values():
    table = pa.table({"region": ["North", "South"], "diff": [-4400, 1200]})
    spec = choose_chart(table)
    svg = chart_svg(table, spec)
    assert svg == chart_svg(table, spec)
    assert svg.count("</rect>") == 2
    assert "<title>-4,400</title>" in svg and ">North</text>" in svg
    ticks = re.findall(r'text-anchor="end">([^<]*)</text>', svg)
    assert ticks == ["-6,000", "-4,000", "-2,000", "0", "2,000"]  # round steps, zero included


def test_bars_are_named_by_every_label_column():
    table = pa.table({"first_name": ["Janet", "Donald"], "last_name": ["Smith", "Williams"], "n": [470, 462]})
    svg = chart_svg(table, choose_chart(table))
    assert ">Janet Smith</text>" in svg and ">Donald Williams</text>" in svg


def test_the_reader_can_draw_another_kind():
    table = pa.table({"category": ["a", "b", "c"], "n": [1, 2, 3]})
    line = with_kind(choose_chart(table), "line", table)
    assert line == ChartSpec("line", "category", ("n",), ("category",))
    assert "<polyline" in chart_svg(table, line)
    assert chart_svg(table, with_kind(line, "none", table)) == ""
    # a shape with no default chart can still be drawn as bars of its numeric columns
    scalar_pairs = pa.table({"a": [1, 2], "b": [3, 4]})
    assert with_kind(choose_chart(scalar_pairs), "bar", scalar_pairs) == ChartSpec("bar", "a", ("b",))
