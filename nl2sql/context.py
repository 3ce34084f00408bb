"""NL2SQLContext: the services every node uses, passed as LangGraph runtime context, and the
per-run CancelToken.

Nodes never reach for globals: the datasource registry, the schema store, the model registry,
the vector store, the artifact store, the settings and this run's cancellation token all come
from here. A Session builds one base context and derives one per run (`for_run`).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nl2sql.errors import ConfigError
from nl2sql.retrieval.breaker import CircuitBreaker

if TYPE_CHECKING:
    from nl2sql.aggregation.duck import DuckPool
    from nl2sql.datasources.base import DatasourceAdapter
    from nl2sql.execution.artifacts import ArtifactStore
    from nl2sql.execution.models import ArtifactRef
    from nl2sql.governance.services import Governance
    from nl2sql.reasoning.registry import ModelRegistry
    from nl2sql.retrieval.exact import Search
    from nl2sql.schema.store import SchemaSource
    from nl2sql.semantic.models import Relationship
    from nl2sql.settings import Settings


class CancelToken:
    """A per-run cancellation flag (never process-global)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason = ""

    def cancel(self, reason: str = "cancelled") -> None:
        self.reason = reason
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


@dataclass
class NL2SQLContext:
    settings: Settings
    datasources: Mapping[str, DatasourceAdapter]
    schemas: SchemaSource
    models: ModelRegistry
    artifacts: ArtifactStore
    vector_store_factory: Callable[[CircuitBreaker], Search] | None = None
    # VECTOR_BREAKER: shared by every run of the session; guards opening and every call.
    vector_breaker: CircuitBreaker = field(default_factory=lambda: CircuitBreaker("VECTOR_BREAKER"))
    descriptions: Mapping[str, str] = field(default_factory=dict)
    cancel_token: CancelToken = field(default_factory=CancelToken)
    on_event: Callable[[dict[str, Any]], None] | None = None
    deadline: float | None = None  # time.monotonic() by which this run must end
    governance: Governance | None = None  # policies, hooks, curated answers (None: none at all)
    # the semantic layer's relationships across sources (checked when the session opened)
    relationships: Sequence[Relationship] = ()
    # This run's result tables by artifact URI: the aggregator and the QueryResult read them here
    # instead of re-reading the Parquet files just written (each run gets its own, in for_run).
    results: dict[str, Any] = field(default_factory=dict, repr=False)
    # Shared by every per-run copy, so the store is created once per session.
    _vector_box: list[Search | None] = field(default_factory=lambda: [None], repr=False)
    _vector_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    # The session's DuckDB for combining results, shared by every per-run copy like the store.
    _combiner_box: list[DuckPool | None] = field(default_factory=lambda: [None], repr=False)
    _combiner_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        if not self.datasources:
            raise ConfigError("no datasource is configured")

    def for_run(
        self,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        *,
        deadline: float | None = None,
        cancel_token: CancelToken | None = None,
    ) -> NL2SQLContext:
        """A copy sharing every service, with this run's own token, deadline and listener."""
        return dataclasses.replace(
            self, cancel_token=cancel_token or CancelToken(), on_event=on_event, deadline=deadline,
            results={},
        )

    @property
    def vector_store(self) -> Search | None:
        """The vector store, created on first use (chromadb is slow to import).

        Raises VectorStoreError when it cannot be opened, at once (CircuitOpenError) once the
        breaker has seen repeated failures.
        """
        if self.vector_store_factory is None:
            return None
        with self._vector_lock:
            if self._vector_box[0] is None:
                self._vector_box[0] = self.vector_breaker.call(
                    self.vector_store_factory, self.vector_breaker
                )
            return self._vector_box[0]

    def table_of(self, ref: ArtifactRef) -> Any:
        """An artifact's Arrow table: from this run's memory when the run wrote it, else read."""
        held = self.results.get(ref.uri)
        return held if held is not None else self.artifacts.read(ref)

    @property
    def combiner(self) -> DuckPool:
        """The session's in-memory DuckDB for combining results: opened once, on first use
        (a fresh database per combine cost more than the combine); each combine takes a cursor."""
        with self._combiner_lock:
            pool = self._combiner_box[0]
            if pool is None:
                from nl2sql.aggregation.duck import DuckPool

                pool = self._combiner_box[0] = DuckPool()
            return pool

    def close_combiner(self) -> None:
        """Close the combining DuckDB if it was opened (the session is closing)."""
        with self._combiner_lock:
            pool, self._combiner_box[0] = self._combiner_box[0], None
        if pool is not None:
            pool.close()

    def emit(self, event: dict[str, Any]) -> None:
        if self.on_event is not None:
            self.on_event(event)
