"""SchemaStore: one SchemaSnapshot per datasource, fetched once and cached, reused across processes.

The copy written to `<project>/snapshots/<id>.json` holds sample values, so it is a private file
(0600) named by a sanitized id inside the folder, and `redact` removes what no file may keep
(sample values of columns a policy denies) before it is written. A new process reads that copy
back instead of introspecting again when the source's catalog fingerprint (a file stat or one
catalog query, see `datasources/fingerprint.py`) still matches; the samples the file may not keep
are then read again for those columns only, in memory, so value matching works as before for the
users who may read them. `refresh()` forgets both the cached and the stored copy. The copy is a convenience: a
folder that cannot be written (disk full, read-only) is logged, never a failed run.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from nl2sql.progress import step
from nl2sql.schema.models import SchemaSnapshot

if TYPE_CHECKING:
    from nl2sql.datasources.base import DatasourceAdapter

log = logging.getLogger(__name__)

#: Bumped when what a stored snapshot means changes: an older file is introspected again.
STORED_FORMAT = 1


class SchemaSource(Protocol):
    """What a run reads schemas through: a SchemaStore, or a per-user view over one."""

    def get(self, datasource_id: str) -> SchemaSnapshot: ...

    def refresh(self, datasource_id: str | None = None) -> None: ...


@runtime_checkable
class Fingerprinted(Protocol):
    """An adapter whose stored snapshot can be reused: it tells whether its catalog changed."""

    def catalog_fingerprint(self) -> str | None: ...

    def resample(self, snapshot: SchemaSnapshot,
                 columns: Sequence[tuple[str, str]]) -> SchemaSnapshot: ...


class StoredSnapshot(BaseModel):
    """The file: the (redacted) snapshot, the fingerprint it was taken at, what was redacted."""

    model_config = ConfigDict(extra="forbid")

    format: int = STORED_FORMAT
    catalog_fingerprint: str | None = None
    #: (table key, column) whose samples the file does not keep
    redacted: list[tuple[str, str]] = Field(default_factory=list)
    snapshot: SchemaSnapshot


class SchemaStore:
    """Schema snapshots per datasource, fetched once and cached (thread-safe)."""

    def __init__(self, datasources: Mapping[str, DatasourceAdapter], folder: Path | None = None,
                 redact: Callable[[SchemaSnapshot], SchemaSnapshot] | None = None,
                 annotate: Callable[[SchemaSnapshot], SchemaSnapshot] | None = None):
        self._datasources = datasources
        self._folder = folder
        self._redact = redact
        # the semantic layer (nl2sql/semantic/apply.py): applied to what is served, never stored
        self._annotate = annotate
        self._cache: dict[str, SchemaSnapshot] = {}
        self._stale: set[str] = set()  # refreshed: the stored copy may not be reused
        self._lock = threading.Lock()
        #: how many snapshots were introspected / read back from a file (for benchmarks, tests)
        self.introspected = 0
        self.reused = 0

    def get(self, datasource_id: str) -> SchemaSnapshot:
        with self._lock:
            if datasource_id not in self._cache:
                with step("schema", f"Reading the schema of {datasource_id}"):
                    snapshot = self._fetch(datasource_id)
                if self._annotate is not None:
                    snapshot = self._annotate(snapshot)
                self._cache[datasource_id] = snapshot
            return self._cache[datasource_id]

    def reannotate(self, annotate: Callable[[SchemaSnapshot], SchemaSnapshot] | None) -> None:
        """Serve snapshots annotated by `annotate` from now on (a changed semantic layer): the
        cached ones are dropped, the stored (unannotated) copies stay reusable."""
        with self._lock:
            self._annotate = annotate
            self._cache.clear()

    def refresh(self, datasource_id: str | None = None) -> None:
        """Forget the snapshot of `datasource_id` (every one when None), here and on disk."""
        with self._lock:
            ids = list(self._datasources) if datasource_id is None else [datasource_id]
            for sid in ids:
                self._cache.pop(sid, None)
                self._stale.add(sid)

    def _fetch(self, datasource_id: str) -> SchemaSnapshot:
        adapter = self._datasources[datasource_id]
        fingerprint = self._fingerprint(adapter) if self._folder is not None else None
        if datasource_id not in self._stale:
            reused = self._read(datasource_id, adapter, fingerprint)
            if reused is not None:
                self.reused += 1
                return reused
        snapshot = adapter.fetch_schema()
        self.introspected += 1
        self._stale.discard(datasource_id)
        self._persist(snapshot, fingerprint)
        return snapshot

    @staticmethod
    def _fingerprint(adapter: DatasourceAdapter) -> str | None:
        if not isinstance(adapter, Fingerprinted):
            return None
        try:
            return adapter.catalog_fingerprint()
        except Exception as exc:  # noqa: BLE001 - no fingerprint only means "introspect"
            log.debug("no catalog fingerprint for %s: %s", adapter.id, exc)
            return None

    def _path(self, datasource_id: str) -> Path | None:
        if self._folder is None:
            return None
        from nl2sql.files import inside, safe_component

        return inside(self._folder, self._folder / f"{safe_component(datasource_id)}.json")

    def _read(self, datasource_id: str, adapter: DatasourceAdapter,
              fingerprint: str | None) -> SchemaSnapshot | None:
        """The stored snapshot when it was taken at `fingerprint`; None otherwise (or unreadable)."""
        path = self._path(datasource_id)
        if fingerprint is None or path is None or not isinstance(adapter, Fingerprinted):
            return None
        try:
            stored = StoredSnapshot.model_validate_json(path.read_bytes())
        except Exception as exc:  # noqa: BLE001 - missing, damaged or older: introspect again
            log.debug("stored snapshot %s not reused: %s", path, exc)
            return None
        if (stored.format != STORED_FORMAT or stored.catalog_fingerprint != fingerprint
                or stored.snapshot.datasource_id != datasource_id):
            return None
        if not stored.redacted:
            return stored.snapshot
        return adapter.resample(stored.snapshot, stored.redacted)

    def _persist(self, snapshot: SchemaSnapshot, fingerprint: str | None) -> None:
        # A readable copy for the analyst (and for diffs in git), read back by the next process.
        path = self._path(snapshot.datasource_id)
        if path is None:
            return
        from nl2sql.files import write_private

        shown = self._redact(snapshot) if self._redact is not None else snapshot
        stored = StoredSnapshot(catalog_fingerprint=fingerprint, redacted=_redacted(snapshot, shown),
                                snapshot=shown)
        try:
            write_private(path, stored.model_dump_json(indent=1))
        except OSError as exc:
            log.warning("schema snapshot copy %s not written: %s", path.name, exc.strerror or exc)


def _redacted(full: SchemaSnapshot, shown: SchemaSnapshot) -> list[tuple[str, str]]:
    """The (table key, column) whose samples `shown` lacks but `full` has."""
    kept = {(t.key, c.name): bool(c.samples) for t in shown.tables for c in t.columns}
    return [(t.key, c.name) for t in full.tables for c in t.columns
            if c.samples and not kept.get((t.key, c.name), False)]
