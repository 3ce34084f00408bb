"""Helpers shared by the notebook tests."""

from __future__ import annotations

TWO_SOURCES = "For each region, compare the number of orders with the number of support tickets"
HELD = "Top 5 customers by number of orders"


def run(shell, source: str):
    """Run a cell; (ExecutionResult, what it showed as text, stderr, rich outputs).

    The shown text is stdout followed by the text/plain of every displayed object, which is
    what a terminal IPython prints."""
    from IPython.utils.capture import capture_output

    with capture_output() as cap:
        outcome = shell.run_cell(source)
    shown = cap.stdout + "".join(o.data.get("text/plain", "") + "\n" for o in cap.outputs)
    return outcome, shown, cap.stderr, cap.outputs
