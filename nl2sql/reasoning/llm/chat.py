"""Building a LangChain chat model from a ModelConfig, and choosing its structured-output method.

`init_chat_model("provider:model", ...)` does the provider work; here are only the things it
cannot know: our timeout and retry policy (the SDK's own retries are off — the caller retries
429/5xx itself and never retries a timeout, so `timeout_s` bounds a hang), a base_url for
OpenAI-compatible servers, and which structured-output method suits the provider.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nl2sql.errors import ConfigError, ErrorCode, safe_one_line
from nl2sql.reasoning.llm.config import ModelConfig
from nl2sql.reasoning.llm.errors import ProviderError, redact

if TYPE_CHECKING:
    from langchain_core.language_models.chat_models import BaseChatModel

#: Provider -> (API key variable, base URL variable) its client reads when not configured.
PROVIDER_ENV: dict[str, tuple[str | None, str | None]] = {
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "azure_openai": ("AZURE_OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT"),
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
    "google_genai": ("GOOGLE_API_KEY", None),
    "mistralai": ("MISTRAL_API_KEY", None),
    "ollama": (None, "OLLAMA_HOST"),
}

#: The structured-output method "auto" picks: JSON-schema constrained output where the API
#: has it (OpenAI and compatible servers, Ollama, Gemini), tool calling elsewhere.
_AUTO_METHOD = {
    "openai": "json_schema",
    "azure_openai": "json_schema",
    "ollama": "json_schema",
    "google_genai": "json_schema",
    "anthropic": "function_calling",
    "mistralai": "function_calling",
}

#: Providers whose chat class takes `timeout` and `max_retries` directly.
_TRANSPORT_KWARGS = {"openai", "azure_openai", "anthropic", "mistralai", "google_genai"}


def structured_method(config: ModelConfig) -> str:
    """The structured-output method for this model ("auto" resolved by provider)."""
    if config.structured_output != "auto":
        return config.structured_output
    return _AUTO_METHOD.get(config.provider or "", "function_calling")


def key_variable(config: ModelConfig) -> str:
    """Where the key comes from, for messages: the provider's variable or the config."""
    var = PROVIDER_ENV.get(config.provider or "", (None, None))[0]
    return var or f"the {config.provider} credentials"


def endpoint(config: ModelConfig, environ: dict[str, str] | None = None) -> str:
    """The server a model is called at, for messages (credentials in the URL removed)."""
    import os

    env = os.environ if environ is None else environ
    base_var = PROVIDER_ENV.get(config.provider or "", (None, None))[1]
    url = config.base_url or (env.get(base_var) if base_var else None)
    return redact(url) if url else f"the {config.provider} API"


def chat_model_kwargs(config: ModelConfig) -> dict[str, Any]:
    """Keyword arguments for init_chat_model (the key included: never log this dict)."""
    kwargs: dict[str, Any] = {}
    if config.base_url:
        kwargs["base_url"] = config.base_url
    if config.api_key is not None:
        kwargs["api_key"] = config.api_key.get_secret_value()
    if config.temperature is not None:
        kwargs["temperature"] = config.temperature
    if config.max_tokens is not None:
        kwargs["max_tokens"] = config.max_tokens
    if config.provider in _TRANSPORT_KWARGS:
        kwargs["timeout"] = config.timeout_s
        kwargs["max_retries"] = 0
    elif config.provider == "ollama":
        kwargs["client_kwargs"] = {"timeout": config.timeout_s}
    if config.provider == "openai" and config.base_url:
        # OpenAI-compatible servers speak chat completions, not the Responses API.
        kwargs["use_responses_api"] = False
    kwargs.update(config.options)
    return kwargs


def build_chat_model(config: ModelConfig) -> BaseChatModel:
    """The LangChain chat model for `config`; ConfigError when the provider is unusable."""
    try:
        from langchain.chat_models import init_chat_model
    except ImportError:
        raise ConfigError(
            f"model {config.model!r} needs the LLM extras: pip install 'nl2sql[llm]'"
        ) from None
    try:
        model: BaseChatModel = init_chat_model(config.model, **chat_model_kwargs(config))
        return model
    except ImportError as exc:
        raise ConfigError(f"model {config.model!r}: {exc}") from None
    except Exception as exc:  # each SDK has its own class for a missing key or a bad option
        secrets = [config.api_key.get_secret_value()] if config.api_key else []
        text = str(exc).strip()
        if any(word in text.lower() for word in ("api_key", "api key", "credential")):
            raise ProviderError(
                f"{config.model}: no API key found: set {key_variable(config)} (or api_key in [models])",
                code=ErrorCode.PROVIDER_AUTH,
                model=config.model,
            ) from None
        first = redact(safe_one_line(text, None) or type(exc).__name__, secrets)
        raise ConfigError(f"model {config.model!r} cannot be created: {first}") from None


def key_of(model: Any) -> list[str]:
    """The key a built chat model holds (for redaction only; never shown)."""
    secrets = []
    for attr in (
        "openai_api_key",
        "anthropic_api_key",
        "api_key",
        "mistral_api_key",
        "google_api_key",
    ):
        value = getattr(model, attr, None)
        if value is not None and hasattr(value, "get_secret_value"):
            secrets.append(value.get_secret_value())
        elif isinstance(value, str):
            secrets.append(value)
    return secrets
