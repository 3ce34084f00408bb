"""IndexCache: the indexes of recent snapshots, built once each.

Keyed by datasource id, structural fingerprint and a digest of the samples and readable names
(the fingerprint ignores both, the index depends on them). Sub-queries are planned in parallel
threads, so look-ups take a lock. Hashing a large schema with its samples costs milliseconds
per table, so the key is computed once per snapshot object (snapshots are treated as values:
a changed schema is a new object) and remembered while that object lives.
"""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections import OrderedDict

from nl2sql.reasoning.offline.catalog.index import SchemaIndex, build_index
from nl2sql.schema.models import SchemaSnapshot


class IndexCache:
    """Recent snapshot indexes, keyed by datasource id + fingerprint + samples digest."""

    def __init__(self, size: int = 16):
        self._size = size
        self._items: OrderedDict[tuple[str, str, str], SchemaIndex] = OrderedDict()
        self._lock = threading.Lock()  # sub-queries are planned in parallel threads
        # id(snapshot) -> (a weak reference to it, its key): the id is reused only after it dies
        self._keys: dict[int, tuple[weakref.ref[SchemaSnapshot], tuple[str, str, str]]] = {}

    def get(self, snapshot: SchemaSnapshot) -> SchemaIndex:
        """The index of `snapshot`, built on first use."""
        key = self._key(snapshot)
        with self._lock:
            return self._get(key, snapshot)

    def _key(self, snapshot: SchemaSnapshot) -> tuple[str, str, str]:
        with self._lock:
            known = self._keys.get(id(snapshot))
            if known is not None and known[0]() is snapshot:
                return known[1]
        key = (snapshot.datasource_id, snapshot.fingerprint, _samples_digest(snapshot))
        with self._lock:
            self._keys = {i: k for i, k in self._keys.items() if k[0]() is not None}
            self._keys[id(snapshot)] = (weakref.ref(snapshot), key)
        return key

    def _get(self, key: tuple[str, str, str], snapshot: SchemaSnapshot) -> SchemaIndex:
        found = self._items.get(key)
        if found is None:
            found = build_index(snapshot)
            self._items[key] = found
            if len(self._items) > self._size:
                self._items.popitem(last=False)
        else:
            self._items.move_to_end(key)
        return found


def _samples_digest(snapshot: SchemaSnapshot) -> str:
    # The fingerprint ignores samples and descriptions; the index depends on both.
    h = hashlib.sha1()
    for t in snapshot.tables:
        h.update((t.original_name or "").encode())
        for c in t.columns:
            h.update(b"\x1f".join(s.encode() for s in c.samples))
            h.update((c.original_name or "").encode() + b"\x1e")
    return h.hexdigest()[:16]
