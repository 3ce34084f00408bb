from __future__ import annotations

from nl2sql.decomposition import SubQuery
from nl2sql.errors import ErrorCode
from nl2sql.plan import Comparison, walk
from nl2sql.reasoning.base import PlanRequest, RefineRequest
from nl2sql.reasoning.offline.engine import OfflineEngine

QUESTION = "How many members are in Ohoi?"


def _plan(engine, library, lookup, feedback=None, hints=None):
    sq = SubQuery(id="sq_1", datasource_id="library", intent=QUESTION)
    return engine.plan(
        PlanRequest(QUESTION, sq, library, library, "sqlite", feedback, hints or {}, lookup)
    )


def _values(plan):
    return [n.right.value for n in walk(plan.where) if isinstance(n, Comparison)]


def test_value_typo_round_trip_uses_the_suggested_value(library, lookup):
    engine = OfflineEngine()
    first = _plan(engine, library, lookup)
    assert _values(first.plan) == ["Ohoi"]
    error = {
        "node": "executor",
        "error_code": ErrorCode.VALUE_NOT_FOUND,
        "message": "no rows for 'Ohoi'",
    }
    details = {
        "table": "members",
        "column": "state",
        "value": "Ohoi",
        "suggestions": ["Ohio", "Oregon"],
    }
    refined = engine.refine(
        RefineRequest(
            QUESTION,
            first and SubQuery(id="sq_1", datasource_id="library", intent=QUESTION),
            first.plan,
            error,
            details,
            library,
        )
    )
    assert refined.hints == {
        "replace_value": {"table": "members", "column": "state", "old": "Ohoi", "new": "Ohio"}
    }
    assert "Ohio" in refined.feedback and refined.latest_error["error_code"] == "VALUE_NOT_FOUND"
    second = _plan(engine, library, lookup, refined.latest_error, refined.hints)
    assert _values(second.plan) == ["Ohio"]
    assert second.reasoning.startswith("after VALUE_NOT_FOUND")


def test_missing_value_without_suggestion_ends_with_a_refusal(library, lookup):
    engine = OfflineEngine()
    error = {
        "node": "executor",
        "error_code": "VALUE_NOT_FOUND",
        "message": "'Ohoi' is not in members.state",
    }
    refined = engine.refine(RefineRequest(QUESTION, None, None, error, {"value": "Ohoi"}, library))
    assert refined.hints == {}
    again = _plan(engine, library, lookup, refined.latest_error, refined.hints)
    assert again.plan is None and "Ohoi" in again.reasoning


def test_fan_out_and_column_errors_become_hints(library):
    engine = OfflineEngine()
    fan = engine.refine(
        RefineRequest(
            "q",
            None,
            None,
            {
                "node": "executor",
                "error_code": "JOIN_FAN_OUT",
                "message": "COUNT over repeated rows",
            },
            {"table": "loans"},
            library,
        )
    )
    assert fan.hints == {"avoid_join_fan_out": {"table": "loans"}}
    col = engine.refine(
        RefineRequest(
            "q",
            None,
            None,
            {
                "node": "logical_validator",
                "error_code": "COLUMN_NOT_FOUND",
                "message": "no column gnre",
            },
            {"column": "gnre", "suggestions": ["genre"]},
            library,
        )
    )
    assert col.hints == {"column_suggestions": {"gnre": "genre"}}


def test_other_errors_get_one_line_feedback_and_no_hints(library):
    r = OfflineEngine().refine(
        RefineRequest(
            "q",
            None,
            None,
            {"node": "executor", "error_code": "EXECUTION_FAILED", "message": "no such function"},
            {},
            library,
        )
    )
    assert r.hints == {} and r.feedback == "executor reported EXECUTION_FAILED: no such function"
    assert "\n" not in r.feedback
