"""The committed tutorials: executed, prose included, widget state stripped, nothing
machine-specific in any output (nbval compares the outputs themselves: `make test`)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from tests.notebook.helpers import MACHINE_SPECIFIC

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def test_every_tutorial_is_there():
    assert [p.name[:2] for p in NOTEBOOKS] == ["01", "02", "03", "04", "05", "06", "07", "08", "09"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_committed_executed_and_clean(path):
    notebook = nbformat.read(path, as_version=4)
    assert "widgets" not in notebook.metadata  # widget state changes on every run
    code = [c for c in notebook.cells if c.cell_type == "code"]
    prose = [c for c in notebook.cells if c.cell_type == "markdown"]
    assert len(prose) >= 3, "a tutorial explains itself"
    assert all(c.execution_count is not None for c in code), "commit executed notebooks"
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1)), "run top to bottom"
    for cell in code:
        assert "execution" not in cell.metadata  # timings
        for output in cell.outputs:
            assert output.output_type != "error", f"{path.name}: {cell.source[:40]!r} raised"
            # widget views are dropped (nothing can render them once the kernel is gone): the
            # static HTML is what a reader sees
            assert "application/vnd.jupyter.widget-view+json" not in output.get("data", {})
            for text in _texts(output):
                assert MACHINE_SPECIFIC.findall(text) == [], f"{path.name}: {cell.source[:40]!r}"


def _texts(output) -> list[str]:
    if output.output_type == "stream":
        return [output.text]
    data = output.get("data", {})
    return [data[k] for k in ("text/plain", "text/html") if k in data]
