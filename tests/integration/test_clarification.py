"""needs_clarification: a run under `min_confidence` offers runnable readings; choosing one runs it.

Three small databases of our own, each with one word two tables could mean: snake_case with
declared keys (SQLite), camelCase with no declared keys (SQLite), and coded prefixes (DuckDB).
Every chosen reading's rows are checked against hand-computed values.
"""

from __future__ import annotations

import json
import sqlite3

import duckdb
import pytest

import nl2sql
from nl2sql.errors import ErrorCode


def _snake(tmp_path) -> str:
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT, city TEXT);
            CREATE TABLE products (product_id INTEGER PRIMARY KEY, title TEXT, price REAL);
            CREATE TABLE orders (order_id INTEGER PRIMARY KEY,
                customer_id INTEGER REFERENCES customers(customer_id),
                product_id INTEGER REFERENCES products(product_id), price REAL, quantity INTEGER);
            INSERT INTO customers VALUES (1, 'Ann', 'Oslo'), (2, 'Bob', 'Rome'), (3, 'Cid', 'Oslo');
            INSERT INTO products VALUES (1, 'Lamp', 10), (2, 'Desk', 200), (3, 'Chair', 50);
            INSERT INTO orders VALUES (1, 1, 1, 9, 2), (2, 2, 2, 180, 1), (3, 3, 3, 45, 4),
                                      (4, 1, 2, 190, 1);
        """)
    return f"sqlite:///{path}"


def _camel(tmp_path) -> str:
    path = tmp_path / "fleet.sqlite"
    with sqlite3.connect(path) as con:  # no declared keys at all
        con.executescript("""
            CREATE TABLE Vehicle (vehicleId INTEGER, plateNumber TEXT, maxSpeed REAL);
            CREATE TABLE Trip (tripId INTEGER, vehicleId INTEGER, maxSpeed REAL, distanceKm REAL);
            INSERT INTO Vehicle VALUES (1, 'AB1', 120), (2, 'CD2', 160);
            INSERT INTO Trip VALUES (1, 1, 90, 10), (2, 1, 110, 30), (3, 2, 150, 50);
        """)
    return f"sqlite:///{path}"


def _coded(tmp_path) -> str:
    path = tmp_path / "stock.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE tbl_item (itm_id INTEGER PRIMARY KEY, itm_label VARCHAR, weight DOUBLE)")
    con.execute("CREATE TABLE tbl_parcel (prc_id INTEGER PRIMARY KEY, weight DOUBLE)")
    con.execute("INSERT INTO tbl_item VALUES (1, 'bolt', 2), (2, 'nut', 4)")
    con.execute("INSERT INTO tbl_parcel VALUES (1, 30), (2, 50), (3, 100)")
    con.close()
    return str(path)


def _session(url: str, tmp_path, **settings):
    return nl2sql.connect(sources={"db": url}, settings={"project_dir": tmp_path / "p", **settings})


def _rows(result) -> list[tuple]:
    table = result.table()
    return [tuple(r.values()) for r in table.to_pylist()] if table is not None else []


CASES = [
    # (database, question, {table a reading uses: the one value it gives})
    (_snake, "What is the average price?", {"orders": 106.0, "products": 260 / 3}),
    (_camel, "What is the average max speed?", {"Vehicle": 140.0, "Trip": 350 / 3}),
    (_coded, "What is the total weight?", {"tbl_item": 6.0, "tbl_parcel": 180.0}),
]


@pytest.mark.parametrize(("make", "question", "expected"), CASES, ids=["snake", "camel", "coded"])
def test_an_ambiguous_word_offers_each_reading_and_the_chosen_one_gives_its_rows(
    make, question, expected, tmp_path
):
    with _session(make(tmp_path), tmp_path) as session:
        result = session.ask(question)
        assert result.status == "needs_clarification"
        assert result.answer is None and result.table() is None  # nothing was run
        found = result.candidates
        assert len(found) == 2
        assert [c.number for c in found] == [1, 2]
        for c in found:
            table = next(t for t in expected if t in c.description)
            assert t_in_sql(table, c.sql)
            chosen = result.choose(c.number)
            assert chosen.status == "success"
            assert chosen.sql == c.sql
            ((value,),) = _rows(chosen)
            assert value == pytest.approx(expected[table])
            # it ran as a supplied plan: through the validator and the guarded executor
            nodes = [r["node"] for r in chosen.reasoning]
            assert "logical_validator" in nodes and "executor" in nodes
            assert chosen.sub_queries[0].plan_source == "pinned"


def t_in_sql(table: str, sql: str | None) -> bool:
    return sql is not None and f'"{table}"' in sql


def test_session_choose_is_result_choose_and_to_dict_lists_the_readings(tmp_path):
    with _session(_snake(tmp_path), tmp_path) as session:
        result = session.ask("What is the average price?")
        listed = result.to_dict()["candidates"]
        assert [c["number"] for c in listed] == [1, 2]
        assert all(c["sql"].startswith("SELECT") and c["description"] for c in listed)
        assert _rows(session.choose(result, 2)) == _rows(result.choose(2))


def test_under_min_confidence_the_planners_own_reading_comes_first(tmp_path):
    question = "How many orders are there?"
    url = _snake(tmp_path)
    with _session(url, tmp_path, min_confidence=1.0) as session:
        result = session.ask(question)
        assert result.status == "needs_clarification"
        (error,) = [e for e in result.errors if e.error_code == ErrorCode.CLARIFICATION_NEEDED]
        assert "min_confidence 1.00" in error.message
        first = result.candidates[0]
        assert "count of orders" in first.description
        assert _rows(result.choose(1)) == [(4,)]
    with _session(url, tmp_path, min_confidence=0.0) as session:
        assert session.ask(question).status == "success"  # 0: always answered


def test_min_confidence_zero_keeps_the_plain_refusal(tmp_path):
    with _session(_snake(tmp_path), tmp_path, min_confidence=0.0) as session:
        result = session.ask("What is the average price?")
        assert result.status == "error"
        assert result.candidates == []
        assert "could mean" in result.errors[0].message


def test_choosing_never_bypasses_the_validator(tmp_path):
    with _session(_snake(tmp_path), tmp_path) as session:
        result = session.ask("What is the average price?")
        (error,) = [e for e in result.errors if e.error_code == ErrorCode.CLARIFICATION_NEEDED]
        bad = error.details["candidates"][0]["plan"]
        bad["select"][0]["expr"]["arg"]["name"] = "no_such_column"
        chosen = result.choose(1)
        assert chosen.status == "error"
        assert chosen.errors[0].error_code == ErrorCode.COLUMN_NOT_FOUND
        assert chosen.table() is None


def test_choose_refuses_a_bad_number_or_a_run_with_nothing_to_choose(tmp_path):
    with _session(_snake(tmp_path), tmp_path) as session:
        result = session.ask("What is the average price?")
        for bad in (0, 3, "1", True):
            with pytest.raises(ValueError, match="between 1 and 2"):
                result.choose(bad)
        answered = session.ask("How many orders are there?")
        with pytest.raises(ValueError, match="no readings to choose from"):
            answered.choose(1)


def test_min_confidence_comes_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("NL2SQL_MIN_CONFIDENCE", "1")
    with _session(_snake(tmp_path), tmp_path) as session:
        assert session.settings.min_confidence == 1.0
        assert session.ask("How many orders are there?").status == "needs_clarification"


def test_cli_lists_the_readings_and_choose_runs_one(tmp_path, monkeypatch, capsys):
    from nl2sql.cli.main import main

    url = _snake(tmp_path)
    (tmp_path / "nl2sql.toml").write_text(f'[sources.shop]\nurl = "{url}"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["ask", "What is the average price?"]) == 1
    out = capsys.readouterr().out
    assert "needs_clarification" in out and "Did you mean" in out
    assert "1. average orders.price" in out and "2. average products.price" in out
    assert 'FROM "products"' in out and "--choose N" in out
    assert main(["ask", "What is the average price?", "--choose", "2", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["status"] == "success" and payload["rows"] == [[pytest.approx(260 / 3)]]
    assert main(["ask", "What is the average price?", "--choose", "7"]) == 1
    assert "choose a reading between 1 and 2" in capsys.readouterr().err


def test_widget_shows_one_button_per_reading_and_a_click_runs_it(tmp_path):
    from nl2sql.notebook.widgets import RunView

    with _session(_coded(tmp_path), tmp_path) as session:
        view = RunView(session.ask("What is the total weight?"))
        assert view.status == "needs_clarification"
        buttons = view.actions.choose_buttons
        assert [b.description for b in buttons] == ["Run 1", "Run 2"]
        second = view.result.candidates[1]
        buttons[1].click()
        assert view.status == "success"
        assert view.result.sql == second.sql
        assert view.notice.value.startswith("<p>Ran the chosen reading")
        assert view.actions.choose_buttons == []  # the new result has nothing to choose


class _UnsurePlanner:
    """A model-backed planner stand-in: one plan, with the model's own low confidence."""

    def plan(self, request):
        from nl2sql.plan import Aggregate, PlanModel, SelectItem, TableRef
        from nl2sql.reasoning.base import ASTPlannerResponse

        plan = PlanModel(tables=[TableRef(name="orders", alias="t")],
                         select=[SelectItem(expr=Aggregate(func="count"))])
        return ASTPlannerResponse(plan=plan, confidence=0.3, reasoning="counted the orders")


def test_a_models_plan_under_min_confidence_is_offered_as_the_one_reading(tmp_path):
    session = nl2sql.connect(sources={"db": _snake(tmp_path)}, models={"ast_planner": _UnsurePlanner()},
                             settings={"project_dir": tmp_path / "p"})
    with session:
        result = session.ask("How many orders are there?")
        assert result.status == "needs_clarification"
        (only,) = result.candidates
        assert only.description == "counted the orders" and only.confidence == 0.3
        assert _rows(result.choose(1)) == [(4,)]


def test_static_html_and_text_list_the_readings(tmp_path):
    from nl2sql.notebook.text import render_text

    with _session(_snake(tmp_path), tmp_path) as session:
        result = session.ask("What is the average price?")
        text, html = render_text(result), result._repr_html_()
        assert "Did you mean" in text and "1. average orders.price" in text
        assert 'FROM "products"' in text
        assert "Did you mean" in html and "2. average products.price" in html
        assert render_text(result) == text  # deterministic, as nbval needs


def test_a_chosen_reading_can_be_pinned_and_the_question_is_then_answered_by_it(tmp_path):
    with _session(_snake(tmp_path), tmp_path) as session:
        chosen = session.ask("What is the average price?").choose(2)
        chosen.pin()
        again = session.ask("What is the average price?")
        assert again.status == "success" and again.sql == chosen.sql
        ((value,),) = _rows(again)
        assert value == pytest.approx(260 / 3)
