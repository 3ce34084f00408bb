"""Helpers shared by the notebook tests."""

from __future__ import annotations

import re

TWO_SOURCES = "For each region, compare the number of orders with the number of support tickets"
HELD = "Top 5 customers by number of orders"

# what must never appear in a saved output: paths, artifact URIs, timestamps, uuids, object ids,
# timings, LangGraph's task namespaces
MACHINE_SPECIFIC = re.compile(
    r"/tmp/|/work/|/home/|/root/|file://|\d{4}-\d\d-\d\dT\d\d:|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}"
    r"|0x[0-9a-f]{6,}|\d+\.\d+ ?s\b|sql_agent:"
)


def run(shell, source: str):
    """Run a cell; (ExecutionResult, what it showed as text, stderr, rich outputs).

    The shown text is stdout followed by the text/plain of every displayed object, which is
    what a terminal IPython prints."""
    from IPython.utils.capture import capture_output

    with capture_output() as cap:
        outcome = shell.run_cell(source)
    shown = cap.stdout + "".join(o.data.get("text/plain", "") + "\n" for o in cap.outputs)
    return outcome, shown, cap.stderr, cap.outputs
