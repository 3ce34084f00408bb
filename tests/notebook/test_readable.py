"""Readable answers on the demo: labels beside the aliases, a chart only where it means
something, and the chart saved as PNG/SVG from the API and from the widget."""

from __future__ import annotations

import base64

import pytest

from nl2sql.errors import NL2SQLError
from nl2sql.notebook.html import render_html
from nl2sql.notebook.text import render_text
from nl2sql.notebook.widgets import RunView
from tests.notebook.helpers import TWO_SOURCES

LIST = "List the customers in California"
SERIES = "How many orders were placed per month in 2024?"


@pytest.fixture(scope="module")
def listed(session):
    return session.ask(LIST)


def test_labels_map_aliases_and_the_frames_keep_the_aliases(two_sources):
    assert two_sources.labels == {
        "region_name": "Region name", "count_orders_left": "Orders",
        "count_support_tickets_right": "Support tickets",
        "count_support_tickets_minus_count_orders_diff": "Difference",
    }
    assert list(two_sources.to_pandas().columns) == list(two_sources.labels)
    html, text = render_html(two_sources), render_text(two_sources)
    assert ">Support tickets</th>" in html and 'title="count_support_tickets_right"' in html
    assert "13,126" in html and "13,126" in text and "13126" not in html.replace("13,126", "")


def test_a_list_answer_is_a_count_and_a_table_without_a_chart(listed):
    table = listed.table()
    assert listed.answer == f"{table.num_rows:,} customers match."
    names = [e for e in table.column("last_name").to_pylist()[:5]]
    assert not any(e in listed.answer for e in names)
    html = render_html(listed)
    assert "<svg" not in html and "Chart:" not in render_text(listed)
    with pytest.raises(NL2SQLError, match="no chart to save"):
        listed.save_chart("customers.png")


def test_a_time_series_is_a_line_in_month_order_saved_as_png_and_svg(session, tmp_path):
    result = session.ask(SERIES)
    assert "Chart: line of Orders by Month" in render_text(result)
    png = result.save_chart(tmp_path / "orders.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = result.save_chart(tmp_path / "orders.svg").read_text(encoding="utf-8")
    assert "<polyline" in svg and ">Month</text>" in svg and ">Orders</text>" in svg
    bars = result.save_chart(tmp_path / "bars.svg", kind="bar").read_text(encoding="utf-8")
    assert "</rect>" in bars and "<polyline" not in bars


def test_the_widget_exports_the_chart(two_sources):
    chart = RunView(two_sources).tabs.children[0].children[2]
    assert 'download="chart.svg"' in chart.downloads.value and 'download="chart.png"' not in chart.downloads.value
    chart.png.click()
    value = chart.downloads.value
    assert 'download="chart.png"' in value
    encoded = value.split('href="data:image/png;base64,')[1].split('"')[0]
    assert base64.b64decode(encoded)[:4] == b"\x89PNG"
    chart.kind.value = "none"
    assert chart.png.disabled and chart.downloads.value == ""


def test_the_answer_is_the_most_prominent_text(two_sources):
    html = render_html(two_sources)
    assert html.index('class="nl2sql-answer"') < html.index("<table")
    assert "font-size:1.3em" in html.split('class="nl2sql-answer"')[1].split(">")[0]
    assert TWO_SOURCES not in two_sources.answer
