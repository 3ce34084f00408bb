"""ChatModelSkill: every reasoning skill answered by a chat model, with the offline engine's
typed contracts.

Each skill renders its prompt (builders), asks for its response model (StructuredCaller, which
re-asks until the answer validates) and checks what pydantic cannot: that named datasources
exist and that a decomposition forms a valid execution DAG. A model's sub-query ids ("q1") are
replaced by the pipeline's stable ids, so a retry or a re-run keeps the same ids.
"""

from __future__ import annotations

from typing import Any

from nl2sql.dag import DAGError, build_dag
from nl2sql.decomposition import DecomposerResponse, sub_query_id
from nl2sql.reasoning.base import (
    AnswerabilityRequest,
    AnswerabilityResponse,
    AnswerSynthesizerResponse,
    ASTPlannerResponse,
    DecomposeRequest,
    PlanRequest,
    RefineRequest,
    RefinerResponse,
    SynthesizeRequest,
)
from nl2sql.reasoning.llm import builders
from nl2sql.reasoning.llm.config import ModelConfig
from nl2sql.reasoning.llm.structured import StructuredCaller


class ChatModelSkill:
    """check_answerability, decompose, plan, refine and synthesize through one chat model."""

    def __init__(self, config: ModelConfig, *, chat_model: Any = None):
        """`chat_model` replaces the one built from `config` (e.g. a scripted fake in tests)."""
        self.config = config
        self.caller = StructuredCaller(config, chat_model)

    def __repr__(self) -> str:
        return f"ChatModelSkill({self.config.model!r})"

    def check_answerability(self, request: AnswerabilityRequest) -> AnswerabilityResponse:
        """Whether any candidate datasource can answer, and which."""
        prompt = builders.answerability_prompt(request, self.config.context_tokens)
        known = list(request.datasources)

        def check(value: AnswerabilityResponse) -> list[str]:
            unknown = [d for d in value.datasource_ids if d not in known]
            if unknown:
                return [f"datasource_ids: {unknown} are not data sources; use ids from {known}"]
            if value.answerable and not value.datasource_ids and len(known) > 1:
                return [f"datasource_ids: name the data sources that answer it, from {known}"]
            return []

        value = self.caller.ask(
            prompt.messages(), AnswerabilityResponse, check=check, first=("reason",)
        )
        if value.answerable and not value.datasource_ids:
            value = value.model_copy(update={"datasource_ids": known})
        return value

    def decompose(self, request: DecomposeRequest) -> DecomposerResponse:
        """Sub-queries (with stable ids) and combine groups that form a valid DAG."""
        prompt = builders.decomposer_prompt(request, self.config.context_tokens)
        known = list(request.datasources)

        def check(value: DecomposerResponse) -> list[str]:
            return decomposition_problems(value, known)

        value = self.caller.ask(prompt.messages(), DecomposerResponse, check=check)
        return with_stable_ids(value)

    def plan(self, request: PlanRequest) -> ASTPlannerResponse:
        """A PlanModel for the sub-query (plan=None when the model says it cannot)."""
        prompt = builders.planner_prompt(request, self.config.context_tokens)
        value = self.caller.ask(prompt.messages(), ASTPlannerResponse)
        return value.model_copy(update={"plan_source": "planned"})

    def refine(self, request: RefineRequest) -> RefinerResponse:
        """Feedback and hints for the planner's next attempt."""
        prompt = builders.refiner_prompt(request, self.config.context_tokens)
        return self.caller.ask(prompt.messages(), RefinerResponse, first=("feedback",))

    def synthesize(self, request: SynthesizeRequest) -> AnswerSynthesizerResponse:
        """The answer in words from the result previews."""
        prompt = builders.synthesizer_prompt(request)
        return self.caller.ask(prompt.messages(), AnswerSynthesizerResponse, first=("answer",))


def with_stable_ids(response: DecomposerResponse) -> DecomposerResponse:
    """The response with each sub-query id replaced by sub_query_id(datasource, intent, position)."""
    mapping = {
        sq.id: sub_query_id(sq.datasource_id, sq.intent, pos)
        for pos, sq in enumerate(response.sub_queries)
    }
    sub_queries = [sq.model_copy(update={"id": mapping[sq.id]}) for sq in response.sub_queries]
    groups = [
        g.model_copy(
            update={
                "inputs": [
                    i.model_copy(update={"subquery_id": mapping.get(i.subquery_id, i.subquery_id)})
                    for i in g.inputs
                ]
            }
        )
        for g in response.combine_groups
    ]
    return response.model_copy(update={"sub_queries": sub_queries, "combine_groups": groups})


def decomposition_problems(response: DecomposerResponse, known: list[str]) -> list[str]:
    """What makes a decomposition unusable, phrased for the model to fix (empty when usable)."""
    if not response.sub_queries:
        return [] if response.unmapped_subqueries else ["sub_queries: give at least one sub-query"]
    problems = [
        f"sub_queries.{i}.datasource_id: {sq.datasource_id!r} is not a data source; use one of {known}"
        for i, sq in enumerate(response.sub_queries)
        if sq.datasource_id not in known
    ]
    ids = [sq.id for sq in response.sub_queries]
    if len(set(ids)) != len(ids):
        problems.append("sub_queries: every sub-query needs its own id")
    if problems:
        return problems
    try:
        build_dag(with_stable_ids(response))
    except DAGError as exc:
        problems.append(f"combine_groups: {exc}")
    return problems
