"""One timer thread for every statement timeout in the process, instead of a thread per query.

DuckDB has no statement timeout of its own: a query is stopped by interrupting its cursor from
another thread. Starting a `threading.Timer` for each query cost a thread start per statement on
the warm path; the watchdog keeps a heap of deadlines and one daemon thread that sleeps until the
nearest. A cancelled alarm is skipped when it comes up (and dropped early once cancelled ones
are the majority), so cancelling is O(1).
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable


class Alarm:
    """A scheduled call; `cancel()` before it fires and it never runs."""

    __slots__ = ("due", "fn", "cancelled")

    def __init__(self, due: float, fn: Callable[[], None]):
        self.due = due
        self.fn = fn
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class Watchdog:
    """Runs each alarm's callback on the watchdog thread when its time comes (keep it short)."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Alarm]] = []
        self._seq = itertools.count()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def after(self, delay_s: float, fn: Callable[[], None]) -> Alarm:
        """Call `fn` in `delay_s` seconds unless the returned alarm is cancelled first."""
        alarm = Alarm(time.monotonic() + delay_s, fn)
        with self._cond:
            if len(self._heap) > 64 and sum(a.cancelled for _, _, a in self._heap) > len(self._heap) // 2:
                self._heap = [e for e in self._heap if not e[2].cancelled]
                heapq.heapify(self._heap)
            heapq.heappush(self._heap, (alarm.due, next(self._seq), alarm))
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="nl2sql-watchdog", daemon=True)
                self._thread.start()
            elif self._heap[0][2] is alarm:
                # only a new earliest alarm shortens the thread's wait; a later one can wait
                # for it (a wake-up per query cost a thread switch on the warm path)
                self._cond.notify()
        return alarm

    def _loop(self) -> None:
        while True:
            with self._cond:
                alarm = self._next_due()
            if alarm is not None and not alarm.cancelled:
                try:
                    alarm.fn()
                except Exception:  # noqa: BLE001, S110 - one failed interrupt must not stop the others
                    pass

    def _next_due(self) -> Alarm | None:
        """Wait (holding the condition) until the earliest alarm is due; pop and return it."""
        while True:
            while self._heap and self._heap[0][2].cancelled:
                heapq.heappop(self._heap)
            if not self._heap:
                self._cond.wait()
                continue
            wait = self._heap[0][0] - time.monotonic()
            if wait <= 0:
                return heapq.heappop(self._heap)[2]
            self._cond.wait(wait)


#: The process's watchdog (its thread starts with the first alarm).
WATCHDOG = Watchdog()
