"""Reading the layer: a YAML file the config names (`[semantic] file = "semantic.yaml"`), entries
inline in nl2sql.toml (`[semantic.sources.<id>]`), or `connect(semantic=...)`.

A malformed file is a ConfigError of one line naming the file, the entry and, for a misspelt
key, the nearest valid one. Whether the names exist is `check.py`'s part, once sources are open.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from nl2sql.errors import ConfigError
from nl2sql.semantic.models import SemanticLayer

if TYPE_CHECKING:
    from nl2sql.settings import FileConfig

#: the layer file session.teach() creates in the project folder when the config names none;
#: a session whose config names no layer reads it
TAUGHT_LAYER = "semantic.yaml"


@dataclass(frozen=True)
class LoadedLayer:
    """A layer and where it came from (named in every error about it)."""

    layer: SemanticLayer
    origin: str  # a file name, "nl2sql.toml [semantic]" or "connect(semantic=...)"


def load_layer(
    config: FileConfig, explicit: str | Path | Mapping[str, Any] | None = None
) -> LoadedLayer | None:
    """The layer of a configuration (None when it names none); `explicit` replaces the file's."""
    if explicit is not None:
        if isinstance(explicit, Mapping):
            return LoadedLayer(
                parse_layer(dict(explicit), "connect(semantic=...)"), "connect(semantic=...)"
            )
        return read_layer_file(Path(explicit))
    section = dict(config.semantic)
    name = section.pop("file", None)
    loaded = read_layer_file(config.relative(str(name))) if name else None
    if not section:
        return loaded
    where = f"{config.path.name if config.path else 'config'} [semantic]"
    inline = parse_layer(section, where)
    if loaded is None:
        return LoadedLayer(inline, where)
    return LoadedLayer(loaded.layer.merged(inline), f"{loaded.origin} + {where}")


def read_layer_file(path: Path) -> LoadedLayer:
    """Parse and validate one layer file (YAML); a file that is not YAML is one line naming the
    line and the entry it is in."""
    from nl2sql.semantic.roundtrip import load_document

    if not path.is_file():
        raise ConfigError(f"semantic layer file not found: {path}")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path.name}: not valid YAML (not UTF-8 text)") from None
    return LoadedLayer(parse_layer(load_document(text, path.name), path.name), path.name)


def parse_layer(data: object, origin: str) -> SemanticLayer:
    """`data` validated as a layer; a ConfigError naming `origin` and the first bad entry."""
    if not isinstance(data, dict):
        raise ConfigError(
            f"{origin}: the layer must be a mapping with `sources:` and `relationships:`"
        )
    try:
        return SemanticLayer.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        # a misspelt key also leaves its right spelling missing: name the misspelling
        first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
        loc = tuple(first["loc"])
        message = str(first["msg"])
        if first["type"] == "extra_forbidden":
            message = _unknown_key(loc)
        raise ConfigError(f"{origin}: {entry_path(loc)}: {message}") from None


def entry_path(loc: tuple[Any, ...]) -> str:
    """`('sources', 'shop', 'terms', 2, 'means')` → `sources.shop.terms[2].means`."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def nearest(name: str, options: list[str]) -> str:
    """' — did you mean X?' for the closest of `options`, or '' (with the valid ones when few)."""
    lowered = {o.lower(): o for o in options}
    close = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
    if close:
        return f"; did you mean '{lowered[close[0]]}'?"
    if 0 < len(options) <= 8:
        return f"; valid: {', '.join(sorted(options))}"
    return ""


def _unknown_key(loc: tuple[Any, ...]) -> str:
    """The message for a key no model knows, with the nearest valid key of that entry."""
    model: type[BaseModel] | None = SemanticLayer
    for part in loc[:-1]:
        if model is None:
            break
        model = _child_model(model, part)
    keys = [f.alias or n for n, f in model.model_fields.items()] if model is not None else []
    return f"unknown key '{loc[-1]}'{nearest(str(loc[-1]), keys)}"


def _child_model(model: type[BaseModel], part: Any) -> type[BaseModel] | None:
    """The model one step down a validation location (through lists and dicts)."""
    from typing import get_args

    if isinstance(part, int):
        return model  # a list position: the item model was already chosen by the field
    field = model.model_fields.get(str(part))
    if field is None:
        return model  # a dict key (a source id, a table name): same model as the field's values
    todo: list[Any] = [field.annotation]
    while todo:
        kind = todo.pop()
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            return kind
        todo.extend(get_args(kind))
    return None
