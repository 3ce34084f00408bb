"""OfflineEngine: the built-in deterministic implementation of every reasoning skill.

No model and no network: schema linking over the snapshot (names, synonyms, sample values and a
bounded value look-up), a grammar of analytic question shapes, FK join paths and template
answers. The same inputs give the same outputs. Snapshot indexes are cached per engine, keyed by
datasource id, structural fingerprint and a digest of the samples. Every skill runs bounded by the
run's token and deadline: its loops call `checkpoint()`, so a timed-out run stops computing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from datetime import date
from typing import Any, ParamSpec, TypeVar

from nl2sql.decomposition import DecomposerResponse
from nl2sql.reasoning.base import (
    AnswerabilityRequest,
    AnswerabilityResponse,
    AnswerSynthesizerResponse,
    ASTPlannerResponse,
    DecomposeRequest,
    PlanCandidate,
    PlanRequest,
    RefineRequest,
    RefinerResponse,
    SynthesizeRequest,
)
from nl2sql.reasoning.llm.run_limits import bounded_work
from nl2sql.reasoning.offline import answerability, decompose, refine, synthesis
from nl2sql.reasoning.offline.catalog.cache import IndexCache
from nl2sql.reasoning.offline.plan.keyed import keyed_plan
from nl2sql.reasoning.offline.plan.planner import Outcome, plan_question
from nl2sql.reasoning.offline.plan.readings import readings
from nl2sql.reasoning.offline.shapes.spec import Unclear
from nl2sql.schema.models import SchemaSnapshot

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _bounded(method: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run a skill inside the run's bounds (see run_limits.bounded_work)."""

    @functools.wraps(method)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with bounded_work():
            return method(*args, **kwargs)

    return run


class OfflineEngine:
    """check_answerability, decompose, plan, refine and synthesize without a model."""

    def __init__(self, cache_size: int = 16):
        self._indexes = IndexCache(cache_size)

    @_bounded
    def check_answerability(self, request: AnswerabilityRequest) -> AnswerabilityResponse:
        """Answerable when a datasource links the question's words to its tables, columns or values."""
        return answerability.check(request.question, dict(request.datasources), self._indexes)

    @_bounded
    def decompose(self, request: DecomposeRequest) -> DecomposerResponse:
        """One sub-query on the best datasource, or two combined by compare/join."""
        return decompose.decompose(
            request.question, request.datasources, self._indexes, self._trial,
            request.relationships,
        )

    @_bounded
    def plan(self, request: PlanRequest) -> ASTPlannerResponse:
        """A PlanModel for the sub-query's intent, or plan=None with what was not understood."""
        snapshot = request.full_snapshot if request.full_snapshot.tables else request.snapshot
        intent = request.sub_query.intent or request.question
        hints = dict(request.hints or {})
        blocked = _unrepairable(request.feedback, hints)
        if blocked:
            return ASTPlannerResponse(plan=None, confidence=0.0, reasoning=blocked)
        outcome = plan_question(
            intent, self._indexes.get(snapshot), request.values, hints, request.reference_date
        )
        if request.sub_query.key_columns:
            return _per_key(outcome, request.sub_query.key_columns, snapshot)
        reasoning = outcome.reasoning
        if request.feedback and outcome.plan is not None:
            reasoning = f"after {refine.error_code(request.feedback) or 'feedback'}: {reasoning}"
        candidates = []
        if request.clarify_below > 0 and (outcome.plan is None or outcome.confidence < request.clarify_below):
            candidates = [
                PlanCandidate(description=r.description, plan=r.plan, confidence=r.confidence,
                              meaning=dict(r.meaning))
                for r in readings(intent, outcome, self._indexes.get(snapshot), hints,
                                  request.reference_date)
            ]
        return ASTPlannerResponse(
            plan=outcome.plan, confidence=outcome.confidence, reasoning=reasoning,
            refusal=outcome.refusal, evidence=outcome.evidence, candidates=candidates,
        )

    @_bounded
    def refine(self, request: RefineRequest) -> RefinerResponse:
        """Feedback and planner hints from the latest error and its details."""
        return refine.refine(request.latest_error, request.details)

    @_bounded
    def synthesize(self, request: SynthesizeRequest) -> AnswerSynthesizerResponse:
        """A template answer from the result previews."""
        groups = request.decomposition.combine_groups if request.decomposition else []
        compare = any(g.operation == "compare" for g in groups)
        return synthesis.synthesize(
            request.question, list(request.results), compare, request.reference_date
        )

    def _trial(self, intent: str, snapshot: SchemaSnapshot) -> Outcome:
        # Decomposition plans each part without value look-ups to learn its output names; the
        # days a relative date becomes do not change them, so today stands for the reference.
        return plan_question(intent, self._indexes.get(snapshot), reference=date.today())


def _per_key(outcome: Outcome, key_columns: list[str], snapshot: SchemaSnapshot) -> ASTPlannerResponse:
    """The plan answering per key of a join across sources (plan/keyed.py), or a refusal."""
    if outcome.plan is None:
        return ASTPlannerResponse(plan=None, confidence=0.0, reasoning=outcome.reasoning)
    try:
        keyed = keyed_plan(outcome.plan, key_columns, snapshot)
    except Unclear as exc:
        return ASTPlannerResponse(plan=None, confidence=0.0, reasoning=f"could not plan: {exc}")
    how = "partials per key" if keyed.aggregated else "distinct rows per key"
    return ASTPlannerResponse(
        plan=keyed.plan, confidence=outcome.confidence, evidence=outcome.evidence,
        reasoning=f"{outcome.reasoning}; {how} of {', '.join(key_columns)} for the join across sources",
    )


def _unrepairable(feedback: Mapping[str, Any] | None, hints: dict[str, Any]) -> str | None:
    """A refusal when the last attempt failed on a missing value and no replacement is known."""
    if (
        not feedback
        or refine.error_code(feedback) != "VALUE_NOT_FOUND"
        or hints.get("replace_value")
    ):
        return None
    return f"could not plan: {feedback.get('message') or 'a filter value does not exist'} (no close value to use)"
