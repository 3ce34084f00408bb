"""The warm-up `%load_ext nl2sql` starts: same answers, off with NL2SQL_WARMUP=0, and the first
run shows "Loading nl2sql" while the pipeline still loads."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from nl2sql.notebook import warmup

# A fresh process: %load_ext, the first question at once (the run waits for the warm-up), then
# what the warm-up did and the rows.
_NOTEBOOK = """
import json, sys
from IPython.core.interactiveshell import InteractiveShell
from traitlets.config import Config
config = Config()
config.HistoryManager.hist_file = ":memory:"
shell = InteractiveShell.instance(config=config)
shell.run_line_magic("load_ext", "nl2sql")
from nl2sql.notebook import warmup
started = warmup.running() or "nl2sql.pipeline.graph" in sys.modules
shell.run_line_magic("config", f"NL2SQL.config_file = {sys.argv[1]!r}")
from nl2sql.progress import listening
seen = []
with listening(seen.append):
    result = shell.run_line_magic("nl2sql", sys.argv[2])
print(json.dumps({"started": started, "failure": repr(warmup.failure()), "status": result.status,
                  "rows": [list(r.values()) for r in result.table().to_pylist()], "steps": [e["text"] for e in seen]}))
"""


def _project(tmp_path: Path) -> Path:
    db = tmp_path / "freight.sqlite"
    with sqlite3.connect(db) as con:
        con.execute('CREATE TABLE shipment_log ("shipmentId" INTEGER, "weightKg" REAL, dest_city TEXT)')
        con.executemany("INSERT INTO shipment_log VALUES (?, ?, ?)",
                        [(1, 2.5, "Lyon"), (2, 7.0, "Porto"), (3, 11.0, "Lyon")])
    config = tmp_path / "nl2sql.toml"
    config.write_text(f'[sources.freight]\npath = "{db}"\n[settings]\nproject_dir = "{tmp_path / "p"}"\n',
                      encoding="utf-8")
    return config


def _first_run(tmp_path: Path, switch: str) -> dict[str, object]:
    tmp_path.mkdir()
    config = _project(tmp_path)
    env = {**os.environ, warmup.ENV: switch}
    done = subprocess.run([sys.executable, "-c", _NOTEBOOK, str(config),
                           "How many shipment logs have a weight kg above 5?"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    out: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def test_the_warm_up_leaves_the_answer_unchanged_and_is_shown_as_a_step(tmp_path):
    on, off = _first_run(tmp_path / "on", "1"), _first_run(tmp_path / "off", "0")
    assert on["started"] is True and off["started"] is False
    assert on["failure"] == "None"
    assert on["status"] == off["status"] == "success"
    assert on["rows"] == off["rows"] == [[2]]
    assert "Loading nl2sql" in on["steps"]  # shown while the first run waits for the warm-up
    assert "Loading nl2sql" in off["steps"]  # and while it loads the modules itself


@pytest.mark.parametrize("value", ["0", "false", "No", " off "])
def test_the_warm_up_is_turned_off_by_the_environment(monkeypatch, value):
    monkeypatch.setenv(warmup.ENV, value)
    assert not warmup.enabled()
    assert warmup.start() is False
    assert not warmup.running()


def test_the_warm_up_is_on_unless_turned_off(monkeypatch):
    monkeypatch.delenv(warmup.ENV, raising=False)
    assert warmup.enabled()
    monkeypatch.setenv(warmup.ENV, "1")
    assert warmup.enabled()


def test_a_failed_warm_up_is_kept_silently_for_the_run_that_redoes_the_work(tmp_path):
    code = ("from nl2sql.notebook import warmup\n"
            "def broken():\n    raise ImportError('no module named langgraph')\n"
            "warmup.warm = broken\n"
            "assert warmup.start() and not warmup.start()\n"  # once per process
            "warmup.wait()\n"
            "assert isinstance(warmup.failure(), ImportError) and not warmup.running()\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, warmup.ENV: "1"}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == done.stderr == ""  # nothing shown in the notebook
