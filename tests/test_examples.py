"""The examples stay runnable and the example config stays valid."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from nl2sql.settings import load_config_file

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_python_api_example_runs(tmp_path):
    done = subprocess.run([sys.executable, str(EXAMPLES / "python_api.py")], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "status: success" in done.stdout and "planned, not executed: SELECT" in done.stdout


def test_example_config_is_valid(monkeypatch):
    monkeypatch.setenv("FINANCE_DB_PASSWORD", "s3cret")
    config = load_config_file(EXAMPLES / "nl2sql.toml")
    assert set(config.sources) == {"warehouse", "crm", "finance"}
    assert "s3cret" in config.sources["finance"].url  # expanded for the driver, never printed
