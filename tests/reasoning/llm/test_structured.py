"""StructuredCaller through a scripted chat model: parse-and-retry, provider re-sends, usage."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import httpx2
import openai
import pytest
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from nl2sql.context import CancelToken
from nl2sql.errors import ErrorCode
from nl2sql.reasoning.base import AnswerabilityRequest, AnswerabilityResponse
from nl2sql.reasoning.llm import usage
from nl2sql.reasoning.llm.errors import ModelCallCancelled, ModelOutputError, ProviderError
from tests.reasoning.llm.conftest import scripted_skill

VALID = {
    "answerable": True,
    "datasource_ids": ["shop"],
    "reason": "orders table",
    "confidence": 0.8,
}


def _request(shop) -> AnswerabilityRequest:
    return AnswerabilityRequest(
        question="How many orders were cancelled?", datasources={"shop": shop}
    )


def _status_error(cls, status: int, **headers):
    response = httpx2.Response(
        status, request=httpx2.Request("POST", "http://m/v1"), headers=headers
    )
    return cls("nope", response=response, body=None)


def test_an_invalid_answer_is_asked_again_with_the_validation_error(shop):
    skill, fake = scripted_skill(
        {"answerable": "perhaps"}, "```json\n" + '{"answerable": true}' + "\n```"
    )
    verdict = skill.check_answerability(_request(shop))
    assert verdict.answerable and verdict.datasource_ids == [
        "shop"
    ]  # the only candidate, filled in
    assert len(fake.calls) == 2
    reask = fake.calls[1]["messages"][-1].content
    assert "answerable: Input should be a valid boolean" in reask and '"perhaps"' in reask
    entry = usage.drain()
    assert entry["usage"] == {"input_tokens": 200, "output_tokens": 50, "calls": 2}
    assert entry["raw_output"][0] == '{"answerable": "perhaps"}'
    assert entry["parse_errors"] == [
        "answerable: Input should be a valid boolean, unable to interpret input"
    ]


@pytest.mark.parametrize("parse_retries", [0, 1, 3])
def test_an_answer_that_never_validates_ends_as_model_output_invalid(shop, parse_retries):
    skill, fake = scripted_skill(
        *(["not json at all"] * (parse_retries + 1)), parse_retries=parse_retries
    )
    with pytest.raises(ModelOutputError) as info:
        skill.check_answerability(_request(shop))
    assert info.value.code == ErrorCode.MODEL_OUTPUT_INVALID
    assert len(fake.calls) == parse_retries + 1 == info.value.details["attempts"]
    assert usage.drain()["raw_output"] == ["not json at all"] * (parse_retries + 1)


def test_a_semantic_problem_is_re_asked_too(shop):
    wrong = dict(VALID, datasource_ids=["warehouse"])
    skill, fake = scripted_skill(wrong, VALID)
    assert skill.check_answerability(_request(shop)).datasource_ids == ["shop"]
    assert "['warehouse'] are not data sources" in fake.calls[1]["messages"][-1].content


def test_rate_limits_are_re_sent_up_to_max_retries_then_fatal(shop):
    skill, fake = scripted_skill(
        *[_status_error(openai.RateLimitError, 429, **{"retry-after": "0"})] * 3, max_retries=2
    )
    with pytest.raises(ProviderError) as info:
        skill.check_answerability(_request(shop))
    assert info.value.code == ErrorCode.PROVIDER_RATE_LIMIT and len(fake.calls) == 3


def test_a_rate_limit_that_clears_is_invisible_to_the_caller(shop):
    skill, fake = scripted_skill(
        _status_error(openai.RateLimitError, 429, **{"retry-after": "0"}), VALID
    )
    assert skill.check_answerability(_request(shop)).answerable
    assert len(fake.calls) == 2 and usage.drain()["usage"]["calls"] == 1  # one answer came back


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (
            openai.APITimeoutError(request=httpx2.Request("POST", "http://m/v1")),
            ErrorCode.PROVIDER_TIMEOUT,
        ),
        (_status_error(openai.AuthenticationError, 401), ErrorCode.PROVIDER_AUTH),
        (_status_error(openai.NotFoundError, 404), ErrorCode.PROVIDER_MODEL_NOT_FOUND),
    ],
)
def test_timeouts_and_refusals_are_never_re_sent(shop, exc, code):
    skill, fake = scripted_skill(exc, VALID, max_retries=3)
    with pytest.raises(ProviderError) as info:
        skill.check_answerability(_request(shop))
    assert info.value.code == code and len(fake.calls) == 1


def test_json_mode_states_the_schema_in_the_system_message(shop):
    skill, fake = scripted_skill(VALID, structured_output="json_mode")
    skill.check_answerability(_request(shop))
    system = fake.calls[0]["messages"][0].content
    assert "matches this JSON schema" in system and '"answerable"' in system
    assert "tools" not in fake.calls[0]["kwargs"]


def test_function_calling_binds_the_response_model_as_the_tool(shop):
    skill, fake = scripted_skill(VALID)
    skill.check_answerability(_request(shop))
    tool = fake.calls[0]["kwargs"]["tools"][0]["function"]
    assert tool["name"] == "AnswerabilityResponse"
    assert list(tool["parameters"]["properties"])[0] == "reason"  # the reason comes first


@dataclass
class _RunContext:
    cancel_token: CancelToken = field(default_factory=CancelToken)
    deadline: float | None = None


class _State(TypedDict, total=False):
    verdict: AnswerabilityResponse


def _graph(skill, shop):
    def node(state: _State) -> dict:
        return {"verdict": skill.check_answerability(_request(shop))}

    graph = StateGraph(_State, context_schema=_RunContext)
    graph.add_node("check", node)
    graph.add_edge(START, "check")
    graph.add_edge("check", END)
    return graph.compile()


def test_no_model_call_starts_once_the_run_is_cancelled(shop):
    skill, fake = scripted_skill(VALID)
    token = CancelToken()
    token.cancel("user pressed stop")
    with pytest.raises(ModelCallCancelled, match="user pressed stop"):
        _graph(skill, shop).invoke({}, context=_RunContext(cancel_token=token))
    assert fake.calls == []


def test_a_slow_answer_gives_up_at_the_runs_deadline(shop):
    # State, not timing: the model never answers until released; the call must give up by the
    # run's deadline while the model still holds the answer (bounds generous for a loaded box).
    release = threading.Event()

    def never_answers(messages, kwargs):
        release.wait(60)
        return VALID

    skill, fake = scripted_skill(never_answers, timeout_s=60)
    started = time.monotonic()
    try:
        with pytest.raises(ProviderError) as info:
            _graph(skill, shop).invoke({}, context=_RunContext(deadline=time.monotonic() + 1.5))
        elapsed = time.monotonic() - started
        assert not release.is_set() and len(fake.calls) == 1  # gave up, the answer never came
    finally:
        release.set()
    assert (
        info.value.code == ErrorCode.PROVIDER_TIMEOUT
        and "time left for the run" in info.value.message
    )
    assert elapsed < 20  # the 1.5 s run deadline, not the 60 s model timeout
