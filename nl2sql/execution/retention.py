"""How long result artifacts are kept: the newest N files, files younger than an age, or both.

Every run writes one Parquet file per sub-query and nothing ever removed them (557 files after
500 runs). The artifact store prunes after each write with the session's `Retention`; `nl2sql
clean` removes them all. A file younger than `grace_s` (the run timeout) is never pruned: a run
still in progress may be about to read it in its aggregation.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import TypeVar

ARTIFACT_SUFFIX = ".parquet"
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
