"""The artifact store: one Parquet file per sub-query result, at a configurable path template.

The path template names where a result lives; every value put into it is sanitized so a tenant
or request id can never add a directory or climb out of the root. A template that does not name
`{sub_query_id}` gets it appended to the file stem: two sub-queries must never share a file (the
defect of an earlier implementation, ARCHITECTURE §13). Every placeholder is filled on every
write: `{dag_node_id}` is the DAG node (`scan:<sub_query_id>`, or the combine node), `{subgraph_name}`
the subgraph (or `aggregator`), `{schema_version}` the structural fingerprint of the schema the
query ran against (a combined result: a digest of its sources' fingerprints).

Storage goes through a small backend object: `LocalBackend` here for a folder, and
`execution/storage.py:FsspecBackend` for an object-storage root (`s3://bucket/prefix`, `gs://`,
`abfs://`), where paths are `/bucket/key` and URIs `s3://bucket/key`. Retention applies to both.
"""

from __future__ import annotations

import hashlib
import os
import string
import tempfile
import threading
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path, PurePath, PurePosixPath
from typing import Any, Protocol
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from nl2sql.errors import ConfigError
from nl2sql.execution.models import ArtifactColumn, ArtifactRef
from nl2sql.execution.retention import (
    FolderListing,
    Retention,
    expired,
    remove_files,
    select_expired,
)
from nl2sql.execution.storage import (
    FsspecBackend,
    inside_remote,
    is_remote,
    open_backend,
    remote_root,
)
from nl2sql.files import inside, private_dir, safe_component

__all__ = ["ArtifactStore", "LocalBackend", "content_hash", "local_path", "safe_component"]

#: At most one background retention walk per this many seconds (see ArtifactStore.prune_soon).
PRUNE_INTERVAL_S = 0.5
DEFAULT_PATH_TEMPLATE = "{root}/{tenant_id}/{request_id}/{sub_query_id}.parquet"
PLACEHOLDERS = frozenset(
    {
        "root",
        "tenant_id",
        "request_id",
        "sub_query_id",
        "dag_node_id",
        "subgraph_name",
        "schema_version",
    }
)
_META_KEYS = PLACEHOLDERS - {"root", "tenant_id", "request_id", "sub_query_id"}


class ArtifactBackend(Protocol):
    """Where artifact bytes live; `name` is what ArtifactRef.backend records."""

    name: str

    def write_table(self, table: pa.Table, path: Any) -> tuple[str, int]: ...

    def read_table(self, uri: str) -> pa.Table: ...


class LocalBackend:
    """Local files: atomic writes (temp file + os.replace), `file://` URIs."""

    name = "local"

    def write_table(self, table: pa.Table, path: Path) -> tuple[str, int]:
        """Write `table` to `path` atomically; return its URI and size in bytes."""
        private_dir(path.parent)  # results are data: 0700 folders, 0600 files (mkstemp's mode)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            # written through the descriptor mkstemp opened: no second open, no stat for the size
            with os.fdopen(fd, "wb") as handle:
                pq.write_table(table, handle)
                size = handle.tell()
            os.replace(tmp, path)
        except BaseException:
            # A reader must never see a half-written file, and no temp file may linger.
            Path(tmp).unlink(missing_ok=True)
            raise
        return path.as_uri(), size

    def read_table(self, uri: str) -> pa.Table:
        """Read the Parquet file at a `file://` URI or a plain absolute path."""
        return pq.read_table(local_path(uri))


def local_path(uri: str) -> Path:
    """The local path behind a `file://` URI or a plain path."""
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return Path(url2pathname(unquote(parsed.path)))
    if parsed.scheme and len(parsed.scheme) > 1:  # one letter is a Windows drive, not a scheme
        raise ValueError(f"the local artifact backend cannot read {parsed.scheme}:// URIs")
    return Path(uri)


def content_hash(table: pa.Table) -> str:
    """sha256 of a table's data: column names, types and values, not its file bytes.

    Chunking, schema metadata and whatever bytes sit under null slots do not change the hash:
    each column is hashed as its validity mask plus its non-null values, in one chunk.
    """
    digest = hashlib.sha256()
    combined = table.combine_chunks()
    for field, column in zip(combined.schema, combined.columns, strict=True):
        array = column.chunk(0) if column.num_chunks else pa.array([], type=field.type)
        _update(digest, field.name.encode())
        _update(digest, str(field.type).encode())
        for part in (pc.is_valid(array), pc.drop_null(array)):
            _update(digest, _ipc_bytes(part))
    return digest.hexdigest()


def _update(digest: hashlib._Hash, data: bytes) -> None:
    # Length-prefixed, so ("ab", "c") and ("a", "bc") hash differently.
    digest.update(len(data).to_bytes(8, "big"))
    digest.update(data)


def _ipc_bytes(array: pa.Array) -> bytes:
    batch = pa.record_batch([array], names=["v"])
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batch.schema) as writer:
        writer.write_batch(batch)
    data: bytes = sink.getvalue().to_pybytes()
    return data


def combined_version(versions: list[str]) -> str:
    """One `{schema_version}` for a result read from several schemas (one stays as it is)."""
    unique = sorted(set(versions))
    if len(unique) == 1:
        return unique[0]
    return hashlib.sha256("|".join(unique).encode()).hexdigest()[:16]


def _template_fields(template: str) -> set[str]:
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise ConfigError(f"artifact path template {template!r} is malformed: {exc}") from None
    fields: set[str] = set()
    for _, name, spec, conversion in parsed:
        if name is None:
            continue
        if name not in PLACEHOLDERS or spec or conversion:
            raise ConfigError(
                f"artifact path template has placeholder {{{name}}}; "
                f"allowed: {', '.join(sorted(PLACEHOLDERS))}"
            )
        fields.add(name)
    return fields


class ArtifactStore:
    """Writes and reads sub-query results as Parquet artifacts under `root`."""

    def __init__(
        self,
        root: Path | str,
        path_template: str = DEFAULT_PATH_TEMPLATE,
        *,
        backend: ArtifactBackend | None = None,
        retention: Retention | None = None,
        storage_options: Mapping[str, Any] | None = None,
    ) -> None:
        """`root`: a folder, or an object-storage URL (`s3://bucket/prefix`) opened through
        fsspec with `storage_options` (never credentials: those come from the environment)."""
        self.root: PurePath
        if is_remote(root):
            self.root = remote_root(str(root))
            self.backend: ArtifactBackend = backend or open_backend(str(root), storage_options)
        else:
            self.root = Path(root).expanduser().absolute()
            self.backend = backend or LocalBackend()
        # what the background prune decides from between walks (local folders only)
        self._listing = FolderListing(self.root) if isinstance(self.root, Path) else None
        self.path_template = path_template
        self.retention = retention or Retention()
        self._fields = _template_fields(path_template)
        self._pruner: threading.Thread | None = None
        self._prune_wanted = False
        self._prune_lock = threading.Lock()
        if path_template.endswith(("/", os.sep)) or not path_template.strip():
            raise ConfigError("artifact path template must name a file, not a folder")

    def path_for(
        self,
        *,
        tenant_id: str | None,
        request_id: str,
        sub_query_id: str,
        **meta: object,
    ) -> PurePath:
        """The file a sub-query's result goes to; ConfigError if the template cannot be filled."""
        unknown = set(meta) - _META_KEYS
        if unknown:
            raise TypeError(
                f"unknown artifact metadata {sorted(unknown)}; allowed: {sorted(_META_KEYS)}"
            )
        raw = {
            "tenant_id": tenant_id or "default",
            "request_id": request_id,
            "sub_query_id": sub_query_id,
            **{k: v for k, v in meta.items() if v is not None},
        }
        values: dict[str, str] = {"root": str(self.root)}
        for name in self._fields - {"root"}:
            if name not in raw or str(raw[name]) == "":
                raise ConfigError(f"artifact path template needs {{{name}}}, which was not given")
            values[name] = safe_component(str(raw[name]))
        kind = type(self.root)
        path = kind(self.path_template.format_map(values))
        if not path.is_absolute():
            path = self.root / path
        if "sub_query_id" not in self._fields:
            path = path.with_name(f"{path.stem}-{safe_component(sub_query_id)}{path.suffix}")
        try:
            if isinstance(self.root, Path):
                return inside(self.root, Path(path))
            return inside_remote(PurePosixPath(self.root), PurePosixPath(path))
        except ValueError:
            raise ConfigError(
                f"artifact path template {self.path_template!r} leads outside {self.root}"
            ) from None

    def write(
        self,
        table: pa.Table,
        *,
        tenant_id: str | None,
        request_id: str,
        sub_query_id: str,
        truncated: bool,
        prune: bool = True,
        **meta: object,
    ) -> ArtifactRef:
        """Write `table` as the sub-query's artifact and describe it.

        With `prune`, the retention is applied before returning; a run passes False and calls
        `prune_soon()`: walking every artifact on each write cost more than a cheap run."""
        path = self.path_for(
            tenant_id=tenant_id, request_id=request_id, sub_query_id=sub_query_id, **meta
        )
        uri, size = self.backend.write_table(table, path)
        if self._listing is not None and isinstance(path, Path):
            self._listing.written(path)
        if prune:
            self.prune()
        return ArtifactRef(
            uri=uri,
            backend=self.backend.name,
            format="parquet",
            row_count=table.num_rows,
            columns=[ArtifactColumn(name=f.name, dtype=str(f.type)) for f in table.schema],
            bytes=size,
            content_hash=content_hash(table),
            truncated=truncated,
            created_at=datetime.now(UTC),
        )

    def prune(self) -> list[PurePath]:
        """Remove the artifacts the retention setting no longer keeps; the paths removed.

        Best effort: a file another session removed first, or one that cannot be removed, is
        skipped — pruning never fails the write that triggered it.
        """
        if not self._prunable:
            return []
        try:
            if isinstance(self.backend, FsspecBackend):
                root = PurePosixPath(self.root)
                return list(self.backend.remove(select_expired(self.backend.files(root), self.retention)))
            return list(remove_files(Path(self.root), expired(Path(self.root), self.retention)))
        except OSError:
            return []

    @property
    def _prunable(self) -> bool:
        return self.retention.limited and isinstance(self.backend, LocalBackend | FsspecBackend)

    def prune_soon(self) -> None:
        """Apply the retention on a background thread, off the run's path.

        Coalesced: one prune at a time, at most one more queued behind it, and at most one per
        PRUNE_INTERVAL_S, so a burst of runs costs one prune, not one per artifact. A local folder
        is pruned from what the store knows of it (`FolderListing`: walked at most every
        `REWALK_S`). Files younger than the grace period are never pruned, so the delay cannot
        remove a file a run still needs."""
        if not self._prunable:
            return
        with self._prune_lock:
            self._prune_wanted = True
            if self._pruner is None:
                self._pruner = threading.Thread(target=self._prune_loop, name="nl2sql-prune", daemon=True)
                self._pruner.start()

    def _prune_loop(self) -> None:
        while True:
            with self._prune_lock:
                if not self._prune_wanted:
                    self._pruner = None
                    return
                self._prune_wanted = False
            self._prune_from_listing()
            time.sleep(PRUNE_INTERVAL_S)

    def _prune_from_listing(self) -> None:
        """The background prune: local folders decide from the store's `FolderListing` (a walk
        at most every `REWALK_S`); other backends list their files as `prune` does."""
        if self._listing is None or not isinstance(self.backend, LocalBackend):
            self.prune()
            return
        try:
            self._listing.prune(self.retention)
        except OSError:  # best effort, as `prune`
            return

    def wait_pruned(self, timeout_s: float = 10.0) -> None:
        """Wait for a background prune in progress (or queued) to end (a closing session)."""
        with self._prune_lock:
            pruner = self._pruner
        if pruner is not None:
            pruner.join(timeout_s)

    def read(self, ref: ArtifactRef, *, verify: bool = False) -> pa.Table:
        """Read an artifact back; with `verify`, raise ValueError if its data changed."""
        if ref.backend != self.backend.name:
            raise ValueError(f"artifact is on backend {ref.backend!r}, not {self.backend.name!r}")
        table = self.backend.read_table(ref.uri)
        if verify and content_hash(table) != ref.content_hash:
            raise ValueError(f"artifact {ref.uri} no longer holds the data it was written with")
        return table
