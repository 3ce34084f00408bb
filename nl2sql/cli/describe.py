"""`nl2sql describe SOURCE`: draft a semantic layer from a source's data (nl2sql/semantic/describe.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape

if TYPE_CHECKING:
    from rich.console import Console

    from nl2sql.semantic.describe import Draft


def run_describe(console: Console, source: str, *, config: str | None = None,
                 out: str | None = None) -> int:
    """Describe `source` of the configuration; write the draft to `out` (else print it)."""
    from nl2sql.errors import ConfigError
    from nl2sql.semantic.describe import draft_file
    from nl2sql.semantic.load import nearest
    from nl2sql.wiring import connect

    # the layer the config names is not read: describing must work while it is wrong or absent
    session = connect(config=config, semantic={})
    try:
        if source not in session.context.datasources:
            raise ConfigError(f"unknown datasource '{source}'{nearest(source, list(session.context.datasources))}")
        context = session.context
        text, draft = draft_file(context.datasources[source], context.schemas.get(source))
    finally:
        session.close()
    if out is None:
        sys.stdout.write(text)  # as is: a console would wrap the long comment lines
        return 0
    Path(out).write_text(text, encoding="utf-8")
    _summary(console, draft, out)
    return 0


def _summary(console: Console, draft: Draft, out: str) -> None:
    proposed = sum(r.holds for r in draft.relationships)
    refused = len(draft.relationships) - proposed
    console.print(
        f"wrote {escape(out)}: {proposed} relationship(s) checked in the data"
        + (f" ({refused} candidate(s) the data contradicts, as comments)" if refused else "")
        + f", labels for {len(draft.labels)} table(s), {len(draft.units)} unit(s), "
        f"{len(draft.vocabularies)} vocabulary(ies). Review it, then name it in nl2sql.toml: "
        + escape(f'[semantic] file = "{Path(out).name}"'), soft_wrap=True)
