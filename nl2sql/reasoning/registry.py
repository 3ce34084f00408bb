"""The per-node model registry: which skill object answers for each model node.

A node's spec is `"offline"` (the built-in engine) or `"provider:model"` (a chat model); tests
and notebooks may hand in ready skill objects instead.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from nl2sql.errors import ConfigError, NL2SQLError
from nl2sql.names import ANSWER_SYNTHESIZER, ANSWERABILITY, AST_PLANNER, DECOMPOSER, REFINER
from nl2sql.progress import step
from nl2sql.reasoning.llm.config import ModelConfig

#: The nodes that make model decisions, in pipeline order.
MODEL_NODES = (ANSWERABILITY, DECOMPOSER, AST_PLANNER, REFINER, ANSWER_SYNTHESIZER)


class MissingModelError(NL2SQLError):
    """A node needs a model and none is configured (MISSING_LLM)."""


class ModelRegistry:
    """Maps each model node to a ModelConfig ("offline" or "provider:model") and builds its skill
    once. Offline nodes share one engine (and its snapshot indexes)."""

    def __init__(
        self,
        specs: Mapping[str, str | ModelConfig | None] | None = None,
        default: str | None = "offline",
        *,
        skills: Mapping[str, Any] | None = None,
        sources: Mapping[str, Mapping[str, str]] | None = None,
    ):
        """`skills` supplies ready skill objects per node (e.g. a scripted fake in tests);
        `sources` says where each node's settings came from (shown by `nl2sql doctor`)."""
        unknown = (set(specs or {}) | set(skills or {})) - set(MODEL_NODES)
        if unknown:
            raise ConfigError(
                f"unknown model node(s) {sorted(unknown)}; known nodes: {', '.join(MODEL_NODES)}"
            )
        given = dict(specs or {})
        self._configs = {node: _as_config(given.get(node, default)) for node in MODEL_NODES}
        self._skills: dict[str, Any] = dict(skills or {})
        self._ready = frozenset(self._skills)  # given objects, not built from a config
        self._offline: Any = None
        self.sources = {node: dict(v) for node, v in (sources or {}).items()}
        self._lock = threading.Lock()

    def spec(self, node: str) -> str | None:
        config = self._configs[node]
        return config.model if config is not None else None

    def config(self, node: str) -> ModelConfig | None:
        """The node's model settings (None when a ready skill object or nothing is configured)."""
        return None if node in self._ready else self._configs[node]

    @property
    def specs(self) -> dict[str, str | None]:
        return {node: self.spec(node) for node in MODEL_NODES}

    def skill(self, node: str) -> Any:
        """The object implementing `node`'s skill; MissingModelError when none is configured."""
        with self._lock:
            if node in self._skills:
                return self._skills[node]
            config = self._configs.get(node)
            if config is None:
                raise MissingModelError(f"no model is configured for node {node!r}")
            if config.is_offline:
                if self._offline is None:
                    with step("model", "Loading the offline engine"):
                        self._offline = _build_skill(config)
                self._skills[node] = self._offline
            else:
                with step("model", f"Loading model {config.model} for {node}"):
                    self._skills[node] = _build_skill(config)
            return self._skills[node]


def _as_config(value: str | ModelConfig | None) -> ModelConfig | None:
    if value is None or value == "":
        return None
    if isinstance(value, ModelConfig):
        return value
    try:
        return ModelConfig(model=value)
    except ValueError as exc:
        raise ConfigError(f"model spec {value!r} must be 'offline' or 'provider:model'") from exc


def _build_skill(config: ModelConfig) -> Any:
    if config.is_offline:
        from nl2sql.reasoning.offline.engine import OfflineEngine

        return OfflineEngine()
    from nl2sql.reasoning.llm.skill import ChatModelSkill

    return ChatModelSkill(config)
