"""The run widget in a real browser: JupyterLab on 127.0.0.1, Debian's headless Chromium driven by
Playwright. Opens notebook 02, runs it, clicks the rendered Approve button and checks that the
answer's table appears; in a notebook of its own, "Insert as cell" and "Download CSV" give the
answer's rows; a question refused for a missing join is taught through its "Teach 1" button and
answered. Screenshots are saved under test-output/browser/.

Parallel-safe: its own port, root folder, settings, workspaces and runtime folders. Every wait is
for a state (server answering, kernel idle, button rendered, table shown), bounded generously so
that a fully loaded 2-core machine passes: 120 s for the server, the kernel and the notebook run,
60 s for the click to show the table.
"""

from __future__ import annotations

import os
import re
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO / "notebooks" / "02_approve_and_pin.ipynb"
CHROMIUM = Path("/usr/bin/chromium")
OUTPUT = REPO / "test-output" / "browser"
#: Seconds for a state to be reached (server up, kernel idle, notebook run); the click's table.
WAIT_S = 120
CLICK_WAIT_S = 60
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (required in CI)", pytrace=False)
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def jupyterlab(tmp_path):
    """A JupyterLab server with its own root and config folders: (base URL, token)."""
    if not CHROMIUM.exists():
        _unavailable("the browser test needs Debian's chromium (apt-get install chromium)")
    pytest.importorskip("jupyterlab", reason="the browser test needs jupyterlab (the dev extra)")
    root = tmp_path / "root"
    root.mkdir()
    _copy_without_clean_up(NOTEBOOK, root / NOTEBOOK.name)
    _user_settings(tmp_path / "settings")
    port, token = _free_port(), secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), "JUPYTER_DATA_DIR": str(tmp_path / "data")}
    log = (tmp_path / "jupyterlab.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1",
         "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
         f"--LabApp.user_settings_dir={tmp_path / 'settings'}", f"--LabApp.workspaces_dir={tmp_path / 'ws'}",
         "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
         "--LabApp.extension_manager=readonly", "--allow-root"],  # no registry look-ups; CI runs as root
        cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(f"{base}/api/status?token={token}", server, timeout=WAIT_S,
                       log=tmp_path / "jupyterlab.log")
        yield base, token
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def _copy_without_clean_up(source: Path, target: Path) -> None:
    """The notebook without its closing clean-up cells: the session must still be open when the
    test clicks Approve, after the whole notebook ran."""
    import nbformat

    notebook = nbformat.read(source, as_version=4)
    cut = next(i for i, c in enumerate(notebook.cells) if c.source.startswith("## Clean up"))
    notebook.cells = notebook.cells[:cut]
    nbformat.write(notebook, target)


def _user_settings(folder: Path) -> None:
    """Every cell in the DOM (found without scrolling); no news prompt over the notebook."""
    for plugin, text in (("notebook-extension/tracker", '{"windowingMode": "none"}'),
                         ("apputils-extension/notification", '{"fetchNews": "false"}')):
        path = folder / "@jupyterlab" / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _wait_until_up(url: str, server: subprocess.Popen, timeout: float, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            tail = log.read_text(errors="replace").strip().splitlines()[-3:]
            pytest.fail(f"jupyter lab exited with {server.returncode}: {' | '.join(tail)}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    pytest.fail(f"jupyter lab did not answer within {timeout:.0f}s")


def _open_and_run_all(page, base: str, token: str, name: str) -> None:
    """Open notebook `name` in JupyterLab and run all its cells once its kernel says idle."""
    page.goto(f"{base}/lab/tree/{name}?token={token}", timeout=WAIT_S * 1000)
    page.wait_for_function("() => window.jupyterapp?.shell?.currentWidget?.sessionContext"
                           "?.session?.kernel?.status === 'idle'", timeout=WAIT_S * 1000)
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")


def test_approve_button_shows_the_answer_table(jupyterlab):
    sync_api = pytest.importorskip("playwright.sync_api", reason="the browser test needs playwright")
    base, token = jupyterlab
    OUTPUT.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            _open_and_run_all(page, base, token, NOTEBOOK.name)
            held = page.locator(".jp-CodeCell").filter(has_text="%%nl2sql -s session -o held")
            approve = held.get_by_role("button", name="Approve")
            approve.wait_for(timeout=WAIT_S * 1000)
            sync_api.expect(held.get_by_text("Waiting for approval")).to_be_visible(
                timeout=CLICK_WAIT_S * 1000)
            approve.click()
            table = held.locator("table.nl2sql-table")
            sync_api.expect(table).to_be_visible(timeout=CLICK_WAIT_S * 1000)
            sync_api.expect(table).to_contain_text("Janet", timeout=CLICK_WAIT_S * 1000)
            sync_api.expect(held.get_by_text("Approved: ran again on the approved plan.")).to_be_visible(
                timeout=CLICK_WAIT_S * 1000)
            held.screenshot(path=str(OUTPUT / "approve.png"))
        finally:
            browser.close()


EXPORT_QUESTION = "How many orders were placed per month in 2024?"


def _export_notebook(path: Path, project: Path) -> None:
    """A notebook of its own: load the extension, ask one question with several rows."""
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(f"%load_ext nl2sql\n%config NL2SQL.project_dir = {str(project)!r}"),
                      nbformat.v4.new_code_cell(f"%nl2sql {EXPORT_QUESTION}")]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, path)


def test_insert_as_cell_and_download_csv(jupyterlab, tmp_path):
    """"Insert as cell" adds a cell below the answer that runs its SQL and shows the rows;
    "Download CSV" saves a file holding the same rows; "Copy SQL" puts the SQL on the clipboard."""
    import io

    import pandas as pd

    import nl2sql

    sync_api = pytest.importorskip("playwright.sync_api", reason="the browser test needs playwright")
    base, token = jupyterlab
    name = "exports.ipynb"
    _export_notebook(tmp_path / "root" / name, tmp_path / "project")
    with nl2sql.connect("demo", settings={"project_dir": tmp_path / "expected"}) as session:
        answer = session.ask(EXPORT_QUESTION)
        expected, sql = answer.to_pandas(), answer.sql
    assert len(expected) > 1
    OUTPUT.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS,
                                    downloads_path=str(tmp_path / "downloads"))
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 1000}, accept_downloads=True)
            context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
            page = context.new_page()
            _open_and_run_all(page, base, token, name)
            asked = page.locator(".jp-CodeCell").filter(has_text=f"%nl2sql {EXPORT_QUESTION}")
            insert = asked.get_by_role("button", name="Insert as cell")
            insert.wait_for(timeout=WAIT_S * 1000)
            asked.screenshot(path=str(OUTPUT / "export-buttons.png"))
            # Download CSV: a plain link; the file holds the answer's rows
            with page.expect_download(timeout=CLICK_WAIT_S * 1000) as download:
                asked.get_by_role("link", name="Download CSV").click()
            saved = tmp_path / "downloads" / download.value.suggested_filename
            download.value.save_as(saved)
            assert saved.name.endswith(".csv")
            rows = pd.read_csv(io.BytesIO(saved.read_bytes()))
            assert list(rows.columns) == list(expected.columns)
            assert rows.astype(str).values.tolist() == expected.astype(str).values.tolist()
            # Copy SQL: the clipboard holds the run's SQL
            asked.get_by_role("button", name="Copy SQL").click()
            sync_api.expect(asked.get_by_role("button", name="Copied")).to_be_visible(
                timeout=CLICK_WAIT_S * 1000)
            assert page.evaluate("navigator.clipboard.readText()") == sql
            # Insert as cell: a new cell right below, holding code that runs the SQL
            cells = page.locator(".jp-Notebook .jp-Cell")
            before = cells.count()
            insert.click()
            sync_api.expect(cells).to_have_count(before + 1, timeout=CLICK_WAIT_S * 1000)
            inserted = page.locator(".jp-Notebook .jp-Cell").nth(2)
            sync_api.expect(inserted).to_contain_text("magic_session().sql(", timeout=CLICK_WAIT_S * 1000)
            sync_api.expect(inserted).to_contain_text("SELECT", timeout=CLICK_WAIT_S * 1000)
            inserted.locator(".cm-content").click()
            page.keyboard.press("Shift+Enter")
            shown = inserted.locator(".jp-OutputArea-output table")
            sync_api.expect(shown).to_be_visible(timeout=WAIT_S * 1000)
            for value in expected.iloc[:, -1]:
                sync_api.expect(shown).to_contain_text(str(value), timeout=CLICK_WAIT_S * 1000)
            assert shown.locator("tbody tr").count() == len(expected)
            page.screenshot(path=str(OUTPUT / "exports.png"))
        finally:
            browser.close()


def _conversation_notebook(path: Path) -> None:
    """A question and two follow-ups (the year, then the grouping) through the magic."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    cells = ["%load_ext nl2sql\n%config NL2SQL.project_dir = 'project'",  # in the server's root
             "%nl2sql How many orders were placed in 2024?",
             "%nl2sql And in 2023?",
             "%nl2sql by region instead"]
    nbformat.write(new_notebook(cells=[new_code_cell(c) for c in cells],
                                metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                         "language": "python"}}), path)


def test_follow_ups_answer_in_the_thread(jupyterlab, tmp_path):
    """A question, a follow-up changing its year and one changing its grouping: each answered
    with the right rows, each showing the run it follows."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="the browser test needs playwright")
    import nl2sql

    # the expected rows straight from the warehouse, through the same adapter the kernel uses (a
    # second DuckDB connection with other settings would be refused in this process)
    with nl2sql.connect("demo", settings={"project_dir": tmp_path / "expected"}) as session:
        per_region = list(session.sql(
            "warehouse",
            "SELECT r.region_name, COUNT(*) AS n FROM orders o JOIN customers c USING (customer_id) "
            "JOIN regions r ON c.region_id = r.region_id WHERE year(o.order_date) = 2023 "
            "GROUP BY 1 ORDER BY 1").itertuples(index=False, name=None))
    in_2023 = sum(n for _, n in per_region)
    base, token = jupyterlab
    name = "conversation.ipynb"
    _conversation_notebook(tmp_path / "root" / name)
    OUTPUT.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1400})
            _open_and_run_all(page, base, token, name)
            cells = page.locator(".jp-CodeCell")
            by_year = cells.filter(has_text="%nl2sql And in 2023?")
            by_region = cells.filter(has_text="%nl2sql by region instead")
            expect = sync_api.expect
            thread = by_region.locator(".nl2sql-thread")
            expect(thread).to_be_visible(timeout=WAIT_S * 1000)
            expect(thread).to_contain_text("follow-up of run 2: And in 2023?")
            expect(by_year.locator(".nl2sql-thread")).to_contain_text(
                "follow-up of run 1: How many orders were placed in 2024? — year 2024 → 2023")
            year_table = by_year.locator("table.nl2sql-table")
            expect(year_table.locator("tbody td").first).to_have_text(_number(in_2023),
                                                                     timeout=CLICK_WAIT_S * 1000)
            region_table = by_region.locator("table.nl2sql-table")
            expect(region_table).to_be_visible(timeout=CLICK_WAIT_S * 1000)
            rows = region_table.locator("tbody tr")
            expect(rows).to_have_count(len(per_region))
            for i, (region, count) in enumerate(per_region):
                expect(rows.nth(i).locator("td")).to_have_text([region, _number(count)])
            page.screenshot(path=str(OUTPUT / "conversation.png"), full_page=True)
        finally:
            browser.close()


def _number(n: int) -> re.Pattern[str]:
    """A count as a table cell shows it, with or without thousands separators."""
    return re.compile(rf"^\s*{n:,}\s*$".replace(",", ",?"))


def _teach_notebook(path: Path, db: Path, project: Path, question: str) -> None:
    """A session on a SQLite file without declared keys, and a question it refuses for a
    missing join: the widget offers the join as "Teach 1"."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    cells = ["%load_ext nl2sql",
             f"import nl2sql\nsession = nl2sql.connect(sources={{'books': {str(db)!r}}}, "
             f"settings={{'project_dir': {str(project)!r}}})",
             f"%%nl2sql -s session\n{question}"]
    nbformat.write(new_notebook(cells=[new_code_cell(c) for c in cells],
                                metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                         "language": "python"}}), path)


def test_teach_button_writes_the_join_and_the_rerun_answers(jupyterlab, tmp_path):
    """A question refused for a missing join: its "Teach 1" button shows the diff it would write;
    a click writes the relationship into the project's layer file and the re-run shows the
    answer's rows (those of the join run directly on the database)."""
    import sqlite3

    from tests.semantic.test_teach import JOIN_QUESTION, _ledger

    sync_api = pytest.importorskip("playwright.sync_api", reason="the browser test needs playwright")
    base, token = jupyterlab
    db, project = _ledger(tmp_path / "ledger.sqlite"), tmp_path / "project"
    with sqlite3.connect(db) as con:
        # branches of different sizes, so each row's count says it is that branch's
        con.executemany("INSERT INTO ledger_entries VALUES (?, ?, ?, ?)",
                        [(100 + i, "AC-01" if i < 5 else "AC-03", 1.0, "2025-04-01") for i in range(7)])
        expected = con.execute("SELECT a.Branch, COUNT(*) FROM ledger_entries e JOIN Accounts a "
                               "ON e.payer = a.AcctCode GROUP BY a.Branch ORDER BY COUNT(*) DESC").fetchall()
    assert len(expected) > 1 and len({n for _, n in expected}) == len(expected)
    name = "teach.ipynb"
    _teach_notebook(tmp_path / "root" / name, db, project, JOIN_QUESTION)
    OUTPUT.mkdir(parents=True, exist_ok=True)
    expect = sync_api.expect
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1200})
            _open_and_run_all(page, base, token, name)
            asked = page.locator(".jp-CodeCell").filter(has_text=JOIN_QUESTION)
            teach = asked.get_by_role("button", name="Teach 1")
            teach.wait_for(timeout=WAIT_S * 1000)
            # the diff the click would write, shown before it
            expect(asked).to_contain_text("+    - from: ledger_entries.payer", timeout=CLICK_WAIT_S * 1000)
            expect(asked).to_contain_text("join `ledger_entries.payer` = `Accounts.AcctCode`")
            assert not (project / "semantic.yaml").exists()
            asked.screenshot(path=str(OUTPUT / "teach-offered.png"))
            teach.click()
            expect(asked.get_by_text("Wrote the suggestion into the semantic layer file and asked again.")
                   ).to_be_visible(timeout=WAIT_S * 1000)
            table = asked.locator("table.nl2sql-table")
            expect(table).to_be_visible(timeout=CLICK_WAIT_S * 1000)
            rows = table.locator("tbody tr")
            expect(rows).to_have_count(len(expected), timeout=CLICK_WAIT_S * 1000)
            for i, (branch, count) in enumerate(expected):
                expect(rows.nth(i).locator("td")).to_have_text([branch, _number(count)])
            expect(asked.get_by_role("button", name="Teach 1")).to_have_count(0)
            asked.screenshot(path=str(OUTPUT / "teach-answered.png"))
        finally:
            browser.close()
    written = (project / "semantic.yaml").read_text(encoding="utf-8")
    assert "from: ledger_entries.payer" in written and "to: Accounts.AcctCode" in written
