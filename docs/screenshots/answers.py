"""Screenshots of three answers as a reader first sees them: a list, a compare of two sources
and a time series (answer-list.png, answer-compare.png, answer-time-series.png).

    .venv/bin/python docs/screenshots/answers.py

Like `capture.py` (whose JupyterLab start-up it reuses): a temporary folder, JupyterLab on a
free 127.0.0.1 port, one `%%nl2sql` cell per question run in Debian's headless Chromium
(Playwright), and each cell's output saved beside this file with its Answer tab open.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from capture import CHROMIUM_ARGS, HERE, _start_lab

ANSWERS = {
    "answer-list.png": "List the customers in California",
    "answer-compare.png": "For each region, compare the number of orders with the number of support tickets",
    "answer-time-series.png": "How many orders were placed per month in 2024?",
}


def _notebook(path: Path) -> None:
    cells = ["%load_ext nl2sql\nimport tempfile\nworkdir = tempfile.TemporaryDirectory()\n"
             "%config NL2SQL.project_dir = workdir.name",
             *(f"%%nl2sql\n{question}" for question in ANSWERS.values())]
    path.write_text(json.dumps({
        "cells": [{"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None}
                  for c in cells],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4, "nbformat_minor": 4,
    }))


def _capture(url: str) -> list[Path]:
    from playwright.sync_api import sync_playwright

    saved = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1180, "height": 1400})
        page.goto(url)
        page.wait_for_function("() => window.jupyterapp?.shell.currentWidget?.sessionContext?.session"
                               "?.kernel?.status === 'idle'", timeout=60_000)
        page.evaluate("window.jupyterapp.shell.collapseLeft()")  # the widget gets the page's width
        page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        for i, name in enumerate(ANSWERS, start=1):
            output = page.locator(".jp-CodeCell").nth(i).locator(".jp-OutputArea-output").last
            output.get_by_role("tab", name="Answer").wait_for(timeout=120_000)
            output.scroll_into_view_if_needed()
            page.wait_for_timeout(500)
            path = HERE / name
            output.screenshot(path=str(path))
            saved.append(path)
        browser.close()
    return saved


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="nl2sql-answers-") as tmp:
        folder = Path(tmp)
        _notebook(folder / "answers.ipynb")
        server, url = _start_lab(folder, "answers.ipynb")
        try:
            for path in _capture(url):
                print(f"{path.name}: {path.stat().st_size // 1024} KiB")
        finally:
            server.terminate()
            server.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
