"""In a kernel, a refused run's error line is part of its widget, so the cell shows no stale
error once a button (Teach N) answers the question."""

from __future__ import annotations

import nl2sql
from tests.notebook.helpers import run
from tests.semantic.test_teach import JOIN_QUESTION, _ledger


def _view(outputs):
    from ipywidgets.widgets.widget import _instances

    ids = [o.data["application/vnd.jupyter.widget-view+json"]["model_id"] for o in outputs
           if "application/vnd.jupyter.widget-view+json" in o.data]
    return _instances[ids[-1]]


def test_a_taught_rerun_clears_the_refusal_line_of_the_cell(shell, tmp_path, monkeypatch):
    monkeypatch.setattr(shell, "kernel", object(), raising=False)  # widgets render here
    layer = tmp_path / "layer.yaml"
    layer.write_text("sources: {}\n")
    session = nl2sql.connect(sources={"books": str(_ledger(tmp_path / "ledger.sqlite"))},
                             settings={"project_dir": tmp_path / "project"}, semantic=layer)
    shell.user_ns["_ledger_session"] = session
    try:
        outcome, _, err, outputs = run(shell, f"%nl2sql -s _ledger_session {JOIN_QUESTION}")
        assert outcome.success and err == ""  # nothing on stderr: it would outlive the answer
        view = _view(outputs)
        assert view.status == "error"
        assert view.problem.value.startswith('<p style="color:#c62828">nl2sql: error: ')
        assert view._repr_mimebundle_()["text/plain"].startswith("nl2sql: error: ")  # saved notebooks
        view.actions.teach_buttons[0].click()
        assert view.status == "success", view.notice.value
        assert view.problem.value == ""
        assert not view._repr_mimebundle_()["text/plain"].startswith("nl2sql:")
    finally:
        del shell.user_ns["_ledger_session"]
        session.close()


def test_without_widgets_the_refusal_line_goes_to_stderr(shell, tmp_path):
    session = nl2sql.connect(sources={"books": str(_ledger(tmp_path / "ledger.sqlite"))},
                             settings={"project_dir": tmp_path / "project"})
    shell.user_ns["_ledger_session"] = session
    try:
        _, _, err, _ = run(shell, f"%nl2sql -s _ledger_session {JOIN_QUESTION}")
        assert err.startswith("nl2sql: error: ") and len(err.strip().splitlines()) == 1
    finally:
        del shell.user_ns["_ledger_session"]
        session.close()
