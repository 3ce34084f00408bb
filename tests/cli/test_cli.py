"""The `nl2sql` command, in-process, on the demo data (no configuration anywhere)."""

from __future__ import annotations

import json

import pytest

from nl2sql.cli.main import main
from nl2sql.demo import ensure_demo


@pytest.fixture(autouse=True)
def _in_empty_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no nl2sql.toml here or above: the demo sources are used
    for var in ("NL2SQL_MODEL", "NL2SQL_ROW_CAP"):
        monkeypatch.delenv(var, raising=False)


def _direct_count(sql: str) -> int:
    from nl2sql.datasources.duckdb import DuckDBAdapter

    # The adapter's own (read-only) configuration: DuckDB refuses a second connection to one
    # file with a different configuration in the same process.
    adapter = DuckDBAdapter("check", ensure_demo().warehouse)
    try:
        return adapter.execute(sql, row_cap=1, timeout_s=10).table.column(0)[0].as_py()
    finally:
        adapter.close()


def test_ask_json_returns_success_and_the_right_number(capsys):
    code = main(["ask", "How many orders were placed in 2024?", "--json"])
    payload = json.loads(capsys.readouterr().out)
    expected = _direct_count("SELECT COUNT(*) FROM orders WHERE year(order_date) = 2024")
    assert code == 0
    assert payload["status"] == "success"
    assert payload["rows"] == [[expected]]
    assert "orders" in payload["sql"]


def test_ask_prints_answer_sql_and_status(capsys):
    assert main(["ask", "How many customers are in california?"]) == 0
    out = capsys.readouterr().out
    assert "success" in out and "California" in out and "SELECT" in out


def test_run_is_the_same_command_and_failure_exits_1(capsys):
    code = main(["run", "What is the weather today?", "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 1
    assert payload["status"] == "not_answerable"
    assert payload["errors"][0]["error_code"] == "QUESTION_NOT_ANSWERABLE"


def test_unknown_datasource_exits_1_with_one_line(capsys):
    code = main(["ask", "How many orders are there?", "--datasource", "nope"])
    out = capsys.readouterr().out
    assert code == 1 and "INVALID_STATE" in out


def test_bad_config_file_is_a_one_line_error(tmp_path, capsys):
    bad = tmp_path / "nl2sql.toml"
    bad.write_text("[sources.x]\nurl = '${NL2SQL_TEST_UNSET_SECRET}'\n")
    code = main(["ask", "How many orders are there?", "--config", str(bad)])
    err = capsys.readouterr().err
    assert code == 1
    assert "NL2SQL_TEST_UNSET_SECRET" in err and "Traceback" not in err


def test_timeout_exits_1_with_one_line(capsys):
    code = main(["ask", "How many orders were placed in 2024?", "--timeout", "0.001"])
    out = capsys.readouterr().out
    assert code == 1
    line = next(line for line in out.splitlines() if "PIPELINE_TIMEOUT" in line)
    assert "0.001" in line
