"""A spinner on stderr that says what a run is doing: a first run's slow steps (building the
demo data, opening the sources, reading schemas, loading the model) by name, then each node.

Shown only when stderr is a terminal: piped or redirected, the command writes no control codes
and nothing more than without it.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from nl2sql.progress import PREPARE, PREPARED

Listener = Callable[[dict[str, Any]], None]


@contextmanager
def spinner(stream: TextIO | None = None) -> Iterator[Listener | None]:
    """A listener for `connect(on_progress=...)` and `ask(on_event=...)` that updates a spinner
    while the block runs; None (nothing shown) when `stream` (stderr) is not a terminal."""
    stream = stream if stream is not None else sys.stderr
    if not stream.isatty():
        yield None
        return
    from rich.console import Console

    console = Console(file=stream, highlight=False)
    steps: list[str] = []  # first-run steps under way, innermost last
    lock = threading.Lock()
    with console.status("Starting…", spinner="dots") as status:

        def on_event(event: dict[str, Any]) -> None:
            kind, text = event.get("event"), str(event.get("text") or "")
            with lock:
                if kind == PREPARE:
                    steps.append(text)
                elif kind == PREPARED and text in steps:
                    steps.remove(text)
                if steps:
                    status.update(f"{steps[-1]}…")
                elif kind == "start":
                    status.update(f"Running {event.get('node', '')}…")

        yield on_event
