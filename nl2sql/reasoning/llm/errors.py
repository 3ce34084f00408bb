"""Model-call failures as NL2SQLErrors carrying an ErrorCode, and the map from provider SDK
exceptions (openai, anthropic, httpx, LangChain's own ModelError classes) to PROVIDER_* codes.

Messages say what to fix and never contain a secret: the provider's own text (which may quote a
part of the key, as OpenAI's 401 does) goes, redacted, to `details` only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from nl2sql.errors import ErrorCode, NL2SQLError, mask_url_passwords, safe_one_line

# Key-looking tokens: OpenAI/Anthropic style prefixes and long opaque strings after "key".
_KEYLIKE = re.compile(r"\b(sk|pk|rk|sess|key)[-_][A-Za-z0-9_\-*.]{6,}", re.IGNORECASE)
_BEARER = re.compile(r"(bearer\s+)\S+", re.IGNORECASE)
_USERINFO = re.compile(r"(//)[^/@\s]+@")
_SDK_PREFIX = re.compile(r"^Error code: \d+( - )?")  # what openai's SDK puts before the body


class ModelCallError(NL2SQLError):
    """A model call that failed: `code` is the error code the calling node reports."""

    code: ErrorCode = ErrorCode.UNKNOWN_ERROR

    def __init__(self, message: str, *, code: ErrorCode | None = None, **details: Any):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details = details


class ProviderError(ModelCallError):
    """The provider refused or failed the request (PROVIDER_*); fatal, never re-planned."""


class ModelOutputError(ModelCallError):
    """The model's answers never validated against the response model (MODEL_OUTPUT_INVALID)."""

    code = ErrorCode.MODEL_OUTPUT_INVALID


class ModelCallCancelled(ModelCallError):
    """The run was cancelled (or ran out of time) before a model call could start."""

    code = ErrorCode.CANCELLED


def redact(text: object, secrets: Iterable[str] = ()) -> str:
    """`text` with the given secrets, key-like tokens, bearer tokens and URL passwords removed."""
    out = mask_url_passwords(text)
    for secret in secrets:
        if secret and len(secret) >= 4:
            out = out.replace(secret, "[redacted]")
    out = _KEYLIKE.sub("[redacted]", out)
    out = _BEARER.sub(r"\1[redacted]", out)
    return _USERINFO.sub(r"\1[redacted]@", out)


def _status(exc: BaseException) -> int | None:
    for holder in (exc, getattr(exc, "response", None)):
        code = getattr(holder, "status_code", None)
        if isinstance(code, int):
            return code
    return None


def _is_named(exc: BaseException, *names: str) -> bool:
    """True when a class in exc's MRO has one of these names (SDKs need not be installed)."""
    return any(cls.__name__ in names for cls in type(exc).__mro__)


def _quota(exc: BaseException) -> bool:
    code = str(getattr(exc, "code", "") or "")
    text = str(exc).lower()
    return code == "insufficient_quota" or "insufficient_quota" in text or "credit balance" in text


def classify(exc: BaseException) -> ErrorCode | None:
    """The PROVIDER_* code for a provider exception, or None when `exc` is not one."""
    from_status = _from_status(_status(exc), exc)
    if from_status is not None:
        return from_status
    if _is_named(exc, "ContextOverflowError"):
        return ErrorCode.PROVIDER_BAD_REQUEST
    if _is_named(exc, "ModelAuthenticationError", "ModelPermissionDeniedError", "CredentialsError"):
        return ErrorCode.PROVIDER_AUTH
    if _is_named(exc, "ModelRateLimitError"):
        return ErrorCode.PROVIDER_QUOTA if _quota(exc) else ErrorCode.PROVIDER_RATE_LIMIT
    if _is_named(exc, "ModelNotFoundError"):
        return ErrorCode.PROVIDER_MODEL_NOT_FOUND
    if _is_named(exc, "ModelInvalidRequestError"):
        return ErrorCode.PROVIDER_BAD_REQUEST
    # Timeouts before connection errors: the SDKs' timeout classes derive from them.
    if _is_named(
        exc,
        "APITimeoutError",
        "ModelTimeoutError",
        "TimeoutException",
        "ReadTimeout",
        "ConnectTimeout",
    ) or isinstance(exc, TimeoutError):
        return ErrorCode.PROVIDER_TIMEOUT
    if _is_named(
        exc,
        "APIConnectionError",
        "ModelConnectionError",
        "ModelAPIError",
        "TransportError",
        "ConnectError",
        "RemoteProtocolError",
    ) or isinstance(exc, ConnectionError):
        return ErrorCode.PROVIDER_UNAVAILABLE
    if _is_named(exc, "APIResponseValidationError", "JSONDecodeError"):
        return ErrorCode.PROVIDER_UNAVAILABLE  # the server answered, but not with valid JSON
    return None


def _from_status(status: int | None, exc: BaseException) -> ErrorCode | None:
    if status is None or status < 400:
        return None
    if status in (401, 403):
        return ErrorCode.PROVIDER_AUTH
    if status == 402:
        return ErrorCode.PROVIDER_QUOTA
    if status == 404:
        return ErrorCode.PROVIDER_MODEL_NOT_FOUND
    if status == 408:
        return ErrorCode.PROVIDER_TIMEOUT
    if status == 429:
        return ErrorCode.PROVIDER_QUOTA if _quota(exc) else ErrorCode.PROVIDER_RATE_LIMIT
    if status >= 500:
        return ErrorCode.PROVIDER_UNAVAILABLE
    return ErrorCode.PROVIDER_QUOTA if _quota(exc) else ErrorCode.PROVIDER_BAD_REQUEST


_ADVICE = {
    ErrorCode.PROVIDER_AUTH: "the provider rejected the API key: set a valid key in {key_var} "
    "(or api_key in [models]) with access to this model",
    ErrorCode.PROVIDER_RATE_LIMIT: "the provider is rate limiting requests: wait and retry, "
    "lower the request rate, or raise max_retries",
    ErrorCode.PROVIDER_QUOTA: "the account is out of quota or credit: check billing and usage "
    "limits with the provider",
    ErrorCode.PROVIDER_TIMEOUT: "no answer within {timeout:g}s: raise timeout_s in [models], or "
    "use a faster model or server",
    ErrorCode.PROVIDER_UNAVAILABLE: "the model server at {where} cannot be reached (connection "
    "refused, dropped or unresolvable): check that it is running and reachable",
    ErrorCode.PROVIDER_MODEL_NOT_FOUND: "model {name!r} was not found at {where}: check the model "
    "name and base_url",
    ErrorCode.PROVIDER_BAD_REQUEST: "the provider refused the request as invalid: check the model "
    "options (structured_output, max_tokens, context_tokens)",
}


#: What the server answered, when it answered but not with a usable reply.
_SERVER_ERROR = (
    "the model server at {where} answered with a server error{said}: retry later, or check the "
    "server's logs"
)
_NOT_A_COMPLETION = (
    "the model server at {where} answered, but not with a chat completion ({what}): check that "
    "base_url points at an OpenAI-compatible API (usually ending in /v1)"
)


def is_unreadable_reply(exc: BaseException) -> bool:
    """True when the server answered 2xx with a body the client could not read as JSON."""
    status = _status(exc)
    return (status is None or status < 300) and _is_named(
        exc, "APIResponseValidationError", "JSONDecodeError"
    )


def _reply_kind(exc: BaseException) -> str:
    """How to name an unreadable reply: an HTML page, or malformed JSON."""
    try:
        text = str(getattr(getattr(exc, "response", None), "text", "") or "")
    except Exception:  # a streamed body that was never read
        text = ""
    if text.lstrip()[:1] == "<":
        return "an HTML page"
    return "malformed JSON" if _is_named(exc, "JSONDecodeError") else "a reply the client rejected"


def _advice(exc: BaseException, code: ErrorCode, status: int | None, **fmt: Any) -> str:
    if code is ErrorCode.PROVIDER_UNAVAILABLE and status is not None and status >= 500:
        said = _said(exc, fmt.pop("secrets"))
        return _SERVER_ERROR.format(said=f" ({said})" if said else "", **fmt)
    fmt.pop("secrets")
    if code is ErrorCode.PROVIDER_UNAVAILABLE and is_unreadable_reply(exc):
        return _NOT_A_COMPLETION.format(what=_reply_kind(exc), **fmt)
    return _ADVICE[code].format(**fmt)


def _said(exc: BaseException, secrets: Iterable[str]) -> str:
    """The server's own error text, when it sent one (not the SDK's bare "Error code: 500")."""
    text = _SDK_PREFIX.sub("", safe_one_line(getattr(exc, "message", None) or exc, 120))
    return redact(text, secrets) if text else ""


def provider_error(
    exc: BaseException,
    code: ErrorCode,
    *,
    spec: str,
    where: str,
    key_var: str,
    timeout_s: float,
    secrets: Iterable[str] = (),
) -> ProviderError:
    """A ProviderError whose message names the model and says what happened and what to fix."""
    name = spec.partition(":")[2] or spec
    status = _status(exc)
    secrets = list(secrets)
    advice = _advice(
        exc,
        code,
        status,
        key_var=key_var,
        timeout=timeout_s,
        where=where,
        name=name,
        secrets=secrets,
    )
    prefix = f"{spec}" + (f" (HTTP {status})" if status and status >= 400 else "")
    details = {
        "model": spec,
        "status": status,
        "exception": type(exc).__name__,
        "provider_message": redact(safe_one_line(getattr(exc, "message", None) or exc), secrets),
    }
    return ProviderError(f"{prefix}: {advice}", code=code, **details)


def unreadable_reply(
    exc: BaseException, *, spec: str, where: str, secrets: Iterable[str] = ()
) -> ProviderError:
    """The ProviderError for a reply the provider's client failed on in a way no code names
    (e.g. a JSON body without `choices`): what the client said, one line, redacted."""
    said = redact(safe_one_line(f"{type(exc).__name__}: {exc}", 160), secrets)
    return ProviderError(
        f"{spec}: " + _NOT_A_COMPLETION.format(where=where, what=said),
        code=ErrorCode.PROVIDER_UNAVAILABLE,
        model=spec,
        exception=type(exc).__name__,
    )
