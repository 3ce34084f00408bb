"""ExactSearch ranks as the chromadb store does, without importing chromadb."""

from __future__ import annotations

import subprocess
import sys

from nl2sql.retrieval import DatasourceDoc, VectorStore
from nl2sql.retrieval.exact import ExactSearch


def _index(store, snapshots):
    for s in snapshots:
        store.index_tables(s.datasource_id, s)
    store.index_datasources([DatasourceDoc.from_snapshot(s) for s in snapshots])


def test_rankings_agree_with_the_vector_store(cases):
    snapshots, questions = cases
    exact, chroma = ExactSearch(), VectorStore(None)
    _index(exact, snapshots)
    _index(chroma, snapshots)
    for q in questions:
        got = exact.search_datasources(q.text, k=3)
        want = chroma.search_datasources(q.text, k=3)
        assert [i for i, _ in got] == [i for i, _ in want], q.text
        assert all(abs(a - b) < 1e-4 for (_, a), (_, b) in zip(got, want, strict=True)), q.text
        tables = exact.search_tables(q.datasource_id, q.text, k=5)
        expected = chroma.search_tables(q.datasource_id, q.text, k=5)
        assert [round(s, 4) for _, s in tables] == [round(s, 4) for _, s in expected], q.text


def test_nothing_indexed_or_an_empty_question_finds_nothing(cases):
    search = ExactSearch()
    assert search.search_datasources("orders", k=3) == []
    _index(search, cases[0])
    assert search.search_datasources("   ", k=3) == [] and search.search_tables("x", "orders") == []


def test_exact_search_imports_no_chromadb():
    code = ("import sys\nfrom nl2sql.retrieval.exact import ExactSearch\n"
            "from nl2sql.retrieval import DatasourceDoc\n"
            "s = ExactSearch(); s.index_datasources([DatasourceDoc(id='a', description='orders')])\n"
            "assert s.search_datasources('orders')[0][0] == 'a'\n"
            "print('chromadb' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-1000:]
    assert done.stdout.strip() == "False"
