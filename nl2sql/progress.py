"""First-run progress: what a cold kernel is doing before its first answer.

The first question of a session does work no later one repeats: the demo data may be built,
the datasources are opened, their schemas read, the search index built, the model (or the
offline engine) loaded and the pipeline compiled. Each of those places reports a step, so the
widget and the CLI can say what is happening instead of showing a blank screen:

    {"event": "prepare", "step": "model", "text": "Loading the offline engine"}
    {"event": "prepared", "step": "model", "text": "Loading the offline engine", "seconds": 2.5}

A step reports only when its work really runs: a warm run, where everything is built, reports
none. The listener is the run's own `on_event` (the one the nodes' start/finish events go to),
set for the code that runs under `listening(...)`: a context variable, so concurrent runs and
threads each report to their own listener (LangGraph runs a node with a copy of the caller's
context), and code run with no listener reports to nobody.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

Listener = Callable[[dict[str, Any]], None]

_LISTENER: ContextVar[Listener | None] = ContextVar("nl2sql_progress_listener", default=None)

#: The event kinds a step emits (node events are "start" and "finish").
PREPARE, PREPARED = "prepare", "prepared"


@contextmanager
def listening(listener: Listener | None) -> Iterator[None]:
    """Report the steps run inside the block to `listener` (None: to nobody)."""
    token = _LISTENER.set(listener)
    try:
        yield
    finally:
        _LISTENER.reset(token)


def current() -> Listener | None:
    """The listener of the code running now (to hand to a thread that does not copy the context)."""
    return _LISTENER.get()


@contextmanager
def step(name: str, text: str) -> Iterator[None]:
    """Report the block as one step of first-run work: `prepare` before, `prepared` after.

    >>> seen = []
    >>> with listening(seen.append), step("schema", "Reading the schema of crm"):
    ...     pass
    >>> [(e["event"], e["step"]) for e in seen]
    [('prepare', 'schema'), ('prepared', 'schema')]
    """
    listener = _LISTENER.get()
    if listener is None:
        yield
        return
    _tell(listener, {"event": PREPARE, "step": name, "text": text})
    started = time.perf_counter()
    try:
        yield
    finally:
        _tell(listener, {"event": PREPARED, "step": name, "text": text,
                         "seconds": time.perf_counter() - started})


def _tell(listener: Listener, event: dict[str, Any]) -> None:
    try:
        listener(event)
    except Exception:  # noqa: BLE001 - a broken display must never break the work it reports
        pass
