"""%nl2sql, %%nl2sql and %config NL2SQL through a real IPython InteractiveShell."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError
from traitlets.config import Config

from nl2sql.notebook.magic import NL2SQL
from nl2sql.result import QueryResult
from tests.notebook.helpers import HELD, run


def test_line_magic_shows_the_answer(shell):
    outcome, out, err, _ = run(shell, "%nl2sql How many orders were placed in 2024?")
    assert outcome.success
    assert "Answer: 17,924 orders were placed in 2024." in out
    assert err == ""


def test_cell_magic_stores_the_result(shell):
    outcome, out, _, _ = run(shell, "%%nl2sql -o r\nHow many orders\nwere placed in 2024?")
    assert outcome.success
    result = shell.user_ns["r"]
    assert isinstance(result, QueryResult)
    assert result.question == "How many orders were placed in 2024?"  # lines joined
    assert result.to_pandas().iloc[0, 0] == 17924


def test_a_question_ending_in_a_word_and_question_mark_is_asked_not_help(shell):
    # IPython reads `... cancelled?` as "help on cancelled"; the extension keeps it a question
    outcome, out, _, _ = run(shell, "%nl2sql -o c How many orders were cancelled?")
    assert outcome.success
    assert "not found" not in out
    assert shell.user_ns["c"].status == "success"


def test_no_exec_plans_without_running(shell):
    outcome, out, _, _ = run(shell, "%nl2sql --no-exec -o planned How many orders were cancelled?")
    assert outcome.success
    result = shell.user_ns["planned"]
    assert result.executed is False
    assert result.table() is None
    assert "WHERE \"t1\".\"status\" = 'cancelled'" in result.sql


def test_datasource_option_restricts_the_run(shell):
    run(shell, "%nl2sql -d crm -o t How many support tickets are there per priority?")
    result = shell.user_ns["t"]
    assert {o.sub_query.datasource_id for o in result.sub_queries} == {"crm"}


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("%nl2sql --bogus How many orders?", "unrecognized arguments: --bogus; see %nl2sql --help"),
        ("%nl2sql", "no question"),
        ("%nl2sql -d wherehouse How many orders?", "did you mean 'warehouse'?"),
        ("%nl2sql --model nope How many orders?", "a model is 'offline' or 'provider:model'"),
        ("%nl2sql -s missing How many orders?", "'missing' is not an nl2sql Session"),
        ("%%nl2sql -o r extra words\nHow many orders?", "the cell body is the question"),
    ],
)
def test_mistakes_are_one_line_usage_errors(shell, cell, message):
    outcome, out, err, _ = run(shell, cell)
    assert isinstance(outcome.error_in_exec, UsageError)
    assert message in str(outcome.error_in_exec)
    assert "Traceback" not in out + err
    assert len(str(outcome.error_in_exec).splitlines()) == 1


def test_an_unanswerable_question_gets_a_hint_with_a_close_table_name(shell):
    outcome, out, err, _ = run(shell, "%nl2sql How many ordrs were placed in 2024?")
    assert outcome.success  # the result is shown (its trace can be read), plus one line
    assert err.strip().splitlines() == [
        "nl2sql: not_answerable: no table or column matches 'ordrs' — hint: no name matches "
        "'ordrs'; did you mean table 'orders' (warehouse)?"
    ]


def test_a_table_of_another_source_is_named_in_the_hint(shell):
    _, _, err, _ = run(shell, "%nl2sql -d crm How many orders?")
    assert "'orders' is a table of 'warehouse', not of 'crm'; try -d warehouse" in err


def test_help_lists_every_option(shell):
    outcome, out, _, _ = run(shell, "%nl2sql --help")
    assert outcome.success
    for option in ("--datasource", "--no-exec", "--out", "--approve", "--pin", "--model", "--session"):
        assert option in out


def test_config_changes_the_settings_of_the_next_run(shell):
    run(shell, "%config NL2SQL.row_cap = 3")
    try:
        run(shell, "%nl2sql -o capped How many orders were placed per month in 2024?")
        result = shell.user_ns["capped"]
        assert result.to_pandas().shape[0] == 3
        assert result.sub_queries[0].artifact.truncated
    finally:
        run(shell, "%config NL2SQL.row_cap = 10000")


def test_setting_defaults_come_from_the_config_file(shell, tmp_path, monkeypatch):
    (tmp_path / "nl2sql.toml").write_text("[settings]\nrow_cap = 77\npipeline_timeout_s = 12.5\n",
                                          encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(shell, "config", Config())  # as in a fresh kernel: nothing set by %config
    magic = NL2SQL(shell)
    shell.configurables.remove(magic)
    assert magic.row_cap == 77
    assert magic.pipeline_timeout_s == 12.5
    assert magic.statement_timeout_s == 30.0  # not in the file: the built-in default
    assert magic.model == "offline"


def test_approve_and_pin_options_through_a_session_variable(shell, governed):
    shell.user_ns["gov"] = governed
    outcome, out, _, _ = run(shell, f"%%nl2sql -s gov -o held\n{HELD}")
    assert shell.user_ns["held"].status == "needs_approval"
    outcome, out, _, _ = run(shell, f"%%nl2sql -s gov -o ok --approve --pin\n{HELD}")
    assert outcome.success
    assert shell.user_ns["ok"].status == "success"
    assert "Pinned 1 plan(s)" in out
    assert governed.pins.get(HELD) is not None


def test_loading_twice_registers_once(shell):
    before = sum(isinstance(c, NL2SQL) for c in shell.configurables)
    run(shell, "%reload_ext nl2sql")
    run(shell, "%load_ext nl2sql")
    assert sum(isinstance(c, NL2SQL) for c in shell.configurables) == before == 1


def test_importing_the_package_loads_no_notebook_machinery():
    import subprocess
    import sys

    code = ("import sys, nl2sql; assert callable(nl2sql.load_ipython_extension); "
            "print(sorted(m for m in ('IPython', 'ipywidgets', 'traitlets') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
