"""Provider SDK exceptions (openai, anthropic, httpx, LangChain) mapped to PROVIDER_* codes,
with messages that say what to fix and never carry a key."""

from __future__ import annotations

import anthropic
import httpx
import httpx2
import openai
import pytest
from langchain_core.exceptions import ModelAuthenticationError, ModelRateLimitError

from nl2sql.errors import ErrorCode
from nl2sql.reasoning.llm.errors import classify, provider_error, redact

URL = "http://127.0.0.1:1/v1/chat/completions"


def _response(status: int, headers: dict | None = None) -> httpx2.Response:
    return httpx2.Response(status, request=httpx2.Request("POST", URL), headers=headers)


def _openai(cls, status: int, body: dict | None = None):
    return cls("boom", response=_response(status), body=body)


def _anthropic(cls, status: int):
    return cls("boom", response=_response(status), body={"type": "error"})


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (_openai(openai.AuthenticationError, 401), ErrorCode.PROVIDER_AUTH),
        (_openai(openai.PermissionDeniedError, 403), ErrorCode.PROVIDER_AUTH),
        (_openai(openai.NotFoundError, 404), ErrorCode.PROVIDER_MODEL_NOT_FOUND),
        (_openai(openai.RateLimitError, 429), ErrorCode.PROVIDER_RATE_LIMIT),
        (
            _openai(openai.RateLimitError, 429, {"code": "insufficient_quota"}),
            ErrorCode.PROVIDER_QUOTA,
        ),
        (_openai(openai.BadRequestError, 400), ErrorCode.PROVIDER_BAD_REQUEST),
        (_openai(openai.InternalServerError, 503), ErrorCode.PROVIDER_UNAVAILABLE),
        (openai.APITimeoutError(request=httpx2.Request("POST", URL)), ErrorCode.PROVIDER_TIMEOUT),
        (
            openai.APIConnectionError(request=httpx2.Request("POST", URL)),
            ErrorCode.PROVIDER_UNAVAILABLE,
        ),
        (_anthropic(anthropic.AuthenticationError, 401), ErrorCode.PROVIDER_AUTH),
        (_anthropic(anthropic.RateLimitError, 429), ErrorCode.PROVIDER_RATE_LIMIT),
        (_anthropic(anthropic.NotFoundError, 404), ErrorCode.PROVIDER_MODEL_NOT_FOUND),
        (_anthropic(anthropic.InternalServerError, 529), ErrorCode.PROVIDER_UNAVAILABLE),
        (
            anthropic.APITimeoutError(request=httpx2.Request("POST", URL)),
            ErrorCode.PROVIDER_TIMEOUT,
        ),
        (httpx.ReadTimeout("read timed out"), ErrorCode.PROVIDER_TIMEOUT),
        (httpx.ConnectError("connection refused"), ErrorCode.PROVIDER_UNAVAILABLE),
        (ModelAuthenticationError("bad key"), ErrorCode.PROVIDER_AUTH),
        (ModelRateLimitError("slow down"), ErrorCode.PROVIDER_RATE_LIMIT),
    ],
    ids=lambda v: (
        type(v).__module__.split(".")[0] + "." + type(v).__name__
        if isinstance(v, Exception)
        else v.value
    ),
)
def test_sdk_exceptions_map_to_provider_codes(exc, code):
    assert classify(exc) == code


def test_ordinary_exceptions_are_not_provider_failures():
    assert classify(KeyError("plan")) is None
    assert classify(ValueError("bad")) is None


def test_the_message_says_what_to_fix_and_the_key_goes_nowhere():
    key = "sk-proj-Zx9Qw8Er7Ty6Ui5Op4"
    exc = openai.AuthenticationError(
        f"Incorrect API key provided: {key[:8]}************{key[-4:]}. You can find your key at …",
        response=_response(401),
        body=None,
    )
    err = provider_error(
        exc,
        ErrorCode.PROVIDER_AUTH,
        spec="openai:gpt-x",
        where="the openai API",
        key_var="OPENAI_API_KEY",
        timeout_s=30,
        secrets=[key],
    )
    assert (
        "OPENAI_API_KEY" in err.message and "openai:gpt-x" in err.message and "401" in err.message
    )
    text = f"{err.message} {err.details}"
    assert key not in text and key[:8] not in text and key[-4:] + "." not in text
    assert err.details["status"] == 401


def test_redact_removes_keys_bearer_tokens_and_url_passwords():
    text = "auth failed for sk-ant-api03-abcdefgh with Bearer xyz.123 at https://user:pw@host/v1"
    out = redact(text, ["pw"])
    assert "sk-ant" not in out and "xyz.123" not in out and "user:pw" not in out
    assert "https://[redacted]@host/v1" in out
