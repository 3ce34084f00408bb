"""The vector store: chromadb collections of datasource and table descriptions.

Two collections, cosine space: ``nl2sql_datasources`` (one document per datasource, for the
resolver) and ``nl2sql_tables`` (one per table, filtered by ``datasource_id``, for the schema
retriever). The store is a cache derived from schema snapshots: a collection built with another
embedding is dropped and rebuilt, and tables are re-indexed only when the snapshot's fingerprint
changes. chromadb is imported on first use (it costs over a second), and every call to it goes
through the ``VECTOR_BREAKER`` circuit breaker; its errors surface as `VectorStoreError`.
"""

from __future__ import annotations

import contextlib
import json
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from nl2sql.errors import safe_one_line
from nl2sql.files import make_private, private_dir
from nl2sql.retrieval.breaker import CircuitBreaker, VectorStoreError
from nl2sql.retrieval.documents import DatasourceDoc, datasource_text, table_text
from nl2sql.retrieval.embeddings import HashingEmbedding
from nl2sql.schema.models import SchemaSnapshot

T = TypeVar("T")

DATASOURCES = "nl2sql_datasources"
TABLES = "nl2sql_tables"
_BATCH = 500  # well under chromadb's max batch size on every backend
_WIDE = 500  # results fetched when every datasource must be scored


class VectorStore:
    """Datasource and table search over chromadb; `path=None` keeps everything in memory."""

    def __init__(
        self,
        path: Path | str | None,
        *,
        embedding: Any = None,
        breaker: CircuitBreaker | None = None,
    ) -> None:
        self.path = Path(path) if path is not None else None
        self.embedding = embedding if embedding is not None else HashingEmbedding()
        self.breaker = breaker if breaker is not None else CircuitBreaker("VECTOR_BREAKER")
        if self.path is not None and self.path.exists() and not self.path.is_dir():
            raise VectorStoreError(f"vector store path {self.path} is a file, not a folder")
        self._lock = threading.Lock()
        self._client: Any = None
        self._database: str | None = None
        self._collections: dict[str, Any] = {}

    # --- indexing ---------------------------------------------------------------------------
    def index_datasources(self, items: list[DatasourceDoc]) -> None:
        """Upsert one document per datasource (same ids → replaced, so re-indexing is idempotent)."""
        col = self._collection(DATASOURCES)
        for start in range(0, len(items), _BATCH):
            chunk = items[start : start + _BATCH]
            self._guard(
                col.upsert,
                ids=[d.id for d in chunk],
                documents=[datasource_text(d) for d in chunk],
                metadatas=[{"datasource_id": d.id} for d in chunk],
            )
        if self.path is not None:
            make_private(self.path)

    def index_tables(
        self, datasource_id: str, snapshot: SchemaSnapshot, *, force: bool = False
    ) -> bool:
        """Index one document per table; skipped (returns False) when the fingerprint is unchanged.

        The fingerprint covers structure, not descriptions: pass `force=True` after editing those.
        """
        col = self._collection(TABLES)
        fingerprint = snapshot.fingerprint
        if not force and self.indexed_fingerprint(datasource_id) == fingerprint:
            return False
        # drop the old documents first so tables removed from the snapshot stop being found
        self._guard(col.delete, where={"datasource_id": datasource_id})
        tables = snapshot.tables
        for start in range(0, len(tables), _BATCH):
            chunk = tables[start : start + _BATCH]
            self._guard(
                col.upsert,
                ids=[f"{datasource_id}::{t.key}" for t in chunk],
                documents=[table_text(t) for t in chunk],
                metadatas=[
                    {"datasource_id": datasource_id, "table_key": t.key, "fingerprint": fingerprint}
                    for t in chunk
                ],
            )
        if self.path is not None:
            make_private(self.path)  # chromadb's new segment files follow the umask
        return True

    def indexed_fingerprint(self, datasource_id: str) -> str | None:
        """The fingerprint of the snapshot last indexed for `datasource_id`, or None."""
        col = self._collection(TABLES)
        got = self._guard(
            col.get, where={"datasource_id": datasource_id}, limit=1, include=["metadatas"]
        )
        metadatas = got.get("metadatas") or []
        return str(metadatas[0]["fingerprint"]) if metadatas else None

    # --- search -----------------------------------------------------------------------------
    def search_datasources(self, question: str, k: int = 3) -> list[tuple[str, float]]:
        """The `k` datasources closest to `question`: (id, similarity 0..1), best first.

        A datasource's score blends its own document with its best-matching table: a question
        usually names one table's matter ("paid with PayPal"), which a long description dilutes.
        """
        docs = self._query(DATASOURCES, question, _WIDE, where=None)
        if not docs or k < 1:
            return []
        tables = self._query(TABLES, question, _WIDE, where=None)
        best: dict[str, float] = {}
        for meta, sim in tables:
            ds = str(meta["datasource_id"])
            best[ds] = max(best.get(ds, 0.0), sim)
        # past the widest query, an unseen datasource's best table is at most the last one seen
        floor = tables[-1][1] if len(tables) == _WIDE else None
        scores = []
        for meta, sim in docs:
            ds = str(meta["datasource_id"])
            table_sim = best.get(ds, floor)
            scores.append((ds, sim if table_sim is None else (sim + table_sim) / 2))
        scores.sort(key=lambda item: item[1], reverse=True)
        return scores[:k]

    def search_tables(
        self, datasource_id: str, question: str, k: int = 8
    ) -> list[tuple[str, float]]:
        """The `k` tables of `datasource_id` closest to `question`: (Table.key, similarity)."""
        hits = self._query(TABLES, question, k, where={"datasource_id": datasource_id})
        return [(str(meta["table_key"]), sim) for meta, sim in hits]

    def _query(
        self, name: str, question: str, k: int, where: dict[str, Any] | None
    ) -> list[tuple[dict[str, Any], float]]:
        if k < 1 or not question.strip():
            return []
        col = self._collection(name)
        # asking for more results than exist makes chromadb log a warning: ask for what is there
        size = self._guard(col.count)
        if size == 0:
            return []
        res = self._guard(
            col.query,
            query_texts=[question],
            n_results=min(k, size),
            where=where,
            include=["metadatas", "distances"],
        )
        metas, dists = res["metadatas"][0], res["distances"][0]
        # cosine distance is 1 - cos; clip so a similarity always reads as 0..1
        return [(m, max(0.0, min(1.0, 1.0 - float(d)))) for m, d in zip(metas, dists, strict=True)]

    # --- chromadb plumbing ------------------------------------------------------------------
    def _guard(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a chromadb call through the breaker; anything it raises becomes VectorStoreError."""
        try:
            return self.breaker.call(fn, *args, **kwargs)
        except VectorStoreError:
            raise
        except Exception as exc:
            where = f"at {self.path}" if self.path is not None else "(in memory)"
            raise VectorStoreError(
                f"vector store {where} failed: {safe_one_line(exc, 160)}"
            ) from exc

    def _collection(self, name: str) -> Any:
        with self._lock:
            if name not in self._collections:
                client = self._guard(self._connect) if self._client is None else self._client
                self._client = client
                self._collections[name] = self._guard(self._open_collection, client, name)
            return self._collections[name]

    def _connect(self) -> Any:
        import chromadb
        from chromadb.config import Settings
        from chromadb.utils.embedding_functions import register_embedding_function

        # a persisted collection names its embedding function; chromadb rebuilds it from that
        # name whenever a collection is used without one passed in, so the class must be known
        # chromadb leaves register_embedding_function unannotated
        register_embedding_function(HashingEmbedding)  # type: ignore[no-untyped-call]
        register_embedding_function(type(self.embedding))  # type: ignore[no-untyped-call]
        settings = Settings(anonymized_telemetry=False)
        if self.path is not None:
            private_dir(self.path)  # the index holds sample values: nobody else may read it
            client = chromadb.PersistentClient(path=str(self.path), settings=settings)
            make_private(self.path)
            return client
        # all in-memory clients of a process share one system: a private database keeps
        # two in-memory stores (two sessions, two tests) from seeing each other's documents
        self._database = f"nl2sql_{uuid.uuid4().hex[:12]}"
        chromadb.AdminClient(settings).create_database(self._database)
        return chromadb.EphemeralClient(settings=settings, database=self._database)

    def _open_collection(self, client: Any, name: str) -> Any:
        tag = f"{self.embedding.name()}:{json.dumps(self.embedding.get_config(), sort_keys=True)}"
        existing = {c.name: c for c in client.list_collections()}
        if name in existing and (existing[name].metadata or {}).get("nl2sql_embedding") != tag:
            # built with another embedding: its vectors are incomparable, and it is only a cache
            client.delete_collection(name)
        return client.get_or_create_collection(
            name,
            embedding_function=self.embedding,
            metadata={"nl2sql_embedding": tag},
            configuration={"hnsw": {"space": "cosine"}},
        )

    def close(self) -> None:
        """Forget the client; an in-memory store also drops its private database."""
        with self._lock:
            if self._database is not None:
                import chromadb
                from chromadb.config import Settings

                # best effort: a leftover in-memory database costs memory, never correctness
                with contextlib.suppress(Exception):
                    admin = chromadb.AdminClient(Settings(anonymized_telemetry=False))
                    admin.delete_database(self._database)
                self._database = None
            self._client = None
            self._collections.clear()
            if self.path is not None:
                make_private(self.path)  # segment files chromadb wrote since the last index

    def __repr__(self) -> str:
        where = str(self.path) if self.path is not None else "memory"
        return f"VectorStore({where!r}, embedding={self.embedding.name()!r})"
