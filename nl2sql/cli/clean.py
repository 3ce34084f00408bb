"""`nl2sql clean`: remove the result artifacts (and, on request, the schema snapshots) of the
project folder; `--dry-run` lists what would go. Pins, approvals and curated answers are never
touched: they are decisions, not caches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.markup import escape

from nl2sql.execution.retention import artifact_files, remove_files


def run_clean(console: Any, *, config: str | None, snapshots: bool, dry_run: bool) -> int:
    """Remove (or list, with `dry_run`) the artifacts and optionally snapshots; exit code 0."""
    from nl2sql.settings import build_settings, find_config_file, load_config_file, project_dir

    file_config = load_config_file(Path(config) if config else find_config_file())
    folder = project_dir(build_settings(file_config.settings), file_config)
    groups = [(folder / "artifacts", artifact_files(folder / "artifacts"))]
    if snapshots:
        snaps = folder / "snapshots"
        groups.append((snaps, sorted(snaps.glob("*.json")) if snaps.is_dir() else []))
    total = 0
    for root, files in groups:
        for path in files:
            console.print(f"{'would remove' if dry_run else 'removed'} {escape(str(path))}", soft_wrap=True)
        total += len(files) if dry_run else len(remove_files(root, files))
    verb = "would be removed" if dry_run else "removed"
    console.print(f"{total} file(s) {verb} from {escape(str(folder))}", soft_wrap=True)
    return 0
