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


def _long_question() -> str:
    words = "show the total amount by region for each customer with orders over ten".split()
    return " ".join(words[i % len(words)] for i in range(25_000))[:100_000]


def _ask_in_subprocess(tmp_path, *args, env=None):
    import os
    import subprocess
    import sys
    import time

    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "nl2sql.cli.main", "ask", *args],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})})
    return proc, time.monotonic() - started


def test_huge_question_with_a_timeout_exits_promptly_with_one_line(tmp_path):
    ensure_demo()  # built once, outside the measured time
    proc, elapsed = _ask_in_subprocess(tmp_path, "--timeout", "2", _long_question())
    assert proc.returncode == 1
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    assert len(lines) == 1 and "max_question_chars" in lines[0], lines[:3]
    assert elapsed < 15


def test_timed_out_run_lets_the_cli_exit_promptly(tmp_path):
    ensure_demo()
    proc, elapsed = _ask_in_subprocess(tmp_path, "--timeout", "2", _long_question(),
                                       env={"NL2SQL_MAX_QUESTION_CHARS": "200000"})
    assert proc.returncode == 1
    assert "PIPELINE_TIMEOUT" in proc.stdout and "Traceback" not in proc.stderr
    assert len(proc.stdout) < 2_000  # the question is echoed cut, not 100 KB of it
    assert elapsed < 45  # imports and the first snapshot dominate on a loaded machine
