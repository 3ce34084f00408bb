"""Static HTML and text of a result: every section, deterministic, nothing machine-specific."""

from __future__ import annotations

from nl2sql.notebook.html import render_html, table_html
from nl2sql.notebook.text import render_text, table_text
from tests.notebook.helpers import HELD, MACHINE_SPECIFIC, TWO_SOURCES


def test_html_has_the_widget_sections_in_order(two_sources):
    html = render_html(two_sources)
    positions = [html.index(f"<summary><b>{title}</b></summary>")
                 for title in ("Plan", "SQL", "Sub-queries", "Reasoning", "Trace")]
    assert positions == sorted(positions)
    assert html.index("South differs most: Orders 13,126 vs Support tickets 1,917") < positions[0]
    assert "<svg" in html and html.count("<td") >= 5 * 4
    assert "FROM orders AS t1" in html  # the plan tree
    assert html.count("sub-query input · sq_") == 2  # the trace, labelled by sub-query


def test_html_and_text_are_the_same_for_the_same_question(session, two_sources):
    again = session.ask(TWO_SOURCES)
    assert render_html(again) == render_html(two_sources)
    assert render_text(again) == render_text(two_sources)


def test_outputs_hold_nothing_machine_specific(two_sources):
    for rendered in (render_html(two_sources), render_text(two_sources)):
        assert MACHINE_SPECIFIC.findall(rendered) == []
    assert two_sources.trace_id not in render_html(two_sources)


def test_held_request_shows_its_reason_and_sql(governed):
    result = governed.ask(HELD)
    html = render_html(result)
    assert "Waiting for approval:" in html
    assert "the query reads sensitive data: customers" in html
    text = render_text(result)
    assert "Waiting for approval (warehouse): the query reads sensitive data: customers" in text


def test_errors_are_listed_without_a_table(session):
    result = session.ask("What is the weather today?")
    html = render_html(result)
    assert "<code>QUESTION_NOT_ANSWERABLE</code>" in html
    assert "<table" not in html
    assert "Error QUESTION_NOT_ANSWERABLE (datasource_resolver)" in render_text(result)


def test_query_result_reprs_use_the_renderers(two_sources):
    bundle = two_sources._repr_mimebundle_()
    assert bundle["text/html"] == render_html(two_sources)
    assert bundle["text/plain"] == render_text(two_sources)
    assert repr(two_sources).startswith("QueryResult(status='success'")


def test_tables_page_and_escape():
    import pyarrow as pa

    table = pa.table({"name": ["<b>x</b>", None, "c"], "amount": [1.5, 2.0, 1234.5]})
    html = table_html(table, 1, 1)
    assert "<caption>rows 2–2 of 3</caption>" in html
    assert "&lt;b&gt;" not in html and "<td" in html and "2.00" in html
    assert "&lt;b&gt;x&lt;/b&gt;" in table_html(table, 0, 3)
    assert table_text(table, 2).splitlines() == [
        "name     | amount", "---------+-------", "<b>x</b> |   1.50", "         |   2.00", "(2 of 3 rows)",
    ]


def test_sql_is_laid_out_by_clause_and_otherwise_unchanged(two_sources):
    from nl2sql.notebook.highlight import layout_sql

    for out in two_sources.sub_queries:
        laid_out = layout_sql(out.sql_draft, out.dialect)
        assert laid_out.replace("\n", " ") == out.sql_draft
        assert laid_out.count("\nINNER JOIN ") >= 1 and "\nGROUP BY " in laid_out


def test_static_html_shows_every_sql_draft_after_a_retry(session):
    result = session.ask("How many customers are in Californa?")
    page = render_html(result)
    assert result.sub_queries[0].retry_count == 1
    assert "attempt 1" in page and "attempt 2 · final" in page
    assert "Californa'" in page and "California'" in page
