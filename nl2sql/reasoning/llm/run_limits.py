"""The running graph's cancellation token and deadline, as seen from inside a model call.

A skill receives only its request; the run it belongs to is reached through LangGraph's runtime
(the node's config context). Outside a graph run (doctor, tests calling a skill directly) there
is no token and no deadline. `call_within` bounds one call by the time the run has left.
CPU-bound skills (the offline engine) run inside `bounded_work()` and call `checkpoint()` in their
loops, so a timed-out or cancelled run stops computing instead of finishing in the background.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from nl2sql.reasoning.llm.errors import ModelCallCancelled

#: Seconds kept back from the run's deadline so the node can still report the failure.
DEADLINE_MARGIN_S = 0.5


def _run_context() -> Any | None:
    try:
        from langgraph.runtime import get_runtime

        return get_runtime().context
    except (RuntimeError, KeyError, AttributeError, ImportError):
        return None


def check_cancelled() -> None:
    """Raise ModelCallCancelled when the current run has been cancelled."""
    ctx = _run_context()
    token = getattr(ctx, "cancel_token", None)
    if token is not None and token.cancelled:
        raise ModelCallCancelled(f"run cancelled before a model call: {token.reason}")


def time_left() -> float | None:
    """Seconds before the current run's deadline (less a margin), or None without one."""
    deadline: float | None = getattr(_run_context(), "deadline", None)
    if deadline is None:
        return None
    return deadline - time.monotonic() - DEADLINE_MARGIN_S


def sleep_unless_cancelled(seconds: float) -> None:
    """Sleep in short slices, returning early when the run is cancelled."""
    token = getattr(_run_context(), "cancel_token", None)
    end = time.monotonic() + seconds
    while time.monotonic() < end and not (token is not None and token.cancelled):
        time.sleep(min(0.05, max(0.0, end - time.monotonic())))


#: The cancel token of the run whose CPU-bound work is in progress; read once per skill.
_TOKEN: contextvars.ContextVar[Any | None] = contextvars.ContextVar("nl2sql_run_token", default=None)


@contextmanager
def bounded_work() -> Iterator[None]:
    """Within this block, `checkpoint()` checks the current run's cancel token.

    Finding the run costs tens of microseconds; reading it once here keeps `checkpoint()` cheap
    enough to call once per question word. The deadline needs no check of its own: when it
    passes, run_with_graph cancels the token (and has already reported PIPELINE_TIMEOUT)."""
    reset = _TOKEN.set(getattr(_run_context(), "cancel_token", None))
    try:
        yield
    finally:
        _TOKEN.reset(reset)


def checkpoint() -> None:
    """Raise ModelCallCancelled once the run is cancelled (no-op outside `bounded_work()`)."""
    token = _TOKEN.get()
    if token is not None and token.cancelled:
        raise ModelCallCancelled(f"run cancelled during reasoning: {token.reason}")


class DeadlineReached(Exception):
    """The run's deadline came before the model's answer."""


def call_within(call: Callable[[], Any], budget: float, timeout_s: float) -> Any:
    """call(), but give up after `budget` seconds when the run's deadline is nearer than the
    client's own timeout (the abandoned request ends at its client timeout, in the background)."""
    if budget >= timeout_s:
        return call()
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the caller below
            box["error"] = exc

    # The caller's context goes along, so LangChain callbacks still see their parent run.
    context = contextvars.copy_context()
    worker = threading.Thread(
        target=context.run, args=(run,), name="nl2sql-model-call", daemon=True
    )
    worker.start()
    worker.join(budget)
    if worker.is_alive():
        raise DeadlineReached()
    if "error" in box:
        raise box["error"]
    return box["value"]
