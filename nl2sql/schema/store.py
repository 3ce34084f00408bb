"""SchemaStore: one SchemaSnapshot per datasource, fetched once and cached.

The readable copy written to `<project>/snapshots/<id>.json` holds sample values, so it is a
private file (0600) named by a sanitized id inside the folder, and `redact` removes what no file
may keep (sample values of columns a policy denies) before it is written. The copy is a
convenience: a folder that cannot be written (disk full, read-only) is logged, never a failed run.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from nl2sql.datasources.base import DatasourceAdapter
    from nl2sql.schema.models import SchemaSnapshot

log = logging.getLogger(__name__)


class SchemaSource(Protocol):
    """What a run reads schemas through: a SchemaStore, or a per-user view over one."""

    def get(self, datasource_id: str) -> SchemaSnapshot: ...

    def refresh(self, datasource_id: str | None = None) -> None: ...


class SchemaStore:
    """Schema snapshots per datasource, fetched once and cached (thread-safe)."""

    def __init__(self, datasources: Mapping[str, DatasourceAdapter], folder: Path | None = None,
                 redact: Callable[[SchemaSnapshot], SchemaSnapshot] | None = None):
        self._datasources = datasources
        self._folder = folder
        self._redact = redact
        self._cache: dict[str, SchemaSnapshot] = {}
        self._lock = threading.Lock()

    def get(self, datasource_id: str) -> SchemaSnapshot:
        with self._lock:
            if datasource_id not in self._cache:
                snapshot = self._datasources[datasource_id].fetch_schema()
                self._cache[datasource_id] = snapshot
                self._persist(snapshot)
            return self._cache[datasource_id]

    def refresh(self, datasource_id: str | None = None) -> None:
        with self._lock:
            if datasource_id is None:
                self._cache.clear()
            else:
                self._cache.pop(datasource_id, None)

    def _persist(self, snapshot: SchemaSnapshot) -> None:
        # A readable copy for the analyst (and for diffs in git); the cache stays authoritative.
        if self._folder is None:
            return
        from nl2sql.files import inside, safe_component, write_private

        target = inside(self._folder, self._folder / f"{safe_component(snapshot.datasource_id)}.json")
        shown = self._redact(snapshot) if self._redact is not None else snapshot
        try:
            write_private(target, shown.model_dump_json(indent=1))
        except OSError as exc:
            log.warning("schema snapshot copy %s not written: %s", target.name, exc.strerror or exc)
