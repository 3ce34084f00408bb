"""Building chat models from settings: transport policy, providers' methods, missing keys."""

from __future__ import annotations

import pytest

from nl2sql.errors import ConfigError, ErrorCode
from nl2sql.reasoning.llm.chat import (
    build_chat_model,
    chat_model_kwargs,
    endpoint,
    structured_method,
)
from nl2sql.reasoning.llm.config import ModelConfig
from nl2sql.reasoning.llm.errors import ProviderError
from nl2sql.reasoning.llm.skill import ChatModelSkill
from nl2sql.reasoning.registry import ModelRegistry


def test_an_openai_compatible_server_gets_our_timeout_and_no_sdk_retries():
    config = ModelConfig(
        model="openai:qwen2.5",
        base_url="http://127.0.0.1:8000/v1",
        api_key="sk-local-1234",
        timeout_s=7,
        options={"top_p": 0.5},
    )
    kwargs = chat_model_kwargs(config)
    assert kwargs == {
        "base_url": "http://127.0.0.1:8000/v1",
        "api_key": "sk-local-1234",
        "temperature": 0.0,
        "timeout": 7.0,
        "max_retries": 0,
        "use_responses_api": False,
        "top_p": 0.5,
    }
    model = build_chat_model(config)
    assert (model.model_name, model.request_timeout, model.max_retries) == ("qwen2.5", 7.0, 0)
    assert model.openai_api_base == "http://127.0.0.1:8000/v1"


@pytest.mark.parametrize(
    ("spec", "method"),
    [
        ("openai:gpt-4.1", "json_schema"),
        ("ollama:llama3", "json_schema"),
        ("anthropic:claude-sonnet-4-5", "function_calling"),
        ("mistralai:mistral-large", "function_calling"),
        ("groq:llama", "function_calling"),
    ],
)
def test_auto_picks_the_providers_best_structured_output_method(spec, method):
    assert structured_method(ModelConfig(model=spec)) == method
    assert structured_method(ModelConfig(model=spec, structured_output="json_mode")) == "json_mode"


def test_a_missing_key_is_provider_auth_naming_the_variable(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ProviderError) as info:
        build_chat_model(ModelConfig(model="openai:gpt-4.1"))
    assert info.value.code == ErrorCode.PROVIDER_AUTH and "set OPENAI_API_KEY" in info.value.message


def test_a_provider_without_its_package_says_what_to_install():
    pytest.importorskip("langchain")
    with pytest.raises(ConfigError, match="langchain-mistralai"):
        build_chat_model(ModelConfig(model="mistralai:mistral-large"))


def test_the_endpoint_shown_hides_url_credentials(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "https://user:hunter2@proxy.example/v1")
    shown = endpoint(ModelConfig(model="openai:gpt-4.1"))
    assert "hunter2" not in shown and "proxy.example/v1" in shown
    assert endpoint(ModelConfig(model="anthropic:claude-x")) == "the anthropic API"


def test_the_registry_builds_a_chat_skill_without_calling_anything():
    registry = ModelRegistry(
        {"ast_planner": ModelConfig(model="openai:gpt-4.1", api_key="sk-x-123456")}
    )
    skill = registry.skill("ast_planner")
    assert isinstance(skill, ChatModelSkill) and registry.skill("ast_planner") is skill
    assert registry.skill("decomposer") is registry.skill("refiner")  # one offline engine
    assert registry.spec("ast_planner") == "openai:gpt-4.1"
