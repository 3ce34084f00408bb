"""Follow-ups and the history through the magics of a real IPython shell: `%nl2sql` follows
the previous run unless `--new`, `%nl2sql_history` lists, opens and re-runs runs."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

from nl2sql.notebook.html import header_html
from tests.notebook.helpers import MACHINE_SPECIFIC, run


@pytest.fixture
def shell(tmp_path):
    """A shell of its own (its own project folder, so its own history and run numbers)."""
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    assert ip.run_cell("%load_ext nl2sql").success
    ip.user_ns["_project"] = str(tmp_path)
    assert ip.run_cell("%config NL2SQL.project_dir = _project").success
    return ip


def test_a_follow_up_shows_its_thread_and_new_asks_afresh(shell):
    run(shell, "%nl2sql -o a How many orders were placed in 2024?")
    outcome, out, err, outputs = run(shell, "%nl2sql -o b And in 2023?")
    assert outcome.success and err == ""
    assert f"↳ follow-up of run {shell.user_ns['a'].run_number}: year 2024 → 2023" in out
    assert "Answer: The answer is 15,445" in out or "15,445" in out
    html = outputs[0].data["text/html"]
    assert "follow-up of run" in html and "How many orders were placed in 2024?" in html
    assert "follow-up" in header_html(shell.user_ns["b"])
    outcome, out, _, _ = run(shell, "%nl2sql --new -o c And in 2023?")
    assert shell.user_ns["c"].follow_up is None and "follow-up of run" not in out


def test_history_magic_lists_opens_and_reruns(shell):
    run(shell, "%nl2sql -o first How many orders were placed in 2024?")
    run(shell, "%nl2sql -o second And in 2023?")
    outcome, out, _, _ = run(shell, "%nl2sql_history")
    assert outcome.success
    assert "How many orders were placed in 2024?" in out and "↳ 1 And in 2023?" in out
    assert not MACHINE_SPECIFIC.search(out)
    _, out, _, _ = run(shell, "%nl2sql_history 2")
    assert "follow-up of run 1" in out and "15,445" in out
    _, out, _, _ = run(shell, "%nl2sql_history --rerun 1")
    assert "17,924" in out
    _, out, _, _ = run(shell, "%nl2sql_history")
    assert "   3  success" in out


@pytest.mark.parametrize(("line", "message"), [
    ("%nl2sql_history 99", "no run 99"),
    ("%nl2sql_history two", "usage: %nl2sql_history"),
    ("%nl2sql_history -s", "-s needs a variable name"),
])
def test_history_magic_errors_are_one_line(shell, line, message):
    with pytest.raises(UsageError, match=message):
        shell.run_cell(line, store_history=False).raise_error()
