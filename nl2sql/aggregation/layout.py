"""What a join or compare outputs, column by column: one rule for the local combine and the push-down.

The local combine (combine.py) builds the layout from its Arrow inputs; the push-down
(nl2sql/pushdown.py) builds it from the sub-queries' plans and renders it as one SQL query on
their engine. Both name and compute every output column the same way, so a question answered on
one engine or across two returns the same columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from nl2sql.aggregation.duck import unique_names


@dataclass(frozen=True)
class InputColumns:
    """One input of a combine: its column names and which of them hold numbers."""

    names: list[str]
    numeric: list[bool]

    def is_numeric(self, name: str) -> bool:
        return self.numeric[self.names.index(name)]


@dataclass(frozen=True)
class OutputColumn:
    """One output column: `column` (input, name); `keys` (a key, first non-null over the
    inputs); `diff` (second minus first)."""

    name: str
    kind: Literal["column", "keys", "diff"]
    sources: tuple[tuple[int, str], ...]


def join_layout(
    inputs: list[InputColumns], keys: list[list[str]], labels: list[str]
) -> list[OutputColumn]:
    """Inner join: the first input's columns, then the others' non-key columns; a name that
    clashes (case-insensitively) is suffixed `_<role>`."""
    kept = [
        [c for c in cols.names if i == 0 or c not in keys[i]] for i, cols in enumerate(inputs)
    ]
    counts: dict[str, int] = {}
    for names in kept:
        for c in names:
            counts[c.lower()] = counts.get(c.lower(), 0) + 1
    names_out, sources = [], []
    for i, names in enumerate(kept):
        for c in names:
            clash = counts[c.lower()] > 1 and not (i == 0 and c in keys[0])
            names_out.append(f"{c}_{labels[i]}" if clash else c)
            sources.append(((i, c),))
    return [
        OutputColumn(name, "column", src)
        for name, src in zip(unique_names(names_out), sources, strict=True)
    ]


def compare_layout(
    inputs: list[InputColumns], keys: list[list[str]], labels: list[str]
) -> list[OutputColumn]:
    """Full outer join: keys once, the other columns side by side as `<col>_<role>`, and
    `<measure>_diff` (second minus first) per numeric measure both inputs have; with no shared
    measure and two inputs of one measure each, `<b>_minus_<a>_diff`."""
    key_names = keys[0] if keys else []
    names: list[str] = list(key_names)
    columns: list[tuple[str, tuple[tuple[int, str], ...]]] = [
        ("keys", tuple((i, keys[i][j]) for i in range(len(inputs)))) for j in range(len(key_names))
    ]
    for i, cols in enumerate(inputs):
        for c in cols.names:
            if not keys or c not in keys[i]:
                columns.append(("column", ((i, c),)))
                names.append(f"{c}_{labels[i]}")
    measures = _measures(inputs, keys)
    for i, c in measures:
        columns.append(("diff", ((i, c), (0, c))))
        names.append(f"{c}_diff" if len(inputs) == 2 else f"{c}_diff_{labels[i]}")
    lone = _lone_measures(inputs, keys) if not measures and len(inputs) == 2 else None
    if lone:
        # Two different measures side by side (orders vs tickets): their difference still helps.
        columns.append(("diff", ((1, lone[1]), (0, lone[0]))))
        names.append(f"{lone[1]}_minus_{lone[0]}_diff")
    return [
        OutputColumn(name, kind, src)  # type: ignore[arg-type]  # kind is one of the literals
        for name, (kind, src) in zip(unique_names(names), columns, strict=True)
    ]


def _non_keys(cols: InputColumns, keys: list[list[str]], i: int) -> list[str]:
    return [c for c in cols.names if not keys or c not in keys[i]]


def _measures(inputs: list[InputColumns], keys: list[list[str]]) -> list[tuple[int, str]]:
    """(input index, column) for numeric non-key columns the first input also has."""
    base = {c for c in _non_keys(inputs[0], keys, 0) if inputs[0].is_numeric(c)}
    return [
        (i, c)
        for i, cols in enumerate(inputs)
        if i > 0
        for c in _non_keys(cols, keys, i)
        if c in base and cols.is_numeric(c)
    ]


def _lone_measures(inputs: list[InputColumns], keys: list[list[str]]) -> tuple[str, str] | None:
    """The single numeric non-key column of each of two inputs, when each has exactly one."""
    found = []
    for i, cols in enumerate(inputs):
        numeric = [c for c in _non_keys(cols, keys, i) if cols.is_numeric(c)]
        if len(numeric) != 1:
            return None
        found.append(numeric[0])
    return found[0], found[1]
