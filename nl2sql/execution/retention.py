"""How long result artifacts are kept: the newest N files, files younger than an age, or both.

Every run writes one Parquet file per sub-query and nothing ever removed them (557 files after
500 runs). The artifact store prunes after each write with the session's `Retention`; `nl2sql
clean` removes them all. A file younger than `grace_s` (the run timeout) is never pruned: a run
still in progress may be about to read it in its aggregation.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import TypeVar

ARTIFACT_SUFFIX = ".parquet"
#: How long a store decides from what it knows of its folder before walking the folder again.
REWALK_S = 30.0
_P = TypeVar("_P", bound=PurePath)


@dataclass(frozen=True)
class Retention:
    """`keep`: the newest files kept (None: no count limit); `max_age_s`: older files go
    (None: no age limit); `grace_s`: files this young are always kept."""

    keep: int | None = None
    max_age_s: float | None = None
    grace_s: float = 0.0

    @property
    def limited(self) -> bool:
        return self.keep is not None or self.max_age_s is not None


def artifact_files(root: Path) -> list[Path]:
    """Every artifact file under `root`, oldest first (by modification time)."""
    return [path for _, path in _artifact_entries(Path(root))]


def _artifact_entries(root: Path) -> list[tuple[float, Path]]:
    """(modification time, path) of every artifact file under `root`, oldest first.

    One `scandir` walk and one stat per file (symlinked folders are not followed): the store
    walks its folder after writes, beside the runs, so the walk is kept cheap."""
    found: list[tuple[float, Path]] = []
    folders = [str(root)]
    while folders:
        try:
            listing = os.scandir(folders.pop())
        except OSError:  # not a folder (any more), or not readable
            continue
        with listing:
            for entry in listing:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        folders.append(entry.path)
                    elif entry.name.endswith(ARTIFACT_SUFFIX):
                        found.append((entry.stat().st_mtime, Path(entry.path)))
                except FileNotFoundError:  # pruned by another session meanwhile
                    continue
    return sorted(found)


def expired(root: Path, retention: Retention, now: float | None = None) -> list[Path]:
    """The artifact files under `root` that `retention` no longer keeps."""
    if not retention.limited:
        return []
    return select_expired(_artifact_entries(Path(root)), retention, now)


def select_expired(
    entries: list[tuple[float, _P]], retention: Retention, now: float | None = None
) -> list[_P]:
    """Of (modification time, path) entries, oldest first, those `retention` no longer keeps.

    The same rule for local files and for objects in a bucket (execution/storage.py).
    """
    if not retention.limited:
        return []
    now = time.time() if now is None else now
    over = len(entries) - retention.keep if retention.keep is not None else 0
    out = []
    for index, (mtime, path) in enumerate(entries):
        age = now - mtime
        too_many = index < over
        too_old = retention.max_age_s is not None and age > retention.max_age_s
        if (too_many or too_old) and age >= retention.grace_s:
            out.append(path)
    return out


def remove_files(root: Path, paths: list[Path]) -> list[Path]:
    """Delete `paths` and the folders under `root` they leave empty; the paths removed."""
    removed = []
    for path in paths:
        try:
            path.unlink()
            removed.append(path)
        except FileNotFoundError:
            continue
        _remove_empty_parents(Path(root), path.parent)
    return removed


def _remove_empty_parents(root: Path, folder: Path) -> None:
    while folder != root and folder.is_relative_to(root):
        try:
            os.rmdir(folder)  # only succeeds when empty
        except OSError:
            return
        folder = folder.parent


class FolderListing:
    """What one store knows of its local artifact folder between walks: the files its last walk
    found (less those pruned since) plus the files it wrote since.

    The background prune after each run decides from this instead of walking the folder: a walk
    is one `scandir` per request folder and one stat per file, 15-40 ms of CPU at 400-1,000
    files, after every run once runs come less than a second apart. The same rule is applied to
    the same files with the modification times they had when walked or written. What changed
    behind the store's back (files another session or process wrote or touched) is seen at the
    next walk, at most `rewalk_s` later, as a walk on every run would have seen it at once.
    """

    def __init__(self, root: Path, rewalk_s: float = REWALK_S):
        self._root = Path(root)
        self._rewalk_s = rewalk_s
        self._known: dict[Path, float] | None = None  # path -> modification time
        self._written: dict[Path, float] = {}  # written while a walk may be running
        self._walked_at = 0.0
        self._lock = threading.Lock()

    def written(self, path: Path) -> None:
        """Count a file this store has just written."""
        try:
            mtime = path.stat().st_mtime
        except OSError:  # already gone: nothing to keep
            return
        with self._lock:
            self._written[path] = mtime
            if self._known is not None:
                self._known[path] = mtime

    def prune(self, retention: Retention, now: float | None = None) -> list[Path]:
        """Remove what `retention` no longer keeps (walking the folder when what is known is
        older than `rewalk_s`); the paths removed. An OSError is raised as `remove_files`
        raises it, and the next prune walks again."""
        if not retention.limited:
            return []
        with self._lock:
            stale = self._known is None or time.monotonic() - self._walked_at > self._rewalk_s
            if stale:
                self._written = {}
        if stale:
            walked_at = time.monotonic()
            found = {path: mtime for mtime, path in _artifact_entries(self._root)}
            with self._lock:
                found.update(self._written)  # written during the walk
                self._known, self._walked_at = found, walked_at
        with self._lock:
            known = sorted((mtime, path) for path, mtime in (self._known or {}).items())
        chosen = select_expired(known, retention, now)
        try:
            removed = remove_files(self._root, chosen)
        except OSError:
            with self._lock:
                self._known = None
            raise
        with self._lock:
            for path in chosen:  # removed now, or by someone else before
                (self._known or {}).pop(path, None)
        return removed
