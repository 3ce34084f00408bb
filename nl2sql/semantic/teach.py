"""Teaching: one layer entry written into the session's layer file, checked first, then used.

The file is the one the session reads (`connect(semantic=path)`, or the config's
`[semantic] file`); when there is none, `semantic.yaml` in the project folder, which the session
then reads. The new layer is validated (shape and names, with the same checks a session start
runs) BEFORE anything is written: a bad entry is a one-line ConfigError and the file stays as it
was. The file is edited, not re-dumped (`roundtrip.py`): the analyst's comments, key order,
styles and other entries stay as written, and the diff adds the entry's lines only. The
session's schema snapshots are annotated again from the new layer, so the next question uses it.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nl2sql.errors import ConfigError
from nl2sql.semantic.models import SemanticLayer

if TYPE_CHECKING:
    from nl2sql.semantic.suggest import Suggestion
    from nl2sql.session import Session

SECTIONS = ("relationships", "terms", "metrics")  # the list sections an entry can be taught to


def teach(
    session: Session,
    what: Suggestion | Mapping[str, Any],
    *,
    file: str | Path | None = None,
    dry_run: bool = False,
) -> str:
    """Add `what` to the layer file and reload the session's layer; the unified diff applied.

    `what` is a Suggestion, or an entry as a mapping with its place: `{"source": "shop",
    "section": "terms", "entry": {...}}`."""
    from nl2sql.schema.store import SchemaStore
    from nl2sql.semantic.apply import annotator
    from nl2sql.semantic.check import check_layer
    from nl2sql.semantic.load import LoadedLayer, parse_layer
    from nl2sql.semantic.roundtrip import add_entry, dump_document, load_document

    schemas = session.context.schemas
    if not isinstance(schemas, SchemaStore):
        raise ConfigError(
            "this session's schemas are not a SchemaStore; open it with nl2sql.connect()"
        )
    if session.layer_given:
        raise ConfigError(
            "this session's layer was given to connect() as a mapping, which teach "
            "cannot write to: keep it in a file, connect(semantic='semantic.yaml')"
        )
    source, section, entry = _placed(what)
    path = Path(file) if file is not None else layer_file(session)
    before = path.read_text(encoding="utf-8") if path.is_file() else ""
    document = load_document(before, path.name)
    if not isinstance(document, dict):
        raise ConfigError(
            f"{path.name}: the layer must be a mapping with `sources:` and `relationships:`"
        )
    parse_layer(document, path.name)  # the file as it is first: its own bad entry is named as such
    existing = document.get("sources", {}).get(source, {}).get(section, [])
    if isinstance(existing, list) and entry in existing:
        raise ConfigError(f"{path.name}: sources.{source}.{section} already has {entry}")
    try:
        add_entry(document, ("sources", source, section), entry)
    except ConfigError as exc:
        raise ConfigError(f"{path.name}: {exc}") from None
    loaded = LoadedLayer(_with_inline(session, parse_layer(document, path.name)), path.name)
    check_layer(loaded, session.context.schemas.get, list(session.context.datasources))
    after = dump_document(document, before)
    diff = "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            f"a/{path.name}",
            f"b/{path.name}",
        )
    )
    if dry_run:
        return diff
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(after, encoding="utf-8")
    session.layer_file = path
    schemas.reannotate(annotator(loaded))
    return diff


def layer_file(session: Session) -> Path:
    """The layer file the session reads, or the project folder's `semantic.yaml` when none."""
    if session.layer_file is not None:
        return session.layer_file
    named = session.config.semantic.get("file")
    if named:
        return session.config.relative(str(named))
    from nl2sql.semantic.load import TAUGHT_LAYER

    return session.folder / TAUGHT_LAYER


def _placed(what: Suggestion | Mapping[str, Any]) -> tuple[str, str, dict[str, Any]]:
    if isinstance(what, Mapping):
        missing = [k for k in ("source", "section", "entry") if k not in what]
        if missing:
            raise ConfigError(
                f"an entry to teach needs `source`, `section` and `entry`; missing: "
                f"{', '.join(missing)}"
            )
        source, section, entry = str(what["source"]), str(what["section"]), what["entry"]
    else:
        source, section, entry = what.source, what.section, what.entry
    if section not in SECTIONS:
        raise ConfigError(f"cannot teach a `{section}` entry; sections: {', '.join(SECTIONS)}")
    if not isinstance(entry, Mapping):
        raise ConfigError(f"a `{section}` entry is a mapping, not {type(entry).__name__}")
    return source, section, dict(entry)


def _with_inline(session: Session, layer: SemanticLayer) -> SemanticLayer:
    """The file's layer with the config's inline `[semantic]` entries, as a session start merges."""
    from nl2sql.semantic.load import parse_layer

    inline = {k: v for k, v in session.config.semantic.items() if k != "file"}
    if not inline:
        return layer
    return layer.merged(parse_layer(inline, "nl2sql.toml [semantic]"))
