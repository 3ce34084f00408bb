"""A circuit breaker: stop calling a failing service for a while, then try it once again.

The vector store sits behind one (``VECTOR_BREAKER``): when chromadb keeps failing (a broken
persist folder, a locked database), every retrieval would otherwise pay the full failure cost; an
open breaker answers at once with `CircuitOpenError` and the resolver reports the store unavailable.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from enum import StrEnum
from typing import ParamSpec, TypeVar

from nl2sql.errors import NL2SQLError

P = ParamSpec("P")
R = TypeVar("R")


class VectorStoreError(NL2SQLError):
    """The vector store failed (chromadb error, unusable path); the message is one line."""


class CircuitOpenError(VectorStoreError):
    """The breaker is open: the call was refused without reaching the service."""


class BreakerState(StrEnum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class CircuitBreaker:
    """Opens after `failure_threshold` consecutive failures; after `reset_after_s` lets one trial call
    through (half-open): success closes it, failure opens it again for another `reset_after_s`.

    >>> b = CircuitBreaker(failure_threshold=1)
    >>> b.call(int, "7")
    7
    """

    def __init__(
        self,
        name: str = "VECTOR_BREAKER",
        failure_threshold: int = 3,
        reset_after_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if failure_threshold < 1:
            raise ValueError("failure_threshold must be at least 1")
        self.name = name
        self.failure_threshold = failure_threshold
        self.reset_after_s = reset_after_s
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._opened_at: float | None = None
        self._trial_running = False

    @property
    def state(self) -> BreakerState:
        """Closed, open, or half-open (the reset time has passed; the next call is the trial)."""
        with self._lock:
            return self._state_locked()

    @property
    def failures(self) -> int:
        """Consecutive failures counted since the last success."""
        return self._failures

    def _state_locked(self) -> BreakerState:
        if self._opened_at is None:
            return BreakerState.CLOSED
        if self._clock() - self._opened_at >= self.reset_after_s:
            return BreakerState.HALF_OPEN
        return BreakerState.OPEN

    def _admit(self) -> None:
        """Refuse the call when open, or when half-open and another thread holds the trial."""
        with self._lock:
            state = self._state_locked()
            if state is BreakerState.CLOSED:
                return
            if state is BreakerState.HALF_OPEN and not self._trial_running:
                self._trial_running = True
                return
            wait = max(0.0, self.reset_after_s - (self._clock() - (self._opened_at or 0.0)))
        raise CircuitOpenError(
            f"{self.name} is open after {self._failures} consecutive failures; "
            f"retry in {wait:.0f} s"
        )

    def _record(self, ok: bool) -> None:
        with self._lock:
            self._trial_running = False
            if ok:
                self._failures = 0
                self._opened_at = None
                return
            self._failures += 1
            if self._opened_at is not None or self._failures >= self.failure_threshold:
                # a failed trial re-opens for a full period; reaching the threshold opens first time
                self._opened_at = self._clock()

    def call(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """Call `fn` through the breaker; its exceptions propagate after being counted."""
        self._admit()
        try:
            result = fn(*args, **kwargs)
        except Exception:
            self._record(ok=False)
            raise
        except BaseException:
            # an interrupt says nothing about the service's health: free the trial slot only
            with self._lock:
                self._trial_running = False
            raise
        self._record(ok=True)
        return result

    def reset(self) -> None:
        """Close the breaker and forget past failures."""
        with self._lock:
            self._failures = 0
            self._opened_at = None
            self._trial_running = False

    def __repr__(self) -> str:
        return f"CircuitBreaker({self.name!r}, state={self.state.value}, failures={self._failures})"
