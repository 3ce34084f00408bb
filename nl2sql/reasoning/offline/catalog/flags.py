"""Yes/no flag columns: a column holding two values at most, each a spelling of true or false.

A BOOLEAN column, an integer column holding only 0 and 1, or a text column whose stored values
are spellings pydantic's bool parsing reads ('T'/'F', 'Y'/'N', 'yes'/'no', 'true'/'false'). The
stored values are what a condition compares with ("active" → `is_active = 'T'`).
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter, ValidationError

from nl2sql.reasoning.offline.catalog.index import SchemaIndex

_BOOL = TypeAdapter(bool)


def flag_values(idx: SchemaIndex, table: str, column: str) -> tuple[Any, Any] | None:
    """(stored true value, stored false value) of a flag column, either None when the data
    holds only the other; None for a column that is no flag."""
    col = idx.column(table, column)
    if col is None:
        return None
    if idx.kind(table, column) == "bool":
        return True, False
    if col.distinct_count is None or not 1 <= col.distinct_count <= 2:
        return None
    if not col.samples:
        ends = {col.min_value, col.max_value}
        if None in ends or not ends <= {0, 1}:
            return None
        return (1 if 1 in ends else None), (0 if 0 in ends else None)
    read: dict[bool, str] = {}
    for stored in col.samples:
        try:
            value = _BOOL.validate_python(stored.strip())
        except ValidationError:
            return None
        if read.setdefault(value, stored) != stored:
            return None  # two spellings of one truth value: not a plain flag
    if len(read) != col.distinct_count:
        return None  # the samples do not show every stored value
    return _typed(idx, table, column, read.get(True)), _typed(idx, table, column, read.get(False))


def _typed(idx: SchemaIndex, table: str, column: str, stored: str | None) -> Any:
    """A stored number compares as a number (`is_active = 1`), text as stored."""
    if stored is None or idx.kind(table, column) != "number":
        return stored
    return int(float(stored))
