"""Statement limits: the adapter may tighten the session's timeout, the run's deadline caps it;
a run whose time is up starts neither the guard nor the statement."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from nl2sql.context import CancelToken
from nl2sql.errors import ErrorCode
from nl2sql.execution import guarded
from nl2sql.execution.guarded import DEADLINE_GRACE_S, run_guarded, statement_limits


def _ctx(deadline=None, token=None):
    settings = SimpleNamespace(row_cap=1000, statement_timeout_s=30.0, max_sql_bytes=20_000)
    return SimpleNamespace(settings=settings, deadline=deadline, cancel_token=token or CancelToken())


class _Adapter:
    dialect, row_cap, timeout_s = "sqlite", None, None

    def __init__(self):
        self.executed = []

    def execute(self, sql, **limits):
        self.executed.append(sql)
        raise AssertionError("a stopped run must not execute")


def _cancelled(reason):
    token = CancelToken()
    token.cancel(reason)
    return token


@pytest.mark.parametrize(("deadline", "token", "code"), [
    (-0.01, None, ErrorCode.PIPELINE_TIMEOUT),  # the deadline passed, the token not yet set
    (+60.0, _cancelled("timeout"), ErrorCode.PIPELINE_TIMEOUT),
    (None, _cancelled("cancelled"), ErrorCode.CANCELLED),
])
def test_a_run_whose_time_is_up_starts_neither_the_guard_nor_the_statement(
    monkeypatch, deadline, token, code
):
    guarded_texts = []
    monkeypatch.setattr(guarded, "check_sql", lambda sql, *a, **kw: guarded_texts.append(sql))
    adapter = _Adapter()
    ctx = _ctx(None if deadline is None else time.monotonic() + deadline, token)
    ran = run_guarded(ctx, adapter, "SELECT 1 FROM t", allowed_tables=["t"], node="executor",
                      unreadable=ErrorCode.SQL_GEN_FAILED, sub_query_id="sq_1")
    assert ran.frame is None and ran.error is not None
    assert ran.error.error_code == code and ran.error.sub_query_id == "sq_1"
    assert "\n" not in ran.error.message
    assert guarded_texts == [] and adapter.executed == []


def test_a_run_with_time_left_is_guarded_and_run():
    class Rows(_Adapter):
        def execute(self, sql, **limits):
            self.executed.append(sql)
            return SimpleNamespace(row_count=0)

    adapter = Rows()
    ran = run_guarded(_ctx(time.monotonic() + 60.0), adapter, "SELECT 1 FROM t", allowed_tables=["t"],
                      node="executor", unreadable=ErrorCode.SQL_GEN_FAILED)
    assert ran.error is None and adapter.executed == ["SELECT 1 FROM t"]


def test_the_adapter_may_only_tighten_the_session_limits():
    assert statement_limits(_ctx(), SimpleNamespace(row_cap=None, timeout_s=None)) == (1000, 30.0)
    assert statement_limits(_ctx(), SimpleNamespace(row_cap=10, timeout_s=5.0)) == (10, 5.0)
    assert statement_limits(_ctx(), SimpleNamespace(row_cap=10, timeout_s=60.0)) == (10, 30.0)


def test_an_in_flight_statement_stops_soon_after_the_run_deadline():
    _, timeout_s = statement_limits(_ctx(time.monotonic() + 2.0), SimpleNamespace(row_cap=None, timeout_s=None))
    assert timeout_s == pytest.approx(2.0 + DEADLINE_GRACE_S, abs=0.1)
    _, past = statement_limits(_ctx(time.monotonic() - 10.0), SimpleNamespace(row_cap=None, timeout_s=None))
    assert past == 0.05
