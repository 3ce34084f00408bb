"""Arrow helpers for adapters: a capped read of a batch stream, and rows to an Arrow table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa


def read_capped(reader: pa.RecordBatchReader, row_cap: int) -> tuple[pa.Table, bool]:
    """Read at most `row_cap + 1` rows from a stream; return (at most row_cap rows, truncated)."""
    batches: list[pa.RecordBatch] = []
    seen = 0
    while seen <= row_cap:
        try:
            batch = reader.read_next_batch()
        except StopIteration:
            break
        batches.append(batch)
        seen += batch.num_rows
    table = pa.Table.from_batches(batches, schema=reader.schema)
    truncated = table.num_rows > row_cap
    return (table.slice(0, row_cap) if truncated else table), truncated


def table_from_rows(names: Sequence[str], rows: Sequence[Sequence[Any]]) -> pa.Table:
    """Rows (tuples) as an Arrow table; a column of mixed Python types becomes text.

    SQLite is dynamically typed, so one column can hold integers and strings; Arrow cannot, and
    text is the one type every value can be shown as.
    """
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in names]
    arrays = [_to_array(list(values)) for values in columns]
    fields = [pa.field(name, arr.type) for name, arr in zip(names, arrays, strict=True)]
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def _to_array(values: list[Any]) -> pa.Array:
    try:
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError):
        return pa.array([None if v is None else _as_text(v) for v in values], type=pa.string())


def _as_text(value: Any) -> str:
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    return str(value)
