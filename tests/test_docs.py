"""The docs name real things: every test in docs/failure_recovery.md's table exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_FILE = "tests/integration/test_failures.py"


def _named_tests() -> list[tuple[str, str]]:
    rows = [
        line
        for line in (ROOT / "docs" / "failure_recovery.md").read_text().splitlines()
        if line.startswith("| ") and "test_" in line
    ]
    found = []
    for row in rows:
        cell = row.rstrip("|").split("|")[-1]
        current = DEFAULT_FILE
        for ref in re.findall(r"`([^`]+)`", cell):
            path, _, name = ref.rpartition("::")
            current = path or current
            found.append((current, name))
    return found


def test_failure_table_names_existing_tests():
    named = _named_tests()
    assert len(named) >= 20
    for path, name in named:
        source = (ROOT / path).read_text()
        assert re.search(rf"^def {re.escape(name)}\(", source, re.M), f"{path}::{name} is missing"


def test_configuration_reference_lists_every_key_of_the_semantic_layer():
    from pydantic import BaseModel

    from nl2sql.semantic import models

    text = (ROOT / "docs" / "configuration.md").read_text()
    table = [line for line in text.splitlines() if line.startswith("| `")]
    keys = {cell for line in table for cell in re.findall(r"`([^`]+)`", line.split("|")[1])}
    example = text.split("## The file", 1)[1].split("### Keys", 1)[0]
    for model in vars(models).values():
        if (
            isinstance(model, type)
            and issubclass(model, BaseModel)
            and model.__module__ == models.__name__
        ):
            for name, field in model.model_fields.items():
                key = field.alias or name
                assert any(
                    k == key
                    or k.endswith(("." + key, "]." + key))
                    or k.startswith(key + ".")
                    or k.endswith(">." + key)
                    for k in keys
                ), f"{model.__name__}.{key} not in the keys table"
                assert f"{key}:" in example or f"{key} =" in example, (
                    f"{model.__name__}.{key} has no example"
                )


def test_configuration_reference_examples_are_valid_layers():
    """Every layer example of the reference reads as a layer: the keys an analyst copies work."""
    import tomllib

    import yaml

    from nl2sql.semantic.load import parse_layer

    text = (ROOT / "docs" / "configuration.md").read_text()
    blocks = re.findall(r"```(yaml|toml)\n(.*?)```", text, re.S)
    layers = [yaml.safe_load(body) for kind, body in blocks if kind == "yaml"]
    layers = [layer for layer in layers if "answers" not in layer]  # the curated answers file
    inline = [tomllib.loads(body)["semantic"] for kind, body in blocks if kind == "toml"]
    assert len(layers) >= 2 and inline
    for layer in layers + [{k: v for k, v in section.items() if k != "file"} for section in inline]:
        parsed = parse_layer(layer, "docs/configuration.md")
        assert parsed.sources or parsed.relationships
