"""ExactSearch: the vector store's two searches, computed in memory without chromadb.

chromadb costs seconds to import (most of a first answer in a fresh process) and its index pays
off only for many documents. Up to `Settings.exact_search_max_tables` tables in all, the same embedding
(`HashingEmbedding`, cheap to compute) over the same documents (`retrieval.documents`) is scored
by one matrix product: exact cosine similarities, and the same blend of a datasource's own
document with its best table as `VectorStore.search_datasources`, so rankings agree with it.
"""

from __future__ import annotations

import threading
from typing import Any, Protocol

import numpy as np

from nl2sql.retrieval.documents import DatasourceDoc, datasource_text, table_text
from nl2sql.retrieval.embeddings import HashingEmbedding
from nl2sql.schema.models import SchemaSnapshot


class Search(Protocol):
    """What the resolver and the schema retriever ask of a vector search."""

    def search_datasources(self, question: str, k: int = 3) -> list[tuple[str, float]]: ...

    def search_tables(self, datasource_id: str, question: str, k: int = 8) -> list[tuple[str, float]]: ...


class ExactSearch:
    """Datasource and table search by exact cosine similarity over in-memory embeddings."""

    def __init__(self, embedding: Any = None) -> None:
        self.embedding = embedding if embedding is not None else HashingEmbedding()
        self._datasources: tuple[list[str], np.ndarray] = ([], np.zeros((0, 1), np.float32))
        self._tables: dict[str, tuple[list[str], np.ndarray]] = {}
        self._lock = threading.Lock()

    def index_datasources(self, items: list[DatasourceDoc]) -> None:
        """One vector per datasource (replacing what was indexed before)."""
        vectors = self._embed([datasource_text(d) for d in items])
        with self._lock:
            self._datasources = ([d.id for d in items], vectors)

    def index_tables(self, datasource_id: str, snapshot: SchemaSnapshot) -> None:
        """One vector per table of `snapshot` (replacing the datasource's earlier tables)."""
        vectors = self._embed([table_text(t) for t in snapshot.tables])
        with self._lock:
            self._tables[datasource_id] = ([t.key for t in snapshot.tables], vectors)

    def search_datasources(self, question: str, k: int = 3) -> list[tuple[str, float]]:
        """The `k` datasources closest to `question`: (id, similarity 0..1), best first."""
        ids, vectors = self._datasources
        if k < 1 or not ids or not question.strip():
            return []
        query = self._embed([question])[0]
        own = _similarities(vectors, query)
        scores = []
        for ds, sim in zip(ids, own, strict=True):
            keys, tables = self._tables.get(ds, ([], vectors[:0]))
            best = max(_similarities(tables, query)) if keys else None
            scores.append((ds, sim if best is None else (sim + best) / 2))
        scores.sort(key=lambda item: item[1], reverse=True)
        return scores[:k]

    def search_tables(self, datasource_id: str, question: str, k: int = 8) -> list[tuple[str, float]]:
        """The `k` tables of `datasource_id` closest to `question`: (Table.key, similarity)."""
        keys, vectors = self._tables.get(datasource_id, ([], np.zeros((0, 1), np.float32)))
        if k < 1 or not keys or not question.strip():
            return []
        sims = _similarities(vectors, self._embed([question])[0])
        order = sorted(range(len(keys)), key=lambda i: -sims[i])[:k]
        return [(keys[i], sims[i]) for i in order]

    def _embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 1), np.float32)
        return np.vstack([np.asarray(v, dtype=np.float32) for v in self.embedding(texts)])


def _similarities(vectors: np.ndarray, query: np.ndarray) -> list[float]:
    """Cosine similarity of each row with `query`, clipped to 0..1 as the vector store reports it."""
    if len(vectors) == 0:
        return []
    norms = np.linalg.norm(vectors, axis=1) * (float(np.linalg.norm(query)) or 1.0)
    dots = vectors @ query / np.where(norms > 0, norms, 1.0)
    return [max(0.0, min(1.0, float(d))) for d in dots]
