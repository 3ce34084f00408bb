"""The demo's questions as a Spider-format benchmark: an evaluation that needs no download.

`build_demo_benchmark()` lays the demo build out as a Spider-format folder — `questions.json`
and `database/<db_id>/<db_id>.<sqlite|duckdb>` — so the same loader, runner and report that score
a downloaded benchmark score the demo (`nl2sql bench demo`, notebook 06). The gold queries are
the demo's hand-written reference SQL (`nl2sql.demo.questions`), each run on its own database.

Two demo questions have no place in the format, which asks one database per question and scores
answers only: the comparison across both sources and the refusal. `nl2sql demo` checks them.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

#: Where `build_demo_benchmark()` writes by default: beside the demo build of the same scale.
FOLDER_PREFIX = "benchmark-scale-"


@dataclass(frozen=True)
class DemoBenchmark:
    """A Spider-format benchmark built from the demo, and the settings its questions assume."""

    questions: Path  # the JSON list of {id, db_id, question, query}
    databases: Path  # <db_id>/<db_id>.sqlite or .duckdb
    settings: dict[str, Any] = field(default_factory=dict)  # the demo's pinned reference date


def demo_bench_questions() -> list[dict[str, str]]:
    """The demo questions with one database and an answer, in Spider's question format."""
    from nl2sql.demo.questions import DEMO_QUESTIONS

    out = []
    for pos, item in enumerate(DEMO_QUESTIONS, start=1):
        if item.expect_status != "success" or len(item.references) != 1:
            continue
        ((db_id, sql),) = item.references.items()
        out.append({"id": f"demo-{pos:02d}", "db_id": db_id, "question": item.question,
                    "query": sql})  # fmt: skip
    return out


def build_demo_benchmark(target_dir: str | Path | None = None, scale: float = 1.0) -> DemoBenchmark:
    """Write the demo (built at `scale` if it is not cached) as a Spider-format folder.

    Args:
        target_dir: the folder to write; default `benchmark-scale-<scale>` in the demo's cache
            folder. Existing files there are replaced whole (a reader never sees a half copy).
        scale: the demo data scale, as `nl2sql demo --scale`.
    """
    from nl2sql.demo import DEMO_SETTINGS, default_demo_dir, ensure_demo

    paths = ensure_demo(scale)
    folder = Path(target_dir or default_demo_dir() / f"{FOLDER_PREFIX}{scale:g}").expanduser()
    databases = folder / "database"
    for db_id, source in (("warehouse", paths.warehouse), ("crm", paths.crm)):
        target = databases / db_id / f"{db_id}{source.suffix}"
        target.parent.mkdir(parents=True, exist_ok=True)
        _replace(target, partial(shutil.copyfile, source))
    questions = folder / "questions.json"
    text = json.dumps(demo_bench_questions(), indent=1)
    _replace(questions, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return DemoBenchmark(questions=questions, databases=databases, settings=dict(DEMO_SETTINGS))


def _replace(path: Path, write: Callable[[Path], object]) -> None:
    """`write(tmp)` to a temporary name beside `path`, then rename it into place."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
