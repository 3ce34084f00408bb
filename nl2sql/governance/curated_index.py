"""The curated questions as a chromadb collection (`nl2sql_curated`), searched by meaning.

A cache derived from the curated files: each answer is indexed under a hash of its content, so
an edited answer is a new document, and a search only considers the documents of the answers it
is given (an answer removed from the file is never found again). Uses the vector store's client,
embedding (offline hashing by default) and circuit breaker.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nl2sql.retrieval.store import VectorStore

if TYPE_CHECKING:
    from nl2sql.governance.curated import CuratedAnswer

CURATED = "nl2sql_curated"


def answer_key(answer: CuratedAnswer) -> str:
    """A content hash: the same answer always gets the same document id."""
    blob = answer.model_dump_json(include={"question", "datasource", "sql", "plan"}).encode()
    return "cur_" + hashlib.sha256(blob).hexdigest()[:16]


class CuratedIndex(VectorStore):
    """chromadb search over curated questions; `path=None` keeps it in memory."""

    def __init__(self, path: Path | str | None, *, embedding: Any = None):
        super().__init__(path, embedding=embedding)

    def search(self, question: str, candidates: list[CuratedAnswer]) -> list[tuple[int, float]]:
        """(position in `candidates`, similarity 0..1) for each candidate, best first."""
        if not candidates or not question.strip():
            return []
        keys = [answer_key(a) for a in candidates]
        self._ensure(keys, candidates)
        hits = self._query(CURATED, question, len(set(keys)), where={"key": {"$in": sorted(set(keys))}})
        position: dict[str, int] = {}
        for i, key in enumerate(keys):
            position.setdefault(key, i)
        return [(position[str(meta["key"])], sim) for meta, sim in hits if str(meta["key"]) in position]

    def _ensure(self, keys: list[str], answers: list[CuratedAnswer]) -> None:
        col = self._collection(CURATED)
        present = set(self._guard(col.get, ids=sorted(set(keys)), include=[]).get("ids") or [])
        missing = {k: a for k, a in zip(keys, answers, strict=True) if k not in present}
        if missing:
            self._guard(
                col.upsert,
                ids=list(missing),
                documents=[a.question for a in missing.values()],
                metadatas=[{"key": k, "datasource_id": a.datasource} for k, a in missing.items()],
            )
