"""`nl2sql history`: the project's runs as a table; `--rerun N` runs run N again."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from rich.markup import escape


def run_history(console: Any, *, config: str | None, last: int | None, as_json: bool,
                rerun: int | None) -> int:
    """Print the history (the `last` runs), or run run `rerun` again; exit code 0 (1: failed run)."""
    from nl2sql.history import history_file, read_history
    from nl2sql.settings import build_settings, find_config_file, load_config_file, project_dir

    if rerun is not None:
        return _rerun(console, config, rerun)
    file_config = load_config_file(Path(config) if config else find_config_file())
    folder = project_dir(build_settings(file_config.settings), file_config)
    entries = read_history(history_file(folder))
    if last is not None:
        entries = entries[-last:] if last > 0 else []
    if as_json:
        sys.stdout.write("[" + ",\n".join(e.model_dump_json(exclude={"plan"}) for e in entries) + "]\n")
        return 0
    if not entries:
        console.print(f"no runs recorded in {escape(str(folder))} yet", soft_wrap=True)
        return 0
    from rich.table import Table

    table = Table("run", "question", "status", "rows", "seconds", "follows", "trace id")
    for e in entries:
        table.add_row(str(e.number), escape(e.question), e.status,
                      "" if e.row_count is None else f"{e.row_count:,}", f"{e.seconds:.2f}",
                      "" if e.follow_up_of is None else f"run {e.follow_up_of}", e.trace_id[:12])
    console.print(table)
    return 0


def _rerun(console: Any, config: str | None, number: int) -> int:
    from nl2sql.cli.render import print_result
    from nl2sql.wiring import connect

    session = connect(config=config)
    try:
        try:
            result = session.history.run(number).rerun()
        except IndexError as exc:
            raise ValueError(str(exc)) from None
    finally:
        session.close()
    print_result(console, result)
    return 0 if result.status == "success" else 1
