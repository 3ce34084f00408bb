"""Model settings per node: file [models], environment, explicit argument, and provenance."""

from __future__ import annotations

import pytest

import nl2sql
from nl2sql.errors import ConfigError
from nl2sql.reasoning.llm.config import ModelConfig, resolve_models
from nl2sql.reasoning.registry import MODEL_NODES, ModelRegistry

FILE = {
    "default": "openai:gpt-4.1-mini",
    "timeout_s": 12,
    "answer_synthesizer": "offline",
    "ast_planner": {
        "model": "openai:qwen-coder",
        "base_url": "http://127.0.0.1:8000/v1",
        "parse_retries": 4,
    },
}


def test_file_sets_a_default_shared_options_and_per_node_tables():
    models = resolve_models(MODEL_NODES, FILE, None, {})
    planner, synth, refiner = (
        models.configs[n] for n in ("ast_planner", "answer_synthesizer", "refiner")
    )
    assert (planner.model, planner.base_url, planner.parse_retries, planner.timeout_s) == (
        "openai:qwen-coder",
        "http://127.0.0.1:8000/v1",
        4,
        12.0,
    )
    assert (
        synth.is_offline and refiner.model == "openai:gpt-4.1-mini" and refiner.parse_retries == 2
    )
    assert models.sources["ast_planner"]["base_url"] == "file [models.ast_planner]"
    assert models.sources["refiner"]["timeout_s"] == "file [models].timeout_s"
    assert models.sources["refiner"]["max_retries"] == "default"


def test_environment_beats_the_file_and_drops_the_replaced_models_own_options():
    env = {
        "NL2SQL_MODEL": "anthropic:claude-x",
        "NL2SQL_MODEL_DECOMPOSER": "openai:gpt-y",
        "NL2SQL_MODEL_TIMEOUT_S": "3.5",
    }
    models = resolve_models(MODEL_NODES, FILE, None, env)
    planner = models.configs["ast_planner"]
    # The planner's base_url belonged to the file's planner model, which the environment replaced.
    assert (planner.model, planner.base_url, planner.parse_retries) == (
        "anthropic:claude-x",
        None,
        2,
    )
    assert models.configs["decomposer"].model == "openai:gpt-y"
    assert models.configs["refiner"].timeout_s == 3.5
    assert models.sources["decomposer"]["model"] == "env NL2SQL_MODEL_DECOMPOSER"
    assert models.sources["refiner"]["timeout_s"] == "env NL2SQL_MODEL_TIMEOUT_S"


def test_explicit_argument_beats_environment_and_accepts_tables_configs_and_objects():
    skill = object()
    explicit = {
        "default": "offline",
        "ast_planner": {"model": "openai:m", "parse_retries": 0},
        "refiner": ModelConfig(model="ollama:llama3", timeout_s=9),
        "answer_synthesizer": skill,
    }
    models = resolve_models(MODEL_NODES, FILE, explicit, {"NL2SQL_MODEL": "openai:env"})
    assert models.configs["decomposer"].is_offline
    assert models.configs["ast_planner"].parse_retries == 0
    assert (models.configs["refiner"].model, models.configs["refiner"].timeout_s) == (
        "ollama:llama3",
        9,
    )
    assert (
        models.skills == {"answer_synthesizer": skill}
        and "answer_synthesizer" not in models.configs
    )
    assert models.sources["ast_planner"]["model"] == "argument models['ast_planner']"


def test_none_means_no_model_and_the_node_reports_missing_llm():
    registry = ModelRegistry(resolve_models(MODEL_NODES, {}, {"ast_planner": None}, {}).configs)
    assert registry.spec("ast_planner") is None and registry.spec("decomposer") == "offline"
    with pytest.raises(nl2sql.NL2SQLError, match="no model is configured"):
        registry.skill("ast_planner")


@pytest.mark.parametrize(
    ("file_models", "message"),
    [
        ({"planner": "openai:x"}, "unknown key"),
        ({"default": "gpt-4o"}, "must be 'offline' or 'provider:model'"),
        ({"timeout_s": -1}, "timeout_s"),
        ({"ast_planner": {"model": "openai:x", "colour": "red"}}, "colour"),
    ],
)
def test_invalid_model_settings_are_config_errors_naming_the_problem(file_models, message):
    with pytest.raises(ConfigError, match=message):
        resolve_models(MODEL_NODES, file_models, None, {})


def test_a_key_is_never_part_of_an_error_message_or_the_public_view():
    secret = "sk-live-abcdef0123456789"
    with pytest.raises(ConfigError) as info:
        resolve_models(MODEL_NODES, {"api_key": secret, "max_retries": "many"}, None, {})
    assert secret not in str(info.value)
    config = resolve_models(
        MODEL_NODES, {"api_key": secret, "default": "openai:m"}, None, {}
    ).configs["decomposer"]
    assert secret not in repr(config) and secret not in str(config.public())
    assert config.public()["api_key"] == "set"


def test_connect_rejects_a_bad_spec_before_opening_any_source(tmp_path):
    with pytest.raises(ConfigError, match="provider:model"):
        nl2sql.connect(sources={"x": str(tmp_path / "missing.sqlite")}, models="not-a-spec")
