"""The run widget: click its buttons, read its traits."""

from __future__ import annotations

import re

from nl2sql.notebook.sections import TAB_TITLES
from nl2sql.notebook.widgets import LiveLog, RunView
from nl2sql.notebook.widgets.table import PagedTable
from tests.notebook.helpers import HELD, TWO_SOURCES


def _answer_parts(view: RunView):
    answer = view.tabs.children[0]
    return answer.children[0], answer.children[1], answer.children[2]  # text, table, chart


def test_tabs_show_every_section_of_a_two_source_run(two_sources):
    view = RunView(two_sources)
    assert view.status == "success"
    assert view.tabs.titles == TAB_TITLES
    text, table, chart = _answer_parts(view)
    assert "South differs most: Orders 13,126 vs Support tickets 1,917" in text.value
    assert table.label.value == "rows 1–5 of 5"
    assert chart.kind.value == "bar"
    assert chart.svg.value.count("</rect>") == 5 * 3  # 5 regions × 3 measures
    assert chart.default.axes() == (("count_orders_left", "count_support_tickets_right"),
                                    ("count_support_tickets_minus_count_orders_diff",))  # a difference has its own axis
    plan, sql, subs = (view.tabs.children[i] for i in (1, 2, 3))
    assert "FROM orders AS t1" in plan.children[0].children[0].value
    assert "duckdb" in sql.value and "sqlite" in sql.value
    assert subs.value.count("9/9") == 2  # validation checks per sub-query
    reasoning = view.tabs.children[4]
    assert reasoning.titles[:2] == ("datasource_resolver", "decomposer")


def test_chart_kind_can_be_changed(two_sources):
    _, _, chart = _answer_parts(RunView(two_sources))
    chart.kind.value = "line"
    assert "<polyline" in chart.svg.value
    assert "</rect>" not in chart.svg.value  # bars carry their value as a title; legend keys do not
    chart.kind.value = "none"
    assert chart.svg.value == ""


def test_time_series_defaults_to_a_line_and_pages_the_table(session):
    view = RunView(session.ask("How many orders were placed per month in 2024?"), page_size=5)
    _, table, chart = _answer_parts(view)
    assert chart.kind.value == "line"
    assert isinstance(table, PagedTable)
    assert table.label.value == "rows 1–5 of 12"
    assert table.previous.disabled
    table.next.click()
    table.next.click()
    assert table.page == 2
    assert table.label.value == "rows 11–12 of 12"
    assert table.next.disabled
    assert table.grid.value.count("<tr>") == 3  # header + 2 rows


def test_trace_selection_shows_the_delta_and_the_rebuilt_state(two_sources):
    browser = RunView(two_sources).tabs.children[5]
    labels = dict((value, label.strip()) for label, value in browser.nodes.options)
    decomposer = next(v for v, label in labels.items() if label == "decomposer")
    browser.nodes.value = decomposer
    assert "execution_dag" in browser.delta.value
    assert "datasource_resolver_response" not in browser.delta.value  # the delta only
    assert "datasource_resolver_response" in browser.state.value  # the merged state
    branches = [label for label in labels.values() if label.startswith("sub-query input")]
    order = [sq.id for sq in two_sources.decomposition.sub_queries]
    assert branches == [f"sub-query input · {sq}" for sq in order]


def test_approve_button_runs_the_held_plan_and_rerenders(governed):
    view = RunView(governed.ask(HELD))
    assert view.status == "needs_approval"
    assert "Waiting for approval" in _answer_parts_text(view)
    ((_, approve),) = view.actions.approve_buttons.items()
    approve.click()
    assert view.status == "success"
    assert view.result.sub_queries[0].plan_source == "pinned"
    assert view.notice.value == "<p>Approved: ran again on the approved plan.</p>"
    _, table, _ = _answer_parts(view)
    assert "Janet" in table.grid.value
    assert view.actions.approve_buttons == {}  # nothing is held any more


def test_reject_button_drops_the_held_query(governed):
    view = RunView(governed.ask(HELD))
    next(iter(view.actions.reject_buttons.values())).click()
    assert view.status == "error"
    assert "execution was rejected" in _answer_parts_text(view)
    assert view.notice.value.startswith("<p>Rejected")


def test_pin_then_run_again_uses_the_pinned_plan(governed):
    view = RunView(governed.ask("How many support tickets are there per priority?"))
    view.actions.pin.click()
    assert view.notice.value.startswith("<p>Pinned 1 plan(s)")
    assert governed.pins.get("How many support tickets are there per priority?") is not None
    view.actions.rerun.click()
    assert view.status == "success"
    assert view.result.sub_queries[0].plan_source == "pinned"
    assert view.notice.value == "<p>Ran again.</p>"


def test_verify_saves_a_curated_answer_and_fails_in_one_line_when_it_cannot(governed, two_sources):
    view = RunView(governed.ask("How many orders were cancelled?"))
    view.actions.verify.click()
    assert view.notice.value == "<p>Verified: saved as a curated answer on warehouse.</p>"
    combined = RunView(two_sources)
    combined.actions.verify.click()
    assert "verify failed: a curated answer is one query on one datasource" in combined.notice.value
    assert not combined.busy
    assert not combined.actions.rerun.disabled  # buttons come back after a failure


def test_buttons_that_cannot_apply_are_off(session):
    view = RunView(session.ask("What is the weather today?"))
    assert view.status == "not_answerable"
    assert view.actions.pin.disabled and view.actions.verify.disabled
    assert not view.actions.rerun.disabled
    view.actions.set_busy(True)
    assert view.actions.rerun.disabled
    view.actions.set_busy(False)
    assert view.actions.pin.disabled and not view.actions.rerun.disabled


def test_progress_log_has_one_line_per_node_event(session):
    view = RunView()
    view.start("How many orders were cancelled?")
    result = session.ask("How many orders were cancelled?", on_event=view.on_event)
    lines = view.progress.lines
    assert lines[0] == "question: How many orders were cancelled?"
    assert "▸ datasource_resolver …" in lines
    assert any(re.fullmatch(r"✓ answer_synthesizer  \d+\.\d{3} s", line) for line in lines)
    view.show(result)
    assert view.status == "success"


def test_static_fallback_is_in_the_mime_bundle_and_deterministic(session, two_sources):
    bundle = RunView(two_sources)._repr_mimebundle_()
    again = RunView(session.ask(TWO_SOURCES))._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/html"] == again["text/html"]
    assert bundle["text/plain"] == again["text/plain"]
    assert LiveLog()._repr_mimebundle_()["text/plain"] == ""


def _answer_parts_text(view: RunView) -> str:
    return view.tabs.children[0].children[0].value


def test_sql_tab_keeps_every_draft_after_a_retry(session):
    # A misspelled value: the first attempt's SQL finds nothing, the refiner repairs it.
    result = session.ask("How many customers are in Californa?")
    (out,) = result.sub_queries
    assert out.retry_count == 1
    assert [d.attempt for d in out.sql_drafts] == [0, 1]
    assert "'Californa'" in out.sql_drafts[0].sql and out.sql_drafts[1].sql == out.sql_draft
    sql_tab = RunView(result).tabs.children[2]
    assert "Californa'" in sql_tab.value and "California'" in sql_tab.value
    assert "attempt 1" in sql_tab.value and "attempt 2 · final" in sql_tab.value


def test_trace_tab_reruns_from_the_selected_node(two_sources):
    view = RunView(two_sources)
    browser = view.tabs.children[5]
    labels = {value: label.strip() for label, value in browser.nodes.options}
    inner = next(v for v, label in labels.items() if label.startswith("sub-query input"))
    browser.nodes.value = inner
    assert browser.rerun.disabled  # a node inside one sub-query's run cannot be resumed alone
    browser.nodes.value = next(v for v, label in labels.items() if label == "decomposer")
    assert not browser.rerun.disabled
    browser.rerun.click()
    assert view.result is not two_sources and view.status == "success"
    assert view.notice.value == "<p>Ran again from the selected trace node.</p>"
    names = [n.name for n in view.result.trace.main_nodes()]
    assert names[:2] == ["__root__", "layer_router"] and "decomposer" not in names
    assert view.result.answer == two_sources.answer
