"""Files that hold data: names that stay inside the project folder, private modes, atomic writes.

Everything nl2sql persists (schema snapshots with sample values, the vector store, result
artifacts, pins and approvals) can hold rows of a database, so it is written like a secret: folders
0700, files 0600, whatever the umask. A name built from an id (a datasource, a tenant, a request)
goes through `safe_component` and the finished path through `inside`, so an id can never add a
folder or climb out of the project folder.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_component(value: str) -> str:
    """`value` as one safe path component: no separators, no `..`, no leading dot.

    A value that had to change gets a short hash of the original, so distinct ids stay distinct.

    >>> safe_component("sq_1a2b")
    'sq_1a2b'
    >>> safe_component("../etc").startswith("_etc-")
    True
    """
    clean = _UNSAFE.sub("_", value).lstrip(".")[:100]
    if clean == value:
        return value
    raw = value.encode("utf-8", "surrogatepass")
    return f"{clean or '_'}-{hashlib.sha256(raw).hexdigest()[:8]}"


def inside(root: Path, path: Path) -> Path:
    """`path`, checked to resolve inside `root` (symlinks followed); ValueError otherwise."""
    base = Path(root).resolve()
    target = Path(path).resolve()
    if target != base and not target.is_relative_to(base):
        raise ValueError(f"{path} is outside {root}")
    return Path(path)


def private_dir(path: Path) -> Path:
    """Create `path` and any missing parents as 0700 folders; tighten `path` itself if it exists."""
    path = Path(path)
    missing = []
    for folder in (path, *path.parents):
        if folder.exists():
            break
        missing.append(folder)
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=DIR_MODE)
        except FileExistsError:
            pass  # another session made it at the same moment
    os.chmod(path, DIR_MODE)  # mkdir's mode is masked by the umask; an existing folder may be 0755
    return path


def write_private(path: Path, data: str | bytes) -> Path:
    """Write `data` to `path` atomically as a 0600 file (temp file in the same folder + rename),
    creating the folder 0700: a reader never sees half a file, nobody else can read it."""
    path = Path(path)
    private_dir(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:  # mkstemp creates the file 0600
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def make_private(root: Path) -> None:
    """Tighten every folder under `root` to 0700 and every file to 0600 (for stores written by
    another library, e.g. chromadb, whose files follow the umask)."""
    root = Path(root)
    if not root.exists():
        return
    os.chmod(root, DIR_MODE)
    for folder, dirs, files in os.walk(root):
        for name in dirs:
            os.chmod(os.path.join(folder, name), DIR_MODE)
        for name in files:
            os.chmod(os.path.join(folder, name), FILE_MODE)
