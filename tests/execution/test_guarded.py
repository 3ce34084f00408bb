"""Statement limits: the adapter may tighten the session's timeout, the run's deadline caps it."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from nl2sql.execution.guarded import DEADLINE_GRACE_S, statement_limits


def _ctx(deadline=None):
    return SimpleNamespace(settings=SimpleNamespace(row_cap=1000, statement_timeout_s=30.0), deadline=deadline)


def test_the_adapter_may_only_tighten_the_session_limits():
    assert statement_limits(_ctx(), SimpleNamespace(row_cap=None, timeout_s=None)) == (1000, 30.0)
    assert statement_limits(_ctx(), SimpleNamespace(row_cap=10, timeout_s=5.0)) == (10, 5.0)
    assert statement_limits(_ctx(), SimpleNamespace(row_cap=10, timeout_s=60.0)) == (10, 30.0)


def test_an_in_flight_statement_stops_soon_after_the_run_deadline():
    _, timeout_s = statement_limits(_ctx(time.monotonic() + 2.0), SimpleNamespace(row_cap=None, timeout_s=None))
    assert timeout_s == pytest.approx(2.0 + DEADLINE_GRACE_S, abs=0.1)
    _, past = statement_limits(_ctx(time.monotonic() - 10.0), SimpleNamespace(row_cap=None, timeout_s=None))
    assert past == 0.05
