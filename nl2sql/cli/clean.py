"""`nl2sql clean`: remove the result artifacts (and, on request, the schema snapshots) of the
project folder, or under `artifact_root` (a folder or object storage); `--dry-run` lists what
would go. Pins, approvals and curated answers are never
touched: they are decisions, not caches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.markup import escape

from nl2sql.execution.retention import artifact_files, remove_files
from nl2sql.execution.storage import is_remote, open_backend, remote_root


def run_clean(console: Any, *, config: str | None, snapshots: bool, dry_run: bool) -> int:
    """Remove (or list, with `dry_run`) the artifacts and optionally snapshots; exit code 0."""
    from nl2sql.settings import build_settings, find_config_file, load_config_file, project_dir

    file_config = load_config_file(Path(config) if config else find_config_file())
    settings = build_settings(file_config.settings)
    folder = project_dir(settings, file_config)
    total = 0
    if settings.artifact_root and is_remote(settings.artifact_root):
        total += _clean_remote(console, settings.artifact_root, settings.artifact_storage_options, dry_run)
        groups = []
    else:
        artifacts = Path(settings.artifact_root).expanduser() if settings.artifact_root else folder / "artifacts"
        groups = [(artifacts, artifact_files(artifacts))]
    if snapshots:
        snaps = folder / "snapshots"
        groups.append((snaps, sorted(snaps.glob("*.json")) if snaps.is_dir() else []))
    for root, files in groups:
        for path in files:
            console.print(f"{'would remove' if dry_run else 'removed'} {escape(str(path))}", soft_wrap=True)
        total += len(files) if dry_run else len(remove_files(root, files))
    verb = "would be removed" if dry_run else "removed"
    console.print(f"{total} file(s) {verb} from {escape(str(folder))}", soft_wrap=True)
    return 0


def _clean_remote(console: Any, root: str, options: dict[str, Any], dry_run: bool) -> int:
    """Remove (or list) the artifacts under an object-storage `artifact_root`; how many."""
    backend = open_backend(root, options)
    files = [path for _, path in backend.files(remote_root(root))]
    for path in files:
        console.print(f"{'would remove' if dry_run else 'removed'} {escape(backend.uri(path))}", soft_wrap=True)
    return len(files) if dry_run else len(backend.remove(files))
