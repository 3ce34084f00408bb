"""Session: datasources + settings + models + stores; `ask()` runs one question.

`connect()` is the way in: with no arguments and no config file it opens the demo sources
(built on first use), so a newcomer's first question works anywhere.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from nl2sql.context import CancelToken, NL2SQLContext, SchemaStore
from nl2sql.errors import ConfigError
from nl2sql.reasoning.llm.config import ResolvedModels, resolve_models
from nl2sql.reasoning.registry import MODEL_NODES, ModelRegistry
from nl2sql.result import QueryResult
from nl2sql.security.rbac import UserContext
from nl2sql.settings import (
    FileConfig,
    Settings,
    SourceConfig,
    build_settings,
    expand_env,
    find_config_file,
    load_config_file,
    project_dir,
)


class Session:
    """An analyst's connection to their datasources. Thread-safe: runs never share mutable state."""

    def __init__(self, context: NL2SQLContext, *, config: FileConfig, user: UserContext | None = None):
        from nl2sql.governance.services import build_governance, governed
        from nl2sql.governance.stores import ApprovalStore, PinStore

        folder = project_dir(context.settings, config)
        #: policies (RBAC), hooks and curated answers, as the config declares them
        self.governance = build_governance(config, folder)
        self.context = governed(context, self.governance)
        self.config = config
        self.user = user or UserContext()
        #: pinned runs and approval decisions, persisted in the project folder
        self.pins = PinStore(folder / "pins")
        self.approvals = ApprovalStore(folder / "approvals")
        self._graphs: dict[tuple[bool, bool], Any] = {}
        self._lock = threading.Lock()

    @property
    def hooks(self):
        """The session's hooks: `session.hooks.add("execute.before", fn)`."""
        return self.governance.hooks

    @property
    def policies(self):
        """The role policies in force (None: no policy, everything allowed)."""
        return self.governance.policies

    def set_policies(self, policies: Any) -> None:
        """Replace the role policies: a PolicySet, a {"roles": ...} mapping, a YAML path, or None."""
        from nl2sql.security.rbac import PolicySet

        if policies is not None and not isinstance(policies, PolicySet):
            policies = (PolicySet.parse(policies) if isinstance(policies, Mapping)
                        else PolicySet.load(policies))
        self.governance.policies = policies

    def unpin(self, question: str, datasource: str | None = None) -> bool:
        """Forget the pinned run of `question`; True when there was one."""
        return self.pins.remove(question.strip(), datasource)

    @property
    def settings(self) -> Settings:
        return self.context.settings

    @property
    def datasources(self) -> list[str]:
        return list(self.context.datasources)

    def schema(self, datasource: str):
        """The SchemaSnapshot of one datasource, as the session's user may see it."""
        if datasource not in self.context.datasources:
            raise ConfigError(f"unknown datasource {datasource!r}; known: {', '.join(self.datasources)}")
        return self.governance.access_for(self.user).filter(self.context.schemas.get(datasource))

    def graph(self, execute: bool = True):
        """The compiled graph; with curated answers configured, the curated matcher leads it."""
        key = (execute, self.governance.curated_configured)
        with self._lock:
            if key not in self._graphs:
                from nl2sql.pipeline.graph import build_graph

                self._graphs[key] = build_graph(execute=execute, curated=key[1])
            return self._graphs[key]

    def ask(
        self,
        question: str,
        datasource: str | None = None,
        execute: bool = True,
        plan: Any = None,
        *,
        user: UserContext | None = None,
        timeout_s: float | None = None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        cancel_token: CancelToken | None = None,
    ) -> QueryResult:
        """Answer `question` through the whole pipeline; never raises for a pipeline failure.

        `plan` (a PlanModel or its dict) runs that plan instead of planning (a pin of source
        "supplied"); otherwise a pin stored for the question (`QueryResult.pin()`) is used.
        """
        from nl2sql.governance.actions import supplied_pin

        if not isinstance(question, str) or not question.strip():
            raise ValueError("the question is empty")
        question = question.strip()
        if plan is not None:
            pinned = supplied_pin(self.context, question, plan, datasource)
        else:
            pinned = self.pins.get(question, datasource)
        return self._run(question, datasource, execute, user=user or self.user, pinned=pinned,
                         timeout_s=timeout_s, on_event=on_event, cancel_token=cancel_token)

    def _run(self, question: str, datasource: str | None, execute: bool, *, user: UserContext | None,
             pinned: Any = None, approvals: list | None = None, timeout_s: float | None = None,
             on_event: Callable[[dict[str, Any]], None] | None = None,
             cancel_token: CancelToken | None = None) -> QueryResult:
        """One run with the entrypoint's fields: the pin, and the approval decisions on record
        for the question plus `approvals` (which win)."""
        from nl2sql.pipeline.runtime import run_with_graph

        decisions = {a.request_id: a for a in self.approvals.for_question(question)}
        decisions.update({a.request_id: a for a in approvals or []})
        outcome = run_with_graph(
            self.graph(execute),
            self.context,
            question,
            datasource_id=datasource,
            user_context=user or self.user,
            timeout_s=timeout_s,
            on_event=on_event,
            cancel_token=cancel_token,
            initial={"pinned": pinned, "approvals": list(decisions.values())},
        )
        return QueryResult(outcome, self, question=question, datasource=datasource, execute=execute,
                           user=user or self.user)

    def close(self) -> None:
        """Close every datasource and delete what the session made for itself (frames copies)."""
        for adapter in self.context.datasources.values():
            adapter.close()
        finalizer = getattr(self, "_finalizer", None)
        if finalizer is not None:
            finalizer()  # runs at most once; also runs if the session is garbage-collected

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
    frames: Mapping[str, Any] | None = None,
    models: str | Mapping[str, Any] | None = None,
    user: UserContext | None = None,
    settings: Mapping[str, Any] | None = None,
) -> Session:
    """Open a Session.

    Args:
        target: "demo" for the built-in demo sources, or a config file path.
        config: a config file (default: the nearest nl2sql.toml, if any).
        sources: {id: url-or-path} or {id: {"url": ..., "description": ...}}; overrides the file.
            `${ENV_VAR}` in a URL is read from the environment (keep passwords there).
        frames: {table name: pandas/polars DataFrame, Arrow table, or CSV/Parquet path or glob};
            one more datasource, id "frames", a read-only copy of them made now.
        models: one spec for every node ("offline", "provider:model") or {node: spec}, where a
            spec may also be an object implementing that node's skill.
        user: who is asking (roles for policies).
        settings: explicit setting overrides, e.g. {"row_cap": 1000}.
    """
    if target is not None and target != "demo":
        config = target
    file_config = load_config_file(Path(config) if config else find_config_file())
    resolved = _resolve_sources(target, file_config, sources, frames)
    the_settings = build_settings(file_config.settings, dict(settings or {}))
    folder = project_dir(the_settings, file_config)
    registry = model_registry(_model_specs(file_config.models, models))  # checked before any source opens
    cleanup: Callable[[], None] = lambda: None  # noqa: E731
    if frames:
        from nl2sql.datasources.frames import FRAMES_ID, frames_database

        # A private DuckDB copy, opened read-only like any DuckDB file; deleted with the session.
        path, cleanup = frames_database(FRAMES_ID, frames)
        resolved[FRAMES_ID] = SourceConfig(
            url=f"duckdb:///{path}", description=f"DataFrames: {', '.join(map(str, frames))}"
        )
    try:
        context = build_context(resolved, the_settings, folder, registry)
    except BaseException:
        cleanup()
        raise
    session = Session(context, config=file_config, user=user)
    session._finalizer = weakref.finalize(session, cleanup)
    return session


def _resolve_sources(target, file_config: FileConfig, sources, frames=None) -> dict[str, SourceConfig]:
    if frames and "frames" in (sources or {}):
        raise ConfigError("the source id 'frames' is taken by connect(frames=...); rename the source")
    if sources:
        return {
            sid: SourceConfig(url=expand_env(str(spec)))
            if isinstance(spec, str | Path)
            else SourceConfig(**expand_env(dict(spec)))
            for sid, spec in sources.items()
        }
    if target != "demo" and file_config.sources:
        return dict(file_config.sources)
    if frames and target != "demo":
        return {}  # the frames are the only source: no demo
    from nl2sql.demo import demo_sources, ensure_demo

    return {sid: SourceConfig(**spec) for sid, spec in demo_sources(ensure_demo()).items()}


def _model_specs(file_models: Mapping[str, Any], explicit: Any) -> ResolvedModels:
    """Per-node model settings: file < environment (NL2SQL_MODEL*) < explicit argument."""
    return resolve_models(MODEL_NODES, file_models, explicit)


def model_registry(models: ResolvedModels) -> ModelRegistry:
    """The registry of resolved settings; ready skill objects (e.g. scripted models) as given."""
    return ModelRegistry(models.configs, skills=models.skills, sources=models.sources)


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
