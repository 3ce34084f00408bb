"""One cell format for the widget, the static HTML, the text view and the CLI."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pyarrow as pa
import pytest

from nl2sql.labels import ColumnInfo
from nl2sql.notebook.formatting import column_formatter, formatted_rows
from nl2sql.notebook.html import table_html
from nl2sql.notebook.text import table_text


@pytest.mark.parametrize(("values", "info", "expected"), [
    ([1234567, 89], None, ["1,234,567", "89"]),
    ([1234.5, 2.0], None, ["1,234.50", "2.00"]),  # one number of decimals down a column
    ([3.0, 12.0], None, ["3", "12"]),  # whole floats stay whole
    ([0.00123, 0.0005], None, ["0.0012", "0.0005"]),  # small fractions keep their digits
    ([Decimal("10.10"), Decimal("7")], None, ["10.10", "7.00"]),
    ([2023, 2024], ColumnInfo("order_year", "Order year", "time"), ["2023", "2024"]),  # a year is no amount
    ([12345, 7], ColumnInfo("customerID", "Customer ID", "key"), ["12345", "7"]),
    ([None, True, False], None, ["", "yes", "no"]),
    ([dt.date(2024, 3, 5)], None, ["2024-03-05"]),
    ([dt.datetime(2024, 3, 5), dt.datetime(2024, 3, 5, 14, 2), dt.datetime(2024, 3, 5, 14, 2, 9)], None,
     ["2024-03-05", "2024-03-05 14:02", "2024-03-05 14:02:09"]),
])
def test_values_are_written_by_one_rule_per_column(values, info, expected):
    write = column_formatter(values, info)
    assert [write(v) for v in values] == expected


def test_every_view_writes_cells_alike_with_labels_as_headers():
    table = pa.table({"SignupYear": [2023, 2024], "total_amount": [12345.5, 7.0],
                      "placed": pa.array([dt.datetime(2024, 1, 2), dt.datetime(2024, 1, 3)])})
    columns = [ColumnInfo("SignupYear", "Signup year", "time"), ColumnInfo("total_amount", "Total amount", "measure"),
               ColumnInfo("placed", "Placed", "text")]
    rows = formatted_rows(table, columns, 0, 2)
    assert rows == [["2023", "12,345.50", "2024-01-02"], ["2024", "7.00", "2024-01-03"]]
    html = table_html(table, 0, 2, columns)
    text = table_text(table, 2, columns)
    for cell in ("2023", "12,345.50", "7.00", "2024-01-02"):
        assert f">{cell}</td>" in html and cell in text
    assert '<th style="border:1px solid #ddd;padding:2px 6px;text-align:left" title="total_amount">Total amount</th>' \
        in html  # the label, with the SQL alias in its tooltip
    assert text.splitlines()[0].split(" | ")[:2] == ["Signup year", "Total amount"]
    assert "2,023" not in html + text and "00:00" not in html + text


def test_a_page_is_written_by_the_rule_of_its_whole_column():
    table = pa.table({"price": [1.0, 2.0, 3.0, 4.5]})
    assert formatted_rows(table, None, 0, 2) == [["1.00"], ["2.00"]]  # 4.5 further down sets the decimals
