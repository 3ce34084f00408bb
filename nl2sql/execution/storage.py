"""Artifacts on object storage: an fsspec backend for `s3://`, `gs://` and `abfs://` roots.

`artifact_root = "s3://bucket/prefix"` puts every result artifact under that prefix, written and
read back through one fsspec filesystem. Credentials are never part of the configuration this
module sees: they come from the environment or the provider's chain (AWS_ACCESS_KEY_ID / profile
/ instance role; GOOGLE_APPLICATION_CREDENTIALS; AZURE_STORAGE_*), so no repr, log line or
artifact URI can show them. A root that carries them (`s3://key:secret@bucket`) is refused, and
so is a secret-looking key in `artifact_storage_options` (which is for non-secret settings such
as `endpoint_url` or `region_name`).

fsspec and the protocol's package (s3fs, gcsfs, adlfs) are imported only when such a root is
configured; a missing one is a one-line ConfigError naming the package to install.
"""

from __future__ import annotations

import posixpath
import re
import time
from collections.abc import Mapping
from datetime import datetime
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

import pyarrow as pa
import pyarrow.parquet as pq

from nl2sql.errors import ConfigError
from nl2sql.execution.retention import ARTIFACT_SUFFIX

if TYPE_CHECKING:
    from fsspec import AbstractFileSystem

#: Protocol -> the package fsspec needs for it (and the extra of nl2sql that brings it).
PACKAGES = {
    "s3": ("s3fs", "s3"), "s3a": ("s3fs", "s3"),
    "gs": ("gcsfs", "gcs"), "gcs": ("gcsfs", "gcs"),
    "abfs": ("adlfs", "azure"), "abfss": ("adlfs", "azure"), "az": ("adlfs", "azure"),
}
_SECRET_OPTION = re.compile(r"secret|token|pass(word)?|credential|(^|_)key$|sas", re.IGNORECASE)
# Where each provider's listing puts a file's modification time.
_MTIME_KEYS = ("LastModified", "last_modified", "mtime", "updated", "created")


def is_remote(root: str | Any) -> bool:
    """True when `root` is an object-storage URL (a scheme longer than a Windows drive letter).

    >>> is_remote("s3://bucket/results"), is_remote("/tmp/a"), is_remote("C:/a")
    (True, False, False)
    """
    scheme = urlparse(str(root)).scheme
    return len(scheme) > 1 and scheme != "file"


class FsspecBackend:
    """Artifacts in object storage through one fsspec filesystem; paths are `/bucket/key...`."""

    def __init__(self, protocol: str, fs: AbstractFileSystem) -> None:
        self.name = protocol
        self._fs = fs

    def __repr__(self) -> str:  # the filesystem holds the resolved credentials: never shown
        return f"FsspecBackend({self.name!r})"

    def uri(self, path: PurePosixPath) -> str:
        return f"{self.name}://{str(path).lstrip('/')}"

    def write_table(self, table: pa.Table, path: PurePosixPath) -> tuple[str, int]:
        """Write `table` as Parquet at `path`; an object appears whole when its upload ends."""
        uri = self.uri(path)
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink)
        data = sink.getvalue().to_pybytes()
        self._fs.pipe_file(uri, data)
        return uri, len(data)

    def read_table(self, uri: str) -> pa.Table:
        if urlparse(uri).scheme != self.name:
            raise ValueError(f"the {self.name} artifact backend cannot read {urlparse(uri).scheme}:// URIs")
        with self._fs.open(uri, "rb") as handle:
            return pq.read_table(handle)

    def files(self, root: PurePosixPath) -> list[tuple[float, PurePosixPath]]:
        """(modification time, path) of every artifact under `root`, oldest first."""
        self._fs.invalidate_cache()  # a listing cached before this session's writes is stale
        try:
            found = self._fs.find(self.uri(root), detail=True)
        except FileNotFoundError:
            return []
        out = []
        for name, info in found.items():
            if name.endswith(ARTIFACT_SUFFIX):
                out.append((_mtime(info), PurePosixPath("/" + name.split("://", 1)[-1].lstrip("/"))))
        return sorted(out)

    def remove(self, paths: list[PurePosixPath]) -> list[PurePosixPath]:
        """Delete `paths` (object stores have no folders to tidy); the paths removed."""
        removed = []
        for path in paths:
            try:
                self._fs.rm_file(self.uri(path))
            except FileNotFoundError:
                continue
            removed.append(path)
        return removed


def _mtime(info: Mapping[str, Any]) -> float:
    for key in _MTIME_KEYS:
        value = info.get(key)
        if isinstance(value, datetime):
            return value.timestamp()
        if isinstance(value, int | float):
            return float(value)
    return time.time()  # unknown: treat as new, so retention never removes it by mistake


def remote_root(root: str) -> PurePosixPath:
    """The `/bucket/prefix` path of an object-storage root; ConfigError for credentials in it."""
    parsed = urlparse(root)
    if parsed.username or parsed.password or "@" in parsed.netloc:
        raise ConfigError(
            f"artifact_root must not carry credentials; give them through the environment "
            f"or the {parsed.scheme} provider chain"
        )
    if not parsed.netloc:
        raise ConfigError(f"artifact_root {parsed.scheme}:// names no bucket or container")
    if parsed.query or parsed.fragment:
        raise ConfigError("artifact_root must be a plain URL without ? or #")
    return PurePosixPath(posixpath.normpath(f"/{parsed.netloc}/{parsed.path.strip('/')}"))


def open_backend(root: str, options: Mapping[str, Any] | None = None) -> FsspecBackend:
    """The fsspec backend for an object-storage root (`s3://…`, `gs://…`, `abfs://…`)."""
    protocol = urlparse(root).scheme.lower()
    secret = sorted(k for k in (options or {}) if _SECRET_OPTION.search(str(k)))
    if secret:
        raise ConfigError(
            f"artifact_storage_options must not hold credentials ({', '.join(secret)}); "
            "give them through the environment or the provider chain"
        )
    package, extra = PACKAGES.get(protocol, ("", ""))
    try:
        import fsspec  # lazy: only a remote artifact root needs it
    except ImportError:
        hint = f"pip install 'nl2sql[{extra}]'" if extra else "pip install fsspec"
        raise ConfigError(f"artifact_root {protocol}:// needs the fsspec package: {hint}") from None
    try:
        cls = fsspec.get_filesystem_class(protocol)
    except ImportError:
        hint = f"pip install 'nl2sql[{extra}]'" if extra else f"install {package or 'its package'}"
        raise ConfigError(
            f"artifact_root {protocol}:// needs the {package or protocol} package: {hint}"
        ) from None
    except ValueError:
        raise ConfigError(f"artifact_root protocol {protocol!r} is not known to fsspec") from None
    return FsspecBackend(protocol, cls(**dict(options or {})))


def inside_remote(root: PurePosixPath, path: PurePosixPath) -> PurePosixPath:
    """`path` normalized, checked to stay under `root`; ValueError otherwise."""
    norm = PurePosixPath(posixpath.normpath(str(path)))
    if norm != root and not norm.is_relative_to(root):
        raise ValueError(f"{path} is outside {root}")
    return norm
