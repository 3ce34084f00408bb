"""Screenshots of the run widget's tabs for a two-source question, as the README shows them.

    .venv/bin/python docs/screenshots/capture.py

Starts JupyterLab on a free 127.0.0.1 port in a temporary folder, runs one `%%nl2sql` cell in
Debian's headless Chromium (Playwright) and saves one PNG per tab beside this file
(widget-answer.png, widget-plan.png, ...). Needs the dev extra, playwright and `chromium`.
`answers.py` beside it captures a list, a compare and a time series answer the same way.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUESTION = "For each region, compare the number of orders with the number of support tickets"
TABS = ("Answer", "Plan", "SQL", "Sub-queries", "Reasoning", "Trace")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def _notebook(path: Path) -> None:
    cells = ["%load_ext nl2sql\nimport tempfile\nworkdir = tempfile.TemporaryDirectory()\n"
             "%config NL2SQL.project_dir = workdir.name",
             f"%%nl2sql\n{QUESTION}"]
    path.write_text(json.dumps({
        "cells": [{"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None}
                  for c in cells],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4, "nbformat_minor": 4,
    }))


def _start_lab(folder: Path, notebook: str = "tabs.ipynb") -> tuple[subprocess.Popen, str]:
    """JupyterLab serving `folder` on a free loopback port; (server, URL of `notebook`)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    token = secrets.token_hex(16)
    settings = folder / "settings" / "@jupyterlab"
    for plugin, text in (("notebook-extension/tracker", '{"windowingMode": "none"}'),
                         ("apputils-extension/notification", '{"fetchNews": "false"}')):
        (settings / f"{plugin}.jupyterlab-settings").parent.mkdir(parents=True, exist_ok=True)
        (settings / f"{plugin}.jupyterlab-settings").write_text(text)
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(folder / "config"),
           "JUPYTER_RUNTIME_DIR": str(folder / "runtime"), "JUPYTER_DATA_DIR": str(folder / "data")}
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={folder}", "--allow-root",
         f"--LabApp.user_settings_dir={folder / 'settings'}", f"--LabApp.workspaces_dir={folder / 'ws'}",
         "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=", "--LabApp.extension_manager=readonly",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2):
                return server, f"{base}/lab/tree/{notebook}?token={token}"
        except OSError:
            time.sleep(0.3)
    server.terminate()
    raise RuntimeError("jupyter lab did not start")


def _capture(url: str) -> list[Path]:
    from playwright.sync_api import sync_playwright

    saved = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 960, "height": 1300})
        page.goto(url)
        page.wait_for_function("() => window.jupyterapp?.shell.currentWidget?.sessionContext?.session"
                               "?.kernel?.status === 'idle'", timeout=60_000)
        page.evaluate("window.jupyterapp.shell.collapseLeft()")  # the widget gets the page's width
        page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        output = page.locator(".jp-CodeCell").nth(1).locator(".jp-OutputArea-output").last
        output.get_by_role("tab", name="Trace").wait_for(timeout=60_000)
        for title in TABS:
            output.get_by_role("tab", name=title).click()
            _prepare(page, output, title)
            path = HERE / f"widget-{title.lower()}.png"
            output.screenshot(path=str(path))
            saved.append(path)
        browser.close()
    return saved


def _prepare(page, output, title: str) -> None:
    """Open what a reader would open first on a tab (the aggregator's step, a reasoning pane)."""
    if title == "Trace":
        output.locator("select[size]").select_option(label="aggregator")
    elif title == "Reasoning":
        output.locator("span").filter(has_text=re.compile(r"^decomposer$")).first.click()
    page.wait_for_timeout(300)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="nl2sql-screens-") as tmp:
        folder = Path(tmp)
        _notebook(folder / "tabs.ipynb")
        server, url = _start_lab(folder)
        try:
            for path in _capture(url):
                print(f"{path.name}: {path.stat().st_size // 1024} KiB")
        finally:
            server.terminate()
            server.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
