"""Session: datasources + settings + models + stores; `ask()` runs one question.

`connect()` is the way in: with no arguments and no config file it opens the demo sources
(built on first use), so a newcomer's first question works anywhere.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from nl2sql.context import CancelToken, NL2SQLContext, SchemaStore
from nl2sql.errors import ConfigError
from nl2sql.reasoning.base import MODEL_NODES, ModelRegistry
from nl2sql.result import QueryResult
from nl2sql.security.rbac import UserContext
from nl2sql.settings import (
    FileConfig,
    Settings,
    SourceConfig,
    build_settings,
    find_config_file,
    load_config_file,
    project_dir,
)


class Session:
    """An analyst's connection to their datasources. Thread-safe: runs never share mutable state."""

    def __init__(self, context: NL2SQLContext, *, config: FileConfig, user: UserContext | None = None):
        self.context = context
        self.config = config
        self.user = user or UserContext()
        self._graphs: dict[bool, Any] = {}
        self._lock = threading.Lock()

    @property
    def settings(self) -> Settings:
        return self.context.settings

    @property
    def datasources(self) -> list[str]:
        return list(self.context.datasources)

    def schema(self, datasource: str):
        """The SchemaSnapshot of one datasource."""
        if datasource not in self.context.datasources:
            raise ConfigError(f"unknown datasource {datasource!r}; known: {', '.join(self.datasources)}")
        return self.context.schemas.get(datasource)

    def graph(self, execute: bool = True):
        with self._lock:
            if execute not in self._graphs:
                from nl2sql.pipeline.graph import build_graph

                self._graphs[execute] = build_graph(execute=execute)
            return self._graphs[execute]

    def ask(
        self,
        question: str,
        datasource: str | None = None,
        execute: bool = True,
        *,
        user: UserContext | None = None,
        timeout_s: float | None = None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        cancel_token: CancelToken | None = None,
    ) -> QueryResult:
        """Answer `question` through the whole pipeline; never raises for a pipeline failure."""
        from nl2sql.pipeline.runtime import run_with_graph

        if not isinstance(question, str) or not question.strip():
            raise ValueError("the question is empty")
        outcome = run_with_graph(
            self.graph(execute),
            self.context,
            question.strip(),
            datasource_id=datasource,
            user_context=user or self.user,
            timeout_s=timeout_s,
            on_event=on_event,
            cancel_token=cancel_token,
        )
        return QueryResult(outcome, self, question=question.strip(), datasource=datasource, execute=execute)

    def close(self) -> None:
        for adapter in self.context.datasources.values():
            adapter.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Session(datasources={self.datasources!r})"


def connect(
    target: str | None = None,
    *,
    config: str | Path | None = None,
    sources: Mapping[str, str | Mapping[str, Any]] | None = None,
    models: str | Mapping[str, Any] | None = None,
    user: UserContext | None = None,
    settings: Mapping[str, Any] | None = None,
) -> Session:
    """Open a Session.

    Args:
        target: "demo" for the built-in demo sources, or a config file path.
        config: a config file (default: the nearest nl2sql.toml, if any).
        sources: {id: url-or-path} or {id: {"url": ..., "description": ...}}; overrides the file.
        models: one spec for every node ("offline", "provider:model") or {node: spec}, where a
            spec may also be an object implementing that node's skill.
        user: who is asking (roles for policies).
        settings: explicit setting overrides, e.g. {"row_cap": 1000}.
    """
    if target is not None and target != "demo":
        config = target
    file_config = load_config_file(Path(config) if config else find_config_file())
    resolved = _resolve_sources(target, file_config, sources)
    the_settings = build_settings(file_config.settings, dict(settings or {}))
    folder = project_dir(the_settings, file_config)
    registry = model_registry(_model_specs(file_config.models, models))  # checked before any source opens
    context = build_context(resolved, the_settings, folder, registry)
    return Session(context, config=file_config, user=user)


def _resolve_sources(target, file_config: FileConfig, sources) -> dict[str, SourceConfig]:
    if sources:
        return {
            sid: SourceConfig(url=spec) if isinstance(spec, str | Path) else SourceConfig(**spec)
            for sid, spec in sources.items()
        }
    if target != "demo" and file_config.sources:
        return dict(file_config.sources)
    from nl2sql.demo import demo_sources, ensure_demo

    return {sid: SourceConfig(**spec) for sid, spec in demo_sources(ensure_demo()).items()}


def _model_specs(file_models: Mapping[str, str], explicit: str | Mapping[str, str] | None) -> dict[str, str]:
    """Per-node specs: file < NL2SQL_MODEL < NL2SQL_MODEL_<NODE> < explicit argument."""
    specs = {node: file_models.get(node, file_models.get("default", "offline")) for node in MODEL_NODES}
    if os.environ.get("NL2SQL_MODEL"):
        specs = dict.fromkeys(MODEL_NODES, os.environ["NL2SQL_MODEL"])
    for node in MODEL_NODES:
        if os.environ.get(f"NL2SQL_MODEL_{node.upper()}"):
            specs[node] = os.environ[f"NL2SQL_MODEL_{node.upper()}"]
    if isinstance(explicit, str):
        specs = dict.fromkeys(MODEL_NODES, explicit)
    elif explicit:
        specs.update(explicit)
    return specs


def model_registry(model_specs: Mapping[str, Any]) -> ModelRegistry:
    return ModelRegistry(
        {n: v for n, v in model_specs.items() if v is None or isinstance(v, str)},
        # Any other value is a ready skill object (e.g. a scripted model in tests).
        skills={n: v for n, v in model_specs.items() if v is not None and not isinstance(v, str)},
    )


def build_context(sources: Mapping[str, SourceConfig], settings: Settings, folder: Path,
                  models: ModelRegistry) -> NL2SQLContext:
    """Open every datasource and wire the services the nodes use."""
    from nl2sql.datasources.factory import open_datasource
    from nl2sql.execution.artifacts import ArtifactStore

    adapters = {
        sid: open_datasource(
            sid, src.location, description=src.description,
            row_cap=src.row_cap or settings.row_cap,
            timeout_s=src.timeout_s or settings.statement_timeout_s,
            sample_values=settings.sample_values,
        )
        for sid, src in sources.items()
    }
    descriptions = {sid: src.description or "" for sid, src in sources.items()}
    schemas = SchemaStore(adapters, folder / "snapshots")
    ctx = NL2SQLContext(
        settings=settings,
        datasources=adapters,
        schemas=schemas,
        models=models,
        artifacts=ArtifactStore(folder / "artifacts", settings.artifact_path_template),
        descriptions=descriptions,
    )
    # Created on first use only: by the resolver when several sources are registered, by the
    # schema retriever when a schema is large.
    ctx.vector_store_factory = lambda breaker: _open_vector_store(
        folder / "chroma", breaker, adapters, schemas, descriptions
    )
    return ctx


def _open_vector_store(path: Path, breaker, adapters, schemas: SchemaStore, descriptions) -> Any:
    """The chromadb store with every datasource and its tables indexed (idempotent)."""
    from nl2sql.retrieval.store import DatasourceDoc, VectorStore

    store = VectorStore(path, breaker=breaker)
    docs = []
    for sid in adapters:
        snapshot = schemas.get(sid)
        store.index_tables(sid, snapshot)
        summaries = [t.description or t.key.replace("_", " ") for t in snapshot.tables]
        docs.append(DatasourceDoc(id=sid, description=descriptions.get(sid, ""), table_summaries=summaries))
    store.index_datasources(docs)
    return store
