"""StructuredCaller: one chat model asked for typed answers, robustly.

- Structured output with the provider's best method (chat.structured_method); the answer is
  parsed from the raw message here and validated against the pydantic response model, so every
  method fails the same way.
- Parse-and-retry: an answer that does not validate is asked for again with the validation
  errors and the previous answer, up to `parse_retries` times, then MODEL_OUTPUT_INVALID.
- Provider failures become ProviderError (PROVIDER_*). 429 and 5xx/refused connections are
  re-sent up to `max_retries` with backoff; a timeout never is, so `timeout_s` bounds a hang.
- Before every call the run's cancellation token and deadline are checked; a call never waits
  past the run's deadline, so a hang ends as PROVIDER_TIMEOUT before the run's own timeout.
- Every call leaves a usage.CallRecord (tokens, raw output, why it was re-asked).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

from nl2sql.errors import ErrorCode
from nl2sql.reasoning.llm import usage
from nl2sql.reasoning.llm.chat import (
    build_chat_model,
    endpoint,
    key_of,
    key_variable,
    structured_method,
)
from nl2sql.reasoning.llm.config import ModelConfig
from nl2sql.reasoning.llm.errors import (
    ModelCallError,
    ModelOutputError,
    ProviderError,
    classify,
    is_unreadable_reply,
    provider_error,
    unreadable_reply,
)
from nl2sql.reasoning.llm.jsonschema import compact_schema
from nl2sql.reasoning.llm.parsing import describe_problems, extract_payload, raw_text
from nl2sql.reasoning.llm.run_limits import (
    DeadlineReached,
    call_within,
    check_cancelled,
    sleep_unless_cancelled,
    time_left,
)
from nl2sql.reasoning.llm.templates import render_reask

if TYPE_CHECKING:
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import BaseMessage

T = TypeVar("T", bound=BaseModel)
Check = Callable[[Any], list[str]]

_RESENT = frozenset({ErrorCode.PROVIDER_RATE_LIMIT, ErrorCode.PROVIDER_UNAVAILABLE})
_FALLBACK = {"json_schema": "function_calling", "function_calling": "json_mode"}


class StructuredCaller:
    """Typed answers from one chat model (thread-safe: parallel scans share it)."""

    def __init__(self, config: ModelConfig, chat_model: BaseChatModel | None = None):
        self.config = config
        self._model = chat_model
        self._bound: dict[str, tuple[Any, str]] = {}
        self._lock = threading.Lock()

    @property
    def model(self) -> BaseChatModel:
        with self._lock:
            if self._model is None:
                self._model = build_chat_model(self.config)
            return self._model

    def ask(
        self,
        messages: Sequence[BaseMessage],
        response_model: type[T],
        *,
        check: Check | None = None,
        first: tuple[str, ...] = ("reasoning",),
    ) -> T:
        """The model's answer as `response_model`, re-asked while it does not validate."""
        from langchain_core.messages import HumanMessage

        runnable, method = self._runnable(response_model, first)
        base = (
            _with_schema_note(list(messages), response_model, first)
            if method == "json_mode"
            else list(messages)
        )
        conversation, problems = base, ["no answer"]
        for _attempt in range(self.config.parse_retries + 1):
            message = self.invoke(runnable, conversation)
            raw = raw_text(message)
            tokens = usage.token_counts(message)
            try:
                value = response_model.model_validate(extract_payload(message))
                problems = check(value) if check else []
            except (ValueError, ValidationError) as exc:
                problems = describe_problems(exc)
            usage.record(
                usage.CallRecord(
                    self.config.model, *tokens, raw=raw, parse_error="; ".join(problems) or None
                )
            )
            if not problems:
                return value
            conversation = [*base, HumanMessage(content=render_reask(raw, problems))]
        attempts = self.config.parse_retries + 1
        raise ModelOutputError(
            f"{self.config.model}: the answer did not match {response_model.__name__} after "
            f"{attempts} attempt(s) ({problems[0]}); try a stronger model or raise parse_retries",
            model=self.config.model,
            attempts=attempts,
            problems=problems,
        )

    def invoke(self, runnable: Any, conversation: list[BaseMessage]) -> Any:
        """One answer message, with re-sends on 429/5xx; ProviderError when it cannot be had."""
        for attempt in range(self.config.max_retries + 1):
            budget = self._budget()
            try:
                out = call_within(
                    lambda: runnable.invoke(conversation), budget, self.config.timeout_s
                )
                return out["raw"] if isinstance(out, dict) and "raw" in out else out
            except ModelCallError:
                raise
            except DeadlineReached:
                raise ProviderError(
                    f"{self.config.model}: no answer within {budget:.1f}s, the time left for the "
                    "run: raise the run timeout (--timeout, pipeline_timeout_s) or use a faster model",
                    code=ErrorCode.PROVIDER_TIMEOUT,
                    model=self.config.model,
                ) from None
            except Exception as exc:
                code = classify(exc)
                if code is None:  # the client failed on the reply (e.g. JSON without choices)
                    raise self._unreadable(exc) from None
                wait = _backoff(exc, attempt)
                left = time_left()
                if (
                    code in _RESENT
                    and not is_unreadable_reply(exc)  # a wrong base_url does not heal
                    and attempt < self.config.max_retries
                    and (left is None or left > wait + 1)
                ):
                    sleep_unless_cancelled(wait)
                    continue
                raise self._provider_error(exc, code) from None
        raise AssertionError("unreachable")  # the loop returns or raises

    def _budget(self) -> float:
        """Seconds this call may take: the client timeout, or less when the run ends sooner."""
        check_cancelled()
        left = time_left()
        if left is not None and left <= 0:
            raise ProviderError(
                f"{self.config.model}: the run has no time left for a model call",
                code=ErrorCode.PROVIDER_TIMEOUT,
                model=self.config.model,
            )
        return self.config.timeout_s if left is None else min(self.config.timeout_s, left)

    def _secrets(self) -> list[str]:
        return key_of(self._model) + (
            [self.config.api_key.get_secret_value()] if self.config.api_key else []
        )

    def _provider_error(self, exc: BaseException, code: ErrorCode) -> ProviderError:
        return provider_error(
            exc,
            code,
            spec=self.config.model,
            where=endpoint(self.config),
            key_var=key_variable(self.config),
            timeout_s=self.config.timeout_s,
            secrets=self._secrets(),
        )

    def _unreadable(self, exc: BaseException) -> ProviderError:
        return unreadable_reply(
            exc, spec=self.config.model, where=endpoint(self.config), secrets=self._secrets()
        )

    def _runnable(self, response_model: type[BaseModel], first: tuple[str, ...]) -> tuple[Any, str]:
        key = f"{response_model.__module__}.{response_model.__qualname__}"
        model = self.model
        with self._lock:
            if key not in self._bound:
                self._bound[key] = _bind(
                    model, compact_schema(response_model, first), structured_method(self.config)
                )
            return self._bound[key]


def _bind(model: Any, schema: dict[str, Any], method: str) -> tuple[Any, str]:
    """model.with_structured_output for `method`, falling back when the model lacks it."""
    from langchain_core.language_models.chat_models import BaseChatModel

    if type(model).with_structured_output is BaseChatModel.with_structured_output:
        # LangChain's base implementation knows only tool calling; JSON mode there is a plain
        # call with the schema stated in the prompt.
        if method == "json_mode":
            return model, method
        method = "function_calling"
    while True:
        try:
            return model.with_structured_output(schema, method=method, include_raw=True), method
        except (NotImplementedError, ValueError):
            if method not in _FALLBACK:
                raise
            method = _FALLBACK[method]


def _with_schema_note(
    messages: list[Any], response_model: type[BaseModel], first: tuple[str, ...]
) -> list[Any]:
    """json_mode sends no schema to the provider: state it in the system message instead."""
    from langchain_core.messages import SystemMessage

    note = "\n\nAnswer with one JSON object that matches this JSON schema:\n" + json.dumps(
        compact_schema(response_model, first), separators=(",", ":")
    )
    head = messages[0]
    if isinstance(head, SystemMessage):
        return [SystemMessage(content=f"{head.content}{note}"), *messages[1:]]
    return [SystemMessage(content=note.strip()), *messages]


def _backoff(exc: BaseException, attempt: int) -> float:
    """Seconds before a re-send: the server's Retry-After when sane, else 0.5·2ⁿ (≤ 8 s)."""
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    try:
        after = float(headers.get("retry-after", ""))
        if 0 <= after <= 30:
            return after
    except (TypeError, ValueError):
        pass
    return min(8.0, 0.5 * 2.0**attempt)
