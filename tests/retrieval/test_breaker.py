from __future__ import annotations

import threading

import pytest

from nl2sql.retrieval.breaker import (
    BreakerState,
    CircuitBreaker,
    CircuitOpenError,
    VectorStoreError,
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Service:
    """A dependency that fails until told to recover, counting the calls that reach it."""

    def __init__(self) -> None:
        self.calls = 0
        self.healthy = False

    def __call__(self, x: int) -> int:
        self.calls += 1
        if not self.healthy:
            raise ConnectionError("service down")
        return x * 2


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def breaker(clock: FakeClock) -> CircuitBreaker:
    return CircuitBreaker(failure_threshold=3, reset_after_s=30.0, clock=clock)


def test_passes_results_and_errors_through_while_closed(breaker: CircuitBreaker) -> None:
    service = Service()
    service.healthy = True
    assert breaker.call(service, 21) == 42
    service.healthy = False
    with pytest.raises(ConnectionError):
        breaker.call(service, 1)
    assert breaker.state is BreakerState.CLOSED and breaker.failures == 1


def test_opens_after_threshold_and_fails_fast_without_calling(breaker: CircuitBreaker) -> None:
    service = Service()
    for _ in range(3):
        with pytest.raises(ConnectionError):
            breaker.call(service, 1)
    assert breaker.state is BreakerState.OPEN
    with pytest.raises(CircuitOpenError, match="VECTOR_BREAKER is open after 3") as info:
        breaker.call(service, 1)
    assert service.calls == 3  # the open breaker never reached the service
    assert isinstance(info.value, VectorStoreError)
    assert "\n" not in str(info.value)


def test_success_resets_the_consecutive_count(breaker: CircuitBreaker) -> None:
    service = Service()
    for healthy in (False, False, True, False, False):
        service.healthy = healthy
        try:
            breaker.call(service, 1)
        except ConnectionError:
            pass
    assert breaker.state is BreakerState.CLOSED and breaker.failures == 2


def test_half_open_after_reset_time_then_closes_on_success(
    breaker: CircuitBreaker, clock: FakeClock
) -> None:
    service = Service()
    for _ in range(3):
        with pytest.raises(ConnectionError):
            breaker.call(service, 1)
    clock.now += 29.9
    with pytest.raises(CircuitOpenError):
        breaker.call(service, 1)
    clock.now += 0.1
    assert breaker.state is BreakerState.HALF_OPEN
    service.healthy = True
    assert breaker.call(service, 5) == 10
    assert breaker.state is BreakerState.CLOSED and breaker.failures == 0


def test_failed_trial_reopens_for_a_full_period(breaker: CircuitBreaker, clock: FakeClock) -> None:
    service = Service()
    for _ in range(3):
        with pytest.raises(ConnectionError):
            breaker.call(service, 1)
    clock.now += 30
    with pytest.raises(ConnectionError):  # the one trial call reaches the service
        breaker.call(service, 1)
    assert service.calls == 4
    clock.now += 15
    with pytest.raises(CircuitOpenError):
        breaker.call(service, 1)
    assert service.calls == 4


def test_half_open_admits_exactly_one_trial_across_threads(
    breaker: CircuitBreaker, clock: FakeClock
) -> None:
    service = Service()
    for _ in range(3):
        with pytest.raises(ConnectionError):
            breaker.call(service, 1)
    clock.now += 30
    entered, release = threading.Event(), threading.Event()

    def slow_trial() -> str:
        entered.set()
        release.wait(5)
        return "ok"

    outcomes: list[str] = []
    trial = threading.Thread(target=lambda: outcomes.append(breaker.call(slow_trial)))
    trial.start()
    assert entered.wait(5)
    refused = 0
    for _ in range(8):  # while the trial runs, everyone else is refused at once
        try:
            breaker.call(slow_trial)
        except CircuitOpenError:
            refused += 1
    release.set()
    trial.join(5)
    assert refused == 8 and outcomes == ["ok"]
    assert breaker.state is BreakerState.CLOSED


def test_concurrent_failures_are_all_counted() -> None:
    breaker = CircuitBreaker(failure_threshold=1000)
    service = Service()

    def hammer() -> None:
        for _ in range(100):
            try:
                breaker.call(service, 1)
            except ConnectionError:
                pass

    threads = [threading.Thread(target=hammer) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert breaker.failures == 800 and breaker.state is BreakerState.CLOSED
