"""First-run progress: the slow steps of a cold session are reported in order, a warm run
reports none, and the CLI's spinner writes control codes only to a terminal."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import nl2sql
from nl2sql.progress import PREPARE, PREPARED


@pytest.fixture
def sources(tmp_path: Path) -> dict[str, str]:
    """Two small sources in two naming styles: a DuckDB shop and a SQLite help desk."""
    shop = tmp_path / "shop.duckdb"
    con = duckdb.connect(str(shop))
    con.execute('CREATE TABLE "PurchaseOrders" ("OrderId" INTEGER, "OrderedOn" DATE, "Total" DOUBLE)')
    con.execute("INSERT INTO \"PurchaseOrders\" VALUES (1, DATE '2024-02-01', 10.0),"
                " (2, DATE '2024-03-05', 12.5), (3, DATE '2023-07-09', 4.0)")
    con.close()
    desk = tmp_path / "desk.sqlite"
    con2 = sqlite3.connect(desk)
    con2.executescript("CREATE TABLE help_tickets (ticket_id INTEGER PRIMARY KEY, urgency TEXT);"
                       "INSERT INTO help_tickets VALUES (1, 'high'), (2, 'low'), (3, 'high');")
    con2.commit()
    con2.close()
    return {"shop": f"duckdb:///{shop}", "desk": f"sqlite:///{desk}"}


def _steps(events: list[dict]) -> list[tuple[str, str]]:
    return [(e["event"], e["text"]) for e in events if e["event"] in (PREPARE, PREPARED)]


def test_a_cold_session_reports_its_steps_in_order_and_a_warm_run_none(sources, tmp_path):
    opened: list[dict] = []
    session = nl2sql.connect(sources=sources, settings={"project_dir": tmp_path / "project"},
                             on_progress=opened.append)
    try:
        assert _steps(opened) == [(PREPARE, "Opening datasource shop"), (PREPARED, "Opening datasource shop"),
                                  (PREPARE, "Opening datasource desk"), (PREPARED, "Opening datasource desk")]
        cold: list[dict] = []
        result = session.ask("How many help tickets are there per urgency?", on_event=cold.append)
        assert result.status == "success"
        steps = _steps(cold)
        begun = [text for kind, text in steps if kind == PREPARE]
        assert begun[0] == "Loading the pipeline"  # before any node runs
        assert cold[0]["event"] == PREPARE and cold.index(
            next(e for e in cold if e["event"] == "start")) > 1
        assert "Loading the offline engine" in begun
        assert {"Reading the schema of shop", "Reading the schema of desk"} <= set(begun)
        assert len(begun) == len(set(begun))  # each piece of work once
        # every step ends after it begins, and steps nest (a stack, innermost ends first)
        stack: list[str] = []
        for kind, text in steps:
            if kind == PREPARE:
                stack.append(text)
            else:
                assert stack.pop() == text
        assert stack == []
        assert all(e["seconds"] >= 0 for e in cold if e["event"] == PREPARED)
        warm: list[dict] = []
        again = session.ask("How many purchase orders are there?", on_event=warm.append)
        assert again.status == "success"
        assert _steps(warm) == []  # nothing is built twice
        assert any(e["event"] == "start" for e in warm)  # the nodes still report
    finally:
        session.close()


def test_the_demo_is_built_with_a_step_only_when_it_is_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("NL2SQL_DEMO_DIR", str(tmp_path / "demo"))
    first: list[dict] = []
    with nl2sql.connect("demo", settings={"project_dir": tmp_path / "p"}, on_progress=first.append):
        pass
    assert _steps(first)[:2] == [(PREPARE, "Building the demo data (once per machine)"),
                                 (PREPARED, "Building the demo data (once per machine)")]
    second: list[dict] = []
    with nl2sql.connect("demo", settings={"project_dir": tmp_path / "p"}, on_progress=second.append):
        pass
    assert [text for kind, text in _steps(second) if kind == PREPARE] == [
        "Opening datasource warehouse", "Opening datasource crm"]


def test_a_broken_listener_never_breaks_the_run(sources, tmp_path):
    def broken(event: dict) -> None:
        if event["event"] in (PREPARE, PREPARED):
            raise RuntimeError("display gone")

    with nl2sql.connect(sources=sources, settings={"project_dir": tmp_path / "p"},
                        on_progress=broken) as session:
        assert session.ask("How many help tickets are there?", on_event=broken).status == "success"


def _cli(tmp_path: Path, sources: dict[str, str], *, tty: bool) -> tuple[int, str, str]:
    """`nl2sql ask` in a fresh process and folder (a cold run); stderr a terminal or a pipe."""
    config = tmp_path / "nl2sql.toml"
    config.write_text("".join(f'[sources.{k}]\nurl = "{v}"\n' for k, v in sources.items()),
                      encoding="utf-8")
    command = [sys.executable, "-m", "nl2sql.cli.main", "ask", "How many help tickets are there?"]
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "100"}
    if not tty:
        proc = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=180, env=env)
        return proc.returncode, proc.stdout, proc.stderr
    import pty

    leader, follower = pty.openpty()
    proc2 = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=follower, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed: the process is done with it
            break
        if not chunk:
            break
        chunks.append(chunk)
    out = proc2.stdout.read().decode() if proc2.stdout else ""
    code = proc2.wait(timeout=180)
    os.close(leader)
    return code, out, b"".join(chunks).decode(errors="replace")


def test_the_cli_shows_a_spinner_on_a_terminal_only(sources, tmp_path):
    piped_dir, tty_dir = tmp_path / "piped", tmp_path / "tty"
    piped_dir.mkdir()
    tty_dir.mkdir()
    code, out, err = _cli(piped_dir, sources, tty=False)
    assert code == 0 and "success" in out
    assert err == ""  # no spinner, no control codes, nothing at all
    assert "\x1b" not in out
    code, out, err = _cli(tty_dir, sources, tty=True)
    assert code == 0 and "success" in out
    assert "Loading the offline engine…" in err  # the slow step, named while it runs
    # (a fast step, such as reading a small schema, may end between two frames of the spinner:
    # which of them are drawn depends on the machine's speed, so only the slow one is asserted)
    assert "\x1b[?25l" in err  # rich hid the cursor: a live spinner drew there
