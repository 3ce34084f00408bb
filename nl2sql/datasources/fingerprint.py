"""Catalog fingerprints: a cheap check that a stored schema snapshot still describes a source.

A snapshot costs a catalog read plus statistics queries per table (seconds at a few hundred
tables); the fingerprint costs a file `stat` or one catalog query. Each adapter's
`catalog_fingerprint()` hashes what it can see cheaply: database files by size and modification
time (any write, to data or schema, changes them), servers by the table, column and type names of
their catalog (a data change on a server keeps the snapshot until `Session.refresh()`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any


def digest(*parts: Any) -> str:
    """A short stable hash of `parts` (rows of a catalog query, file states, versions)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(repr(part).encode())
        h.update(b"\x1e")
    return h.hexdigest()[:24]


def file_states(paths: Iterable[Path]) -> list[tuple[str, int, int]]:
    """(name, size, mtime in ns) of each path that exists: a database file and its journal."""
    states = []
    for path in paths:
        try:
            st = path.stat()
        except OSError:
            continue
        states.append((path.name, st.st_size, st.st_mtime_ns))
    return states


def rows_digest(rows: Sequence[Sequence[Any]], *extra: Any) -> str:
    """The digest of a catalog query's rows (in the order the query gave them) and `extra`."""
    return digest(*extra, *(tuple(str(v) for v in row) for row in rows))
