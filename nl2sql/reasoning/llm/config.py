"""ModelConfig (one node's model and its options) and the resolution of `[models]`, environment
and explicit arguments into one ModelConfig per node, remembering where each value came from.

Precedence (ARCHITECTURE §2b): explicit argument > environment > config file > defaults.

    [models]
    default = "openai:gpt-4.1-mini"        # every node ("offline" is the built-in engine)
    timeout_s = 20                         # shared options apply to every node
    answer_synthesizer = "offline"         # a node given as a spec ...
    [models.ast_planner]                   # ... or as a table with options of its own
    model = "openai:qwen2.5-coder"
    base_url = "http://127.0.0.1:8000/v1"

Environment: NL2SQL_MODEL (every node), NL2SQL_MODEL_<NODE> (one node), NL2SQL_MODEL_<OPTION>
for a shared option (e.g. NL2SQL_MODEL_TIMEOUT_S), and each provider's own variables
(OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, ...), which its client reads itself.
A node-table option is dropped when a higher layer replaces that node's model: it belonged to it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from nl2sql.errors import ConfigError

OFFLINE = "offline"
StructuredMethod = Literal["auto", "json_schema", "function_calling", "json_mode"]


class ModelConfig(BaseModel):
    """One node's model: a spec ("offline" or "provider:model") and how to call it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = OFFLINE
    base_url: str | None = None  # an OpenAI-compatible server (vLLM, llama.cpp, LM Studio), ...
    api_key: SecretStr | None = None  # default: the provider's own variable (OPENAI_API_KEY, ...)
    timeout_s: float = Field(30.0, gt=0, description="per request; a hang ends as PROVIDER_TIMEOUT")
    max_retries: int = Field(
        2, ge=0, le=10, description="re-sends on 429 / 5xx / refused connection"
    )
    parse_retries: int = Field(
        2, ge=0, le=10, description="re-asks when the answer does not validate"
    )
    temperature: float | None = Field(0.0, ge=0.0, le=2.0)
    max_tokens: int | None = Field(None, ge=1)
    structured_output: StructuredMethod = "auto"
    context_tokens: int = Field(6000, ge=200, description="budget for the schema part of a prompt")
    options: dict[str, Any] = Field(default_factory=dict)  # passed to init_chat_model as they are

    @field_validator("model")
    @classmethod
    def _spec(cls, value: str) -> str:
        value = value.strip()
        provider, _, name = value.partition(":")
        if value != OFFLINE and not (provider and name):
            raise ValueError(f"model spec {value!r} must be 'offline' or 'provider:model'")
        return value

    @property
    def is_offline(self) -> bool:
        return self.model == OFFLINE

    @property
    def provider(self) -> str | None:
        return None if self.is_offline else self.model.partition(":")[0].replace("-", "_").lower()

    def public(self) -> dict[str, Any]:
        """The settings as shown to a person: the key only as set / not set."""
        data = self.model_dump(exclude={"api_key"})
        data["api_key"] = "set" if self.api_key else None
        return data


OPTIONS = tuple(f for f in ModelConfig.model_fields if f != "model")
_SPEC_KEYS = ("default", "model")


@dataclass
class ResolvedModels:
    """Per node: its ModelConfig (or a ready skill object) and where each value came from."""

    configs: dict[str, ModelConfig | None]  # None: no model (a node needing one gives MISSING_LLM)
    sources: dict[str, dict[str, str]]
    skills: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Layer:
    values: dict[str, Any] = field(default_factory=dict)
    node_specific: set[str] = field(default_factory=set)
    sources: dict[str, str] = field(default_factory=dict)

    def put(self, key: str, value: Any, source: str, *, node_specific: bool = False) -> None:
        if key == "model" and key in self.values and self.sources.get(key) != source:
            # A new model from a higher layer: options tied to the old model go with it.
            for option in list(self.node_specific):
                self.values.pop(option, None)
                self.sources.pop(option, None)
            self.node_specific.clear()
        self.values[key] = value
        self.sources[key] = source
        if node_specific and key != "model":
            self.node_specific.add(key)


def resolve_models(
    nodes: tuple[str, ...],
    file_models: Mapping[str, Any] | None = None,
    explicit: Any = None,
    environ: Mapping[str, str] | None = None,
) -> ResolvedModels:
    """One ModelConfig per node from the file's [models], the environment and `explicit`.

    `explicit` is a spec for every node, a ModelConfig, or a mapping whose keys are node names,
    "default" or shared option names; a node's value may be a spec, a mapping of ModelConfig
    fields, a ModelConfig, or a ready skill object (anything else, e.g. a scripted model).
    """
    env = os.environ if environ is None else environ
    layers = {node: _Layer() for node in nodes}
    skills: dict[str, Any] = {}
    _apply_file(layers, dict(file_models or {}), nodes)
    _apply_env(layers, env, nodes)
    _apply_explicit(layers, explicit, nodes, skills)
    configs, sources = {}, {}
    for node, layer in layers.items():
        if node in skills:
            continue
        none = "model" in layer.values and layer.values["model"] is None
        configs[node] = None if none else _validate(node, layer.values)
        sources[node] = {k: layer.sources.get(k, "default") for k in ("model", *OPTIONS)}
    return ResolvedModels(configs=configs, sources=sources, skills=skills)


def _apply_file(layers: dict[str, _Layer], data: dict[str, Any], nodes: tuple[str, ...]) -> None:
    unknown = set(data) - set(nodes) - set(OPTIONS) - set(_SPEC_KEYS)
    if unknown:
        known = ", ".join((*_SPEC_KEYS, *nodes, *OPTIONS))
        raise ConfigError(f"[models]: unknown key(s) {sorted(unknown)}; known: {known}")
    for key in _SPEC_KEYS:
        if key in data:
            for layer in layers.values():
                layer.put("model", data[key], f"file [models].{key}")
    for option in OPTIONS:
        if option in data:
            for layer in layers.values():
                layer.put(option, data[option], f"file [models].{option}")
    for node in nodes:
        value = data.get(node)
        if isinstance(value, str):
            layers[node].put("model", value, f"file [models].{node}")
        elif isinstance(value, Mapping):
            # The model first: putting it drops options tied to the model it replaces.
            for key, item in sorted(value.items(), key=lambda kv: kv[0] != "model"):
                layers[node].put(key, item, f"file [models.{node}]", node_specific=True)


def _apply_env(layers: dict[str, _Layer], env: Mapping[str, str], nodes: tuple[str, ...]) -> None:
    for option in OPTIONS:
        name = f"NL2SQL_MODEL_{option.upper()}"
        if option not in ("api_key", "options") and env.get(name):
            for layer in layers.values():
                layer.put(option, env[name], f"env {name}")
    if env.get("NL2SQL_MODEL"):
        for layer in layers.values():
            layer.put("model", env["NL2SQL_MODEL"], "env NL2SQL_MODEL")
    for node in nodes:
        name = f"NL2SQL_MODEL_{node.upper()}"
        if env.get(name):
            layers[node].put("model", env[name], f"env {name}")


def _apply_explicit(
    layers: dict[str, _Layer], explicit: Any, nodes: tuple[str, ...], skills: dict[str, Any]
) -> None:
    if explicit is None:
        return
    if isinstance(explicit, str | ModelConfig):
        explicit = {"default": explicit}
    if not isinstance(explicit, Mapping):
        raise ConfigError("models= takes a spec, a ModelConfig or a mapping {node: spec}")
    unknown = set(explicit) - set(nodes) - set(OPTIONS) - set(_SPEC_KEYS)
    if unknown:
        raise ConfigError(f"models=: unknown key(s) {sorted(unknown)}; nodes: {', '.join(nodes)}")
    for key in ("default", "model"):
        if key in explicit:
            for node in nodes:
                _put_explicit(layers[node], explicit[key], node, skills, "argument models")
    for option in OPTIONS:
        if option in explicit:
            for layer in layers.values():
                layer.put(option, explicit[option], f"argument models[{option!r}]")
    for node in nodes:
        if node in explicit:
            _put_explicit(layers[node], explicit[node], node, skills, f"argument models[{node!r}]")


def _put_explicit(
    layer: _Layer, value: Any, node: str, skills: dict[str, Any], source: str
) -> None:
    if isinstance(value, ModelConfig):
        value = value.model_dump(exclude_unset=True) | {"model": value.model}
    if value is None or isinstance(value, str):
        layer.put("model", value, source)
    elif isinstance(value, Mapping):
        if "model" in value:
            layer.put("model", value["model"], source)
        for key, item in value.items():
            if key != "model":
                layer.put(key, item, source, node_specific=True)
    else:
        skills[node] = value  # a ready skill object
        return
    skills.pop(node, None)


def _validate(node: str, values: dict[str, Any]) -> ModelConfig:
    try:
        return ModelConfig(**values)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "model"
        # The message names the field, never its value (it may be a key).
        raise ConfigError(f"model settings for {node}: {where}: {first['msg']}") from None
    except TypeError as exc:
        raise ConfigError(f"model settings for {node}: {exc}") from None
