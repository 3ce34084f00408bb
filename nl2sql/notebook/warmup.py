"""Warm-up: while the analyst types the first question after `%load_ext nl2sql`, a background
thread loads what that question's run would load first — the pipeline's modules (LangGraph among
them), the offline engine and its word tables — and compiles the graph once.

It does nothing a first run does not do anyway, in the same order of imports, so answers are the
same with or without it:

- Python's import locks serialize its imports with the notebook's own;
- it prints nothing and shows nothing;
- a failure is swallowed here (kept in `failure()`); the first run waits for the warm-up to end
  (`ready`) and then does the same work itself, so the same error is raised there, where the
  analyst sees it;
- `NL2SQL_WARMUP=0` (or false/no/off) turns it off.
"""

from __future__ import annotations

import os
import sys
import threading

#: The environment variable that turns the warm-up off ("0", "false", "no", "off").
ENV = "NL2SQL_WARMUP"
_OFF = {"0", "false", "no", "off"}

_lock = threading.Lock()
_thread: threading.Thread | None = None
_failure: BaseException | None = None


def enabled() -> bool:
    """False when NL2SQL_WARMUP turns the warm-up off."""
    return os.environ.get(ENV, "1").strip().lower() not in _OFF


def start() -> bool:
    """Start the warm-up once per process; False when it is off or was started already."""
    global _thread
    if not enabled():
        return False
    with _lock:
        if _thread is not None:
            return False
        _thread = threading.Thread(target=_run, name="nl2sql-warmup", daemon=True)
        _thread.start()
    return True


def running() -> bool:
    """True while the warm-up thread is still working."""
    thread = _thread
    return thread is not None and thread.is_alive()


def wait() -> None:
    """Wait for a started warm-up to end (at once when none runs). Its failure is not raised
    here: the run that follows does the same work and raises it."""
    thread = _thread
    if thread is not None and thread is not threading.current_thread():
        thread.join()


def failure() -> BaseException | None:
    """What stopped the warm-up, if anything did."""
    return _failure


def ready() -> None:
    """Before a first run: wait for the warm-up and load nl2sql's pipeline modules, reported as
    one progress step while that work is still to do (a warm process reports nothing)."""
    if not running() and "nl2sql.wiring" in sys.modules:
        return
    from nl2sql.progress import step

    with step("load", "Loading nl2sql"):
        wait()
        import nl2sql.wiring  # noqa: F401  # what `connect` needs: done here if the warm-up was off


def warm() -> None:
    """Load what a first offline run loads: the modules, the word tables, one compiled graph."""
    import nl2sql.conversation  # noqa: F401
    import nl2sql.pipeline.runtime  # noqa: F401
    import nl2sql.retrieval.exact  # noqa: F401
    import nl2sql.wiring  # noqa: F401
    from nl2sql.pipeline.graph import build_graph
    from nl2sql.reasoning.offline.engine import OfflineEngine  # noqa: F401
    from nl2sql.reasoning.offline.words.text import canon, is_past_participle
    from nl2sql.reasoning.offline.words.units import is_unit

    canon("records")  # the lemma tables and the synonym table
    is_past_participle("sold")  # the inflection tables
    is_unit("kilometres")  # pint's unit registry and babel's currencies
    build_graph(execute=True, curated=False)


def _run() -> None:
    global _failure
    try:
        warm()
    except BaseException as exc:  # noqa: BLE001 - the first run redoes the work and raises it
        _failure = exc
