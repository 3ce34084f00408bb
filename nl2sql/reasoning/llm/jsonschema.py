"""A compact JSON schema of a response model, for the provider's structured-output request.

Pydantic's schema of PlanModel is about 38 KB (~9,500 tokens) because every expression slot
repeats the 18-way discriminated union with its mapping. Compacted, the union is one `$defs`
entry referenced everywhere, titles and null defaults go, and each variant's `kind` tag becomes
required (pydantic needs the tag to pick the variant, so it must never be left out). The result
accepts exactly what the pydantic model accepts; pydantic still validates every answer.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from pydantic import BaseModel

from nl2sql.errors import safe_one_line

_EXPR = "Expr"


@lru_cache(maxsize=32)
def _compact_text(model: type[BaseModel], first: tuple[str, ...] = ()) -> str:
    schema = model.model_json_schema()
    props = schema.get("properties", {})
    # Constrained decoders emit properties in schema order: `first` (e.g. the reasoning)
    # is written before the answer it explains.
    schema["properties"] = {k: props[k] for k in (*[f for f in first if f in props], *props)}
    defs = schema.pop("$defs", {})
    unions: dict[str, dict[str, Any]] = {}
    defs = {name: _walk(body, unions) for name, body in defs.items()}
    top = _walk(schema, unions)
    for body in defs.values():
        _require_tag(body)
    defs.update(unions)
    if "$ref" in top and set(top) <= {"$ref"}:  # a recursive root: inline its definition
        top = dict(defs[top["$ref"].rsplit("/", 1)[1]])
    top["title"] = model.__name__
    top["description"] = safe_one_line(model.__doc__ or model.__name__, None)
    if defs:
        top["$defs"] = defs
    return json.dumps(top, separators=(",", ":"))


def compact_schema(model: type[BaseModel], first: tuple[str, ...] = ()) -> dict[str, Any]:
    """The compact JSON schema of `model`, properties named in `first` leading (a fresh copy)."""
    schema: dict[str, Any] = json.loads(_compact_text(model, first))
    return schema


def schema_size(model: type[BaseModel], first: tuple[str, ...] = ()) -> int:
    """Characters of the compact schema (prompt accounting)."""
    return len(_compact_text(model, first))


def _walk(node: Any, unions: dict[str, dict[str, Any]]) -> Any:
    if isinstance(node, list):
        return [_walk(item, unions) for item in node]
    if not isinstance(node, dict):
        return node
    if "discriminator" in node and "oneOf" in node:
        # The one discriminated union of the plan AST: define it once, refer to it everywhere.
        unions.setdefault(_EXPR, {"oneOf": node["oneOf"]})
        return {"$ref": f"#/$defs/{_EXPR}"}
    out = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "default" and value is None:
            continue
        out[key] = (
            _walk(value, unions)
            if key != "properties"
            else {name: _walk(prop, unions) for name, prop in value.items()}
        )
    return out


def _require_tag(body: dict[str, Any]) -> None:
    kind = body.get("properties", {}).get("kind")
    if isinstance(kind, dict) and "const" in kind:
        kind.pop("default", None)
        body["properties"] = {"kind": kind} | body["properties"]
        required = body.setdefault("required", [])
        if "kind" not in required:
            required.insert(0, "kind")
