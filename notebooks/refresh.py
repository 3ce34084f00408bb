"""Run the tutorial notebooks in place and save their outputs, ready to commit.

    .venv/bin/python notebooks/refresh.py            # every notebook
    .venv/bin/python notebooks/refresh.py 02 03      # the ones whose names start so

Each notebook runs in a fresh kernel from this folder (as `pytest --nbval` runs it). Saved
without what changes on every run and that nbval ignores anyway: widget state, execution timing
metadata and the widget views (random model ids that nothing could render once the kernel is
gone). A widget's output keeps its static HTML and text, which is what GitHub, nbviewer and a
freshly opened notebook show; a refresh that changes nothing leaves no diff. Run it after
changing behaviour a notebook shows, then `make test` checks the outputs again.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def refresh(path: Path, timeout: int = 600) -> None:
    """Execute one notebook in place and strip its widget state."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=timeout, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    notebook.metadata.pop("widgets", None)
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
        if "nbval-ignore-output" in cell.metadata.get("tags", []):
            # what such a cell writes to stderr (a JVM's start-up lines) differs on every run and
            # names the machine: the reader sees it live, the committed notebook keeps the rest
            cell.outputs = [o for o in cell.get("outputs", [])
                            if not (o.output_type == "stream" and o.name == "stderr")]
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(WIDGET_VIEW, None)
    nbformat.write(notebook, path)


def main(argv: list[str]) -> int:
    paths = sorted(HERE.glob("*.ipynb"))
    if argv:
        paths = [p for p in paths if any(p.name.startswith(prefix) for prefix in argv)]
    for path in paths:
        print(f"running {path.name}", flush=True)
        refresh(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
