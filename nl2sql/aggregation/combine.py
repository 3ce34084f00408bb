"""The combine operations over Arrow tables: union, join and compare.

Results keep their inputs' row order (a hidden row number orders them), because DuckDB's hash
joins return rows in no stable order and an analyst re-running a question expects the same table.
Key columns whose types differ (int64 vs int32, decimal vs double) are cast to one common type in
Arrow before the join, so every key compares value to value and the output key has one type.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc
from sqlglot import exp

from nl2sql.aggregation.duck import (
    AggregationError,
    DuckSession,
    alias,
    column,
    order_column,
    with_row_number,
)
from nl2sql.aggregation.layout import InputColumns, OutputColumn, compare_layout, join_layout


@dataclass
class CombineInputs:
    """The tables of one combine group, in order, with their role labels and key columns."""

    tables: list[pa.Table]
    labels: list[str]
    keys: list[list[str]] = field(default_factory=list)  # per input: its key column names
    notes: list[str] = field(default_factory=list)  # messages worth a RunWarning


def role_labels(roles: list[str]) -> list[str]:
    """Role names used as column suffixes; repeated roles are numbered so suffixes differ."""
    if len(set(roles)) == len(roles):
        return roles
    return [f"{role}{i + 1}" for i, role in enumerate(roles)]


def union_all(duck: DuckSession, tables: list[pa.Table]) -> pa.Table:
    """UNION ALL by column position; names come from the first input."""
    widths = [t.num_columns for t in tables]
    if len(set(widths)) != 1:
        raise AggregationError(f"union inputs have different column counts {widths}")
    row = order_column(tables)
    src = order_column([*tables, pa.table({row: pa.array([], pa.int64())})])
    selects = []
    for i, table in enumerate(tables):
        numbered = with_row_number(table, row)
        numbered = numbered.append_column(src, pa.array([i] * table.num_rows, type=pa.int64()))
        selects.append(exp.select("*").from_(duck.register(numbered)))
    union: exp.Query = selects[0]
    for select in selects[1:]:
        union = exp.union(union, select, distinct=False)
    ordered = exp.select("*").from_(union.subquery("u")).order_by(column(src), column(row))
    return duck.query(ordered).drop_columns([row, src])


def cast_keys(inputs: CombineInputs) -> None:
    """Cast each key position to one common type across inputs (in place)."""
    for j in range(len(inputs.keys[0])):
        types = [
            _plain(t.schema.field(k[j]).type)
            for t, k in zip(inputs.tables, inputs.keys, strict=True)
        ]
        target = common_type(types)
        if pa.types.is_string(target) and not all(_text(t) for t in types):
            inputs.notes.append(
                f"join keys {[k[j] for k in inputs.keys]} have types {[str(t) for t in types]} "
                "and were compared as text"
            )
        for i, (table, keys) in enumerate(zip(inputs.tables, inputs.keys, strict=True)):
            idx = table.schema.get_field_index(keys[j])
            if table.schema.field(idx).type != target:
                inputs.tables[i] = table.set_column(
                    idx, keys[j], _cast(table.column(idx), target, keys[j])
                )


def common_type(types: list[pa.DataType]) -> pa.DataType:
    """One Arrow type every key type converts to without changing its values' meaning."""
    if all(t == types[0] for t in types):
        return types[0]
    if all(pa.types.is_integer(t) for t in types):
        return pa.int64()
    if all(_numeric(t) for t in types):
        if any(pa.types.is_floating(t) for t in types):
            return pa.float64()
        scale = max((t.scale for t in types if pa.types.is_decimal(t)), default=0)
        digits = max(t.precision - t.scale if pa.types.is_decimal(t) else 19 for t in types)
        return pa.decimal128(min(38, digits + scale), scale)
    if all(_text(t) for t in types):
        return pa.string()
    if all(pa.types.is_date(t) for t in types):
        return pa.date32()
    if all(pa.types.is_temporal(t) and not pa.types.is_time(t) for t in types):
        tz = next((t.tz for t in types if pa.types.is_timestamp(t) and t.tz), None)
        return pa.timestamp("us", tz=tz)
    # Anything else (text vs number included) compares as text rather than failing the join.
    return pa.string()


def _numeric(t: pa.DataType) -> bool:
    return bool(pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t))


def _text(t: pa.DataType) -> bool:
    return bool(pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t))


def _plain(t: pa.DataType) -> pa.DataType:
    """The value type of a dictionary column; other types unchanged."""
    return t.value_type if pa.types.is_dictionary(t) else t


def _cast(values: pa.ChunkedArray, target: pa.DataType, name: str) -> pa.ChunkedArray:
    try:
        return pc.cast(values, target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise AggregationError(
            f"join key {name!r} ({values.type}) cannot be converted to {target}"
        ) from exc


def _register_all(duck: DuckSession, inputs: CombineInputs, row: str) -> list[exp.Table]:
    return [duck.register(with_row_number(t, row)) for t in inputs.tables]


def _check_keys(inputs: CombineInputs) -> None:
    for table, keys, label in zip(inputs.tables, inputs.keys, inputs.labels, strict=True):
        missing = [k for k in keys if k not in table.column_names]
        if missing:
            raise AggregationError(
                f"input {label!r} has no key column {missing[0]!r}; "
                f"it has {', '.join(table.column_names)}"
            )


def _conditions(
    refs: list[exp.Table], keys: list[list[str]], i: int, *, outer: bool
) -> exp.Condition:
    """ON clause for input i: its keys against the first input's (coalesced over earlier inputs
    in an outer join, where the first input may be missing the row)."""
    parts = []
    for j, key in enumerate(keys[i]):
        left: exp.Expr = column(keys[0][j], refs[0])
        if outer and i > 1:
            left = exp.Coalesce(
                this=left, expressions=[column(keys[p][j], refs[p]) for p in range(1, i)]
            )
        parts.append(exp.EQ(this=left, expression=column(key, refs[i])))
    return exp.and_(*parts, copy=False)  # the parts are new: nothing to copy


def _columns_of(inputs: CombineInputs) -> list[InputColumns]:
    return [
        InputColumns(t.column_names, [_numeric(_plain(f.type)) for f in t.schema])
        for t in inputs.tables
    ]


def _select(refs: list[exp.Table], layout: list[OutputColumn]) -> exp.Select:
    """The SELECT list of a layout over the registered inputs."""
    items: list[exp.Expr] = []
    for out in layout:
        cols = [column(name, refs[i]) for i, name in out.sources]
        if out.kind == "keys":
            items.append(exp.Coalesce(this=cols[0], expressions=cols[1:]))
        elif out.kind == "diff":
            items.append(exp.Sub(this=cols[0], expression=cols[1]))
        else:
            items.append(cols[0])
    return exp.Select(expressions=[alias(e, o.name) for e, o in zip(items, layout, strict=True)])


def _joined(refs: list[exp.Table], layout: list[OutputColumn], keys: list[list[str]], row: str,
            *, outer: bool) -> exp.Select:
    """SELECT <layout> FROM input 0 [FULL OUTER] JOIN input i ON <keys> ... ORDER BY each input's
    row number, built in place (sqlglot's builder methods copy the tree at every call)."""
    select = _select(refs, layout)
    select.set("from_", exp.From(this=refs[0]))
    side = {"side": "FULL", "kind": "OUTER"} if outer else {}
    select.set("joins", [exp.Join(this=refs[i], on=_conditions(refs, keys, i, outer=outer), **side)
                         for i in range(1, len(refs))])
    select.set("order", exp.Order(expressions=[exp.Ordered(this=column(row, r)) for r in refs]))
    return select


def join(duck: DuckSession, inputs: CombineInputs) -> pa.Table:
    """Inner join on the keys; the other inputs' key columns are dropped and clashing names
    are suffixed with `_<role>` (layout.join_layout)."""
    _check_keys(inputs)
    cast_keys(inputs)
    row = order_column(inputs.tables)
    refs = _register_all(duck, inputs, row)
    layout = join_layout(_columns_of(inputs), inputs.keys, inputs.labels)
    return duck.query(_joined(refs, layout, inputs.keys, row, outer=False))


def compare(duck: DuckSession, inputs: CombineInputs) -> pa.Table:
    """Full outer join on the keys: keys once, other columns side by side as `<col>_<role>`,
    and `<measure>_diff` (= second - first) for each numeric measure both inputs have
    (layout.compare_layout).

    Without join keys the inputs are matched on the columns they share that are not numbers
    (their dimensions), or, when they share none (e.g. two one-row totals), row by row.
    """
    if not inputs.keys:
        shared = shared_dimensions(inputs.tables)
        inputs.keys = [list(shared) for _ in inputs.tables]
    if inputs.keys[0]:
        _check_keys(inputs)
        cast_keys(inputs)
    row = order_column(inputs.tables)
    refs = _register_all(duck, inputs, row)
    keys = inputs.keys if inputs.keys[0] else [[row] for _ in refs]
    layout = compare_layout(_columns_of(inputs), inputs.keys, inputs.labels)
    return duck.query(_joined(refs, layout, keys, row, outer=True))


def shared_dimensions(tables: list[pa.Table]) -> list[str]:
    """Columns every table has that are not numeric in any of them, in the first's order."""
    return [
        c
        for c in tables[0].column_names
        if all(c in t.column_names and not _numeric(_plain(t.schema.field(c).type)) for t in tables)
    ]
