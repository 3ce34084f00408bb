"""The terminal rendering: the answer first, labels as headers, formatted numbers, and headers
that stay distinct on an 80-column terminal."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
from rich.console import Console

from nl2sql.cli.main import main
from nl2sql.cli.render import rich_table
from nl2sql.labels import ColumnInfo, Source, arrow_kind, describe_columns
from nl2sql.plan import Aggregate, ColumnRef, PlanModel, SelectItem, TableRef


def _printed(renderable, width=80) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def _headers(text: str) -> list[str]:
    """Each column's header text (spaces dropped), read from a rich table's header lines."""
    lines = text.splitlines()
    end = next(i for i, line in enumerate(lines) if line.startswith("┡"))
    cells: list[str] = []
    for line in lines[1:end]:
        parts = line.strip("┃").split("┃")
        cells = cells or [""] * len(parts)
        cells = [c + "".join(p.split()) for c, p in zip(cells, parts, strict=True)]
    return cells


def _plan(table, measure_alias):
    region = ColumnRef(table="t", name="sales_region")
    return PlanModel(tables=[TableRef(name=table, alias="t")], group_by=[region],
                     select=[SelectItem(expr=region, alias="sales_region"),
                             SelectItem(expr=Aggregate(func="count", distinct=True,
                                                       arg=ColumnRef(table="t", name="openedByAgentId")),
                                        alias=measure_alias)])


def test_two_long_headers_fold_instead_of_becoming_the_same_text():
    table = pa.table({"sales_region": ["North-east", "South"],
                      "nOpenedByAgentId_primary": [1234567, 89], "nOpenedByAgentId_secondary": [7654321, 98],
                      "signup_day": pa.array([dt.datetime(2024, 1, 5), dt.datetime(2024, 2, 1, 9, 30)])})
    columns = describe_columns(
        [(f.name, arrow_kind(f.type)) for f in table.schema],
        [Source(_plan("support_case_events", "nOpenedByAgentId"), "primary", "crm_warehouse_primary"),
         Source(_plan("support_case_events", "nOpenedByAgentId"), "secondary", "crm_warehouse_secondary")])
    first, second = columns[1].label, columns[2].label
    assert first != second and first.startswith("Opened by agents") and "crm_warehouse_primary" in first
    text = _printed(rich_table(table, columns))
    assert "…" not in text
    heads = _headers(text)  # a folded header is still every character of its label, in order
    assert heads[1] == "".join(first.split()) and heads[2] == "".join(second.split())
    assert "1,234,567" in text and "7,654,321" in text and "2024-01-05" in text and "2024-02-01 09:30" in text
    # rich's default would have cut both to the same prefix
    from rich.table import Table

    cut = Table(first, second, "x" * 30, "y" * 30)
    cut.add_row("1", "2", "3", "4")
    assert "…" in _printed(cut)


def test_headers_are_labels_without_a_plan_too():
    table = pa.table({"ZIP_code": ["01234", "99999"], "avg_price": [1.5, 12345.678]})
    columns = describe_columns([(f.name, arrow_kind(f.type)) for f in table.schema], [])
    assert columns == [ColumnInfo("ZIP_code", "ZIP code", "key"), ColumnInfo("avg_price", "Average price", "measure", "avg")]
    text = _printed(rich_table(table, columns), width=40)
    assert "ZIP code" in text and "Average price" in text and "12,345.68" in text and "1.50" in text


def test_ask_prints_labels_and_formatted_numbers_not_aliases(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["ask", "For each region, compare the number of orders with the number of support tickets"]) == 0
    out = capsys.readouterr().out
    assert "Support tickets" in out and "Difference" in out
    assert "count_orders_left" not in out and "_diff" not in out
    assert out.index("differs most") < out.index("SELECT")  # the answer before the SQL


def test_a_list_answer_is_a_count_in_words_and_its_table(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["ask", "List the customers in California"]) == 0
    out = capsys.readouterr().out
    # the count in words, the rows in the table (shown by their names)
    assert "customers match." in out and "Last name" in out
