"""connect(): from a configuration to an open Session, the context composed once.

The order matters: everything that can be refused without touching a database (the config
file, settings, model specs, policies, hooks, curated answers) is checked first, then the
datasources are opened; a failure after that closes what was opened.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nl2sql.context import NL2SQLContext
from nl2sql.errors import ConfigError
from nl2sql.progress import current, listening, step
from nl2sql.reasoning.llm.config import ResolvedModels, resolve_models
from nl2sql.reasoning.registry import MODEL_NODES, ModelRegistry
from nl2sql.schema.store import SchemaStore
from nl2sql.security.rbac import UserContext
from nl2sql.session import Session
from nl2sql.settings import (
    FileConfig,
    Settings,
    SourceConfig,
    build_settings,
    check_source_id,
    expand_env,
    find_config_file,
    load_config_file,
    project_dir,
)

if TYPE_CHECKING:
    from nl2sql.execution.retention import Retention
    from nl2sql.governance.services import Governance
    from nl2sql.retrieval.breaker import CircuitBreaker
    from nl2sql.retrieval.exact import Search
    from nl2sql.retrieval.store import VectorStore
    from nl2sql.schema.models import SchemaSnapshot
    from nl2sql.semantic.load import LoadedLayer


def connect(
    target: str | None = None,
    *,
    config: str | Path | None = None,
    sources: Mapping[str, str | Mapping[str, Any]] | None = None,
    frames: Mapping[str, Any] | None = None,
    models: str | Mapping[str, Any] | None = None,
    user: UserContext | None = None,
    settings: Mapping[str, Any] | None = None,
    semantic: str | Path | Mapping[str, Any] | None = None,
    on_progress: Callable[[dict[str, Any]], None] | None = None,
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
        semantic: a semantic layer (YAML file path, or its content as a mapping) replacing the
            one the config names (docs/configuration.md); checked before the session opens.
        on_progress: told of the slow first steps as they run (building the demo data,
            opening each datasource): `nl2sql.progress` events.
    """
    with listening(on_progress or current()):  # none given: whoever listens already hears it
        return _connect(target, config, sources, frames, models, user, settings, semantic)


def _connect(target: str | None, config: str | Path | None,
             sources: Mapping[str, str | Mapping[str, Any]] | None, frames: Mapping[str, Any] | None,
             models: str | Mapping[str, Any] | None, user: UserContext | None,
             settings: Mapping[str, Any] | None,
             semantic: str | Path | Mapping[str, Any] | None) -> Session:
    from nl2sql.governance.services import build_governance
    from nl2sql.semantic.load import TAUGHT_LAYER, load_layer, read_layer_file

    if target is not None and target != "demo":
        config = target
    file_config = load_config_file(Path(config) if config else find_config_file())
    resolved = _resolve_sources(target, file_config, sources, frames)
    file_settings = file_config.settings
    if _is_demo(target, file_config, sources, frames):
        from nl2sql.demo import DEMO_SETTINGS

        # the demo's pinned reference date, below the file, the environment and `settings`
        file_settings = {**DEMO_SETTINGS, **file_settings}
    the_settings = build_settings(file_settings, dict(settings or {}))
    folder = project_dir(the_settings, file_config)
    registry = model_registry(_model_specs(file_config.models, models))  # checked before any source opens
    governance = build_governance(file_config, folder)
    layer = load_layer(file_config, semantic)  # its shape now; its names once the sources open
    taught = folder / TAUGHT_LAYER
    if layer is None and semantic is None and taught.is_file():
        # what session.teach() wrote when the config named no layer file: used from then on
        layer, semantic = read_layer_file(taught), taught
    cleanup: Callable[[], None] = lambda: None  # noqa: E731
    if frames:
        from nl2sql.datasources.frames import FRAMES_ID, frames_database

        # A private DuckDB copy, opened read-only like any DuckDB file; deleted with the session.
        path, cleanup = frames_database(FRAMES_ID, frames)
        resolved[FRAMES_ID] = SourceConfig(
            url=f"duckdb:///{path}", description=f"DataFrames: {', '.join(map(str, frames))}"
        )
    try:
        context = build_context(resolved, the_settings, folder, registry, governance, layer)
    except BaseException:
        cleanup()
        raise
    session = Session(context, config=file_config, folder=folder, user=user)
    if isinstance(semantic, str | Path):
        session.layer_file = Path(semantic)  # what teach() writes to
    session.layer_given = isinstance(semantic, Mapping) and bool(semantic)
    session.on_close(cleanup)
    return session


def model_registry(models: ResolvedModels) -> ModelRegistry:
    """The registry of resolved settings; ready skill objects (e.g. scripted models) as given."""
    return ModelRegistry(models.configs, skills=models.skills, sources=models.sources)


def build_context(sources: Mapping[str, SourceConfig], settings: Settings, folder: Path,
                  models: ModelRegistry, governance: Governance | None = None,
                  layer: LoadedLayer | None = None) -> NL2SQLContext:
    """Open every datasource and wire the services the nodes use (closed again on failure).

    With a semantic layer, the schemas of the sources it names are read now and checked
    against it: a bad entry refuses the session instead of leaving it half-configured."""
    from nl2sql.datasources.factory import open_datasource
    from nl2sql.execution.artifacts import ArtifactStore

    adapters: dict[str, Any] = {}
    try:
        for sid, src in sources.items():
            with step("open", f"Opening datasource {sid}"):
                adapters[sid] = open_datasource(
                    sid, src.location, description=src.description,
                    row_cap=src.row_cap or settings.row_cap,
                    timeout_s=src.timeout_s or settings.statement_timeout_s,
                    sample_values=settings.sample_values,
                )
        descriptions = {sid: src.description or "" for sid, src in sources.items()}
        redact = governance.redact_samples if governance is not None else None
        annotate = None
        if layer is not None:
            from nl2sql.semantic.apply import annotator
            from nl2sql.semantic.check import check_layer

            annotate = annotator(layer)
        schemas = SchemaStore(adapters, folder / "snapshots", redact=redact, annotate=annotate)
        if layer is not None:
            check_layer(layer, schemas.get, list(adapters))

        def open_vector_store(breaker: CircuitBreaker) -> Search:
            # Created on first use only: by the resolver when several sources are registered, by
            # the schema retriever when a schema is large.
            with step("index", "Building the schema search index"):
                return _open_vector_store(folder / "chroma", breaker, adapters, schemas,
                                          descriptions, redact, exact_max=settings.exact_search_max_tables)

        return NL2SQLContext(
            settings=settings,
            datasources=adapters,
            schemas=schemas,
            models=models,
            artifacts=ArtifactStore(settings.artifact_root or folder / "artifacts",
                                    settings.artifact_path_template,
                                    retention=retention_of(settings),
                                    storage_options=settings.artifact_storage_options),
            descriptions=descriptions,
            vector_store_factory=open_vector_store,
            governance=governance,
            relationships=list(layer.layer.relationships) if layer is not None else [],
        )
    except BaseException:
        for adapter in adapters.values():
            adapter.close()
        raise


def retention_of(settings: Settings) -> Retention:
    """The artifact retention the settings ask for; a run's own files are kept while it may run."""
    from nl2sql.execution.retention import Retention

    days, keep = settings.artifact_retention_days, settings.artifact_retention
    return Retention(keep=keep or None, max_age_s=days * 86400 if days else None,
                     grace_s=settings.pipeline_timeout_s)


def _resolve_sources(target: str | None, file_config: FileConfig,
                     sources: Mapping[str, Any] | None,
                     frames: Mapping[str, Any] | None = None) -> dict[str, SourceConfig]:
    if frames and "frames" in (sources or {}):
        raise ConfigError("the source id 'frames' is taken by connect(frames=...); rename the source")
    if sources:
        return {
            check_source_id(sid): SourceConfig(url=expand_env(str(spec)))
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


def _is_demo(target: str | None, file_config: FileConfig,
             sources: Mapping[str, Any] | None, frames: Mapping[str, Any] | None) -> bool:
    """Whether `_resolve_sources` answers with the demo's sources."""
    if sources:
        return False
    if target == "demo":
        return True
    return not file_config.sources and not frames


def _model_specs(file_models: Mapping[str, Any], explicit: Any) -> ResolvedModels:
    """Per-node model settings: file < environment (NL2SQL_MODEL*) < explicit argument."""
    return resolve_models(MODEL_NODES, file_models, explicit)


def _open_vector_store(path: Path, breaker: CircuitBreaker, adapters: Mapping[str, Any],
                       schemas: SchemaStore, descriptions: Mapping[str, str],
                       redact: Callable[[SchemaSnapshot], SchemaSnapshot] | None = None, *,
                       exact_max: int = 0) -> Search:
    """Every datasource and its tables indexed for search: in memory (`ExactSearch`, no chromadb
    import) up to `exact_max` tables in all, else the persisted chromadb store
    (idempotent). Sample values of denied columns are never indexed (the store is a file anyone
    with it can read, and one index serves every user)."""
    from nl2sql.retrieval.documents import DatasourceDoc
    from nl2sql.retrieval.exact import ExactSearch

    snapshots = {sid: schemas.get(sid) for sid in adapters}
    snapshots = {sid: redact(s) if redact is not None else s for sid, s in snapshots.items()}
    store: ExactSearch | VectorStore
    if sum(len(s.tables) for s in snapshots.values()) <= exact_max:
        store = ExactSearch()
    else:
        from nl2sql.retrieval.store import VectorStore

        store = VectorStore(path, breaker=breaker)
    docs = []
    for sid, snapshot in snapshots.items():
        store.index_tables(sid, snapshot)
        summaries = [t.description or t.key.replace("_", " ") for t in snapshot.tables]
        docs.append(DatasourceDoc(id=sid, description=descriptions.get(sid, ""), table_summaries=summaries))
    store.index_datasources(docs)
    return store
