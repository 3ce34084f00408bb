"""Post-execution checks that send a sub-query back through the refiner once each.

VALUE_NOT_FOUND: the result is empty, the plan filters a text column on a literal that does not
exist in that column, and a close value does (found among the snapshot's samples and with a
bounded, guarded lookup). JOIN_FAN_OUT: the plan counts (or sums over) rows of its first table
while a join along a non-unique key repeats those rows.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from nl2sql.errors import ErrorCode, PipelineError, error
from nl2sql.names import EXECUTOR
from nl2sql.plan import (
    Aggregate,
    ColumnRef,
    Comparison,
    InList,
    Literal_,
    MetricRef,
    PlanModel,
    walk,
)
from nl2sql.schema.models import SchemaSnapshot, Table

if TYPE_CHECKING:
    import pyarrow as pa

NODE = EXECUTOR
VALUE_NOT_FOUND = ErrorCode.VALUE_NOT_FOUND.value
JOIN_FAN_OUT = ErrorCode.JOIN_FAN_OUT.value
_PROBE_LIMIT = 50


def matched_nothing(table: pa.Table) -> bool:
    """No rows, or the single all-zero/NULL row an aggregate returns when no row matched."""
    if table.num_rows == 0:
        return True
    if table.num_rows > 1:
        return False
    return all(v in (0, None) for v in table.to_pylist()[0].values())


def _text_filters(plan: PlanModel) -> Iterator[tuple[ColumnRef, str]]:
    """(column, literal) for every `column = 'text'` / `column IN ('text', ...)` in WHERE."""
    if plan.where is None:
        return
    for node in walk(plan.where):
        if isinstance(node, Comparison) and node.op == "=":
            pairs = [(node.left, node.right), (node.right, node.left)]
            for column, value in pairs:
                if isinstance(column, ColumnRef) and isinstance(value, Literal_) and isinstance(value.value, str):
                    yield column, value.value
        elif isinstance(node, InList) and isinstance(node.expr, ColumnRef) and not node.negated:
            for value in node.values:
                if isinstance(value, Literal_) and isinstance(value.value, str):
                    yield node.expr, value.value


def _table_of(plan: PlanModel, column: ColumnRef) -> str | None:
    aliases = plan.alias_map()
    if column.table is not None:
        return aliases.get(column.table)
    return plan.tables[0].name if len(plan.tables) == 1 else None


def value_not_found(
    plan: PlanModel,
    snapshot: SchemaSnapshot,
    lookup: Callable[[str, str, str, int], list[str]],
    **tag: Any,
) -> PipelineError | None:
    """The first filter literal that is absent from its column while a close value exists."""
    for column, value in _text_filters(plan):
        table_key = _table_of(plan, column)
        table = snapshot.table(table_key) if table_key else None
        meta = table.column(column.name) if table else None
        if table is None or meta is None or not meta.is_text:
            continue
        candidates = set(meta.samples)
        try:
            if any(v == value for v in lookup(table.key, meta.name, value, 5)):
                continue  # the value exists: an empty result is the true answer
            candidates.update(lookup(table.key, meta.name, value[:4], _PROBE_LIMIT))
        except Exception:
            continue  # a lookup is best effort; never fail the sub-query on it
        close = difflib.get_close_matches(value, sorted(candidates), n=3, cutoff=0.75)
        close = close or difflib.get_close_matches(
            value.lower(), sorted(c.lower() for c in candidates), n=3, cutoff=0.75
        )
        if close:
            suggestion = next((c for c in candidates if c.lower() == close[0].lower()), close[0])
            return error(
                NODE, ErrorCode.VALUE_NOT_FOUND,
                f"no {table.key}.{meta.name} equals {value!r}; did you mean {suggestion!r}?",
                retryable=True, table=table.key, column=meta.name, value=value,
                suggestions=[suggestion, *close[1:]], **tag,
            )
    return None


def join_fan_out(plan: PlanModel, snapshot: SchemaSnapshot, **tag: Any) -> PipelineError | None:
    """COUNT(*) or SUM (or a metric that sums or counts) over the first table's rows when a join
    repeats them."""
    if not plan.joins or plan.distinct:
        return None
    base = snapshot.table(plan.tables[0].name)
    if base is None or not base.primary_key:
        return None
    base_alias = plan.tables[0].alias
    counts_rows = any(
        isinstance(n, Aggregate) and not n.distinct and (
            (n.func == "count" and n.arg is None)
            or (n.func == "sum" and isinstance(n.arg, ColumnRef) and n.arg.table == base_alias)
        ) or (isinstance(n, MetricRef) and n.table == base_alias
              and _metric_repeats(base, n.name, snapshot))
        for item in plan.select for n in walk(item.expr)
    )
    if not counts_rows:
        return None
    repeating = [t.name for t in plan.tables[1:] if _repeats_base(base.key, t.name, snapshot)]
    if not repeating:
        return None
    return error(
        NODE, ErrorCode.JOIN_FAN_OUT,
        f"the join with {repeating[0]} repeats {base.key} rows, so the count/sum is inflated",
        retryable=True, table=base.key, primary_key=base.primary_key, repeated_by=repeating, **tag,
    )


def _metric_repeats(base: Table, name: str, snapshot: SchemaSnapshot) -> bool:
    """A metric of the base table that sums, averages or counts its rows."""
    from nl2sql.sqlgen.metrics import repeats_with_rows

    metric = base.metric(name)
    return metric is not None and repeats_with_rows(metric.expression, snapshot.dialect)


def _repeats_base(base_key: str, other_key: str, snapshot: SchemaSnapshot) -> bool:
    """True when the join with `other` may meet one base row several times: `other` references
    `base` by a key that is not its own primary key nor one-to-one, or `base` references
    `other` by a one-to-many or many-to-many relationship."""
    other, base = snapshot.table(other_key), snapshot.table(base_key)
    if other is None:
        return False
    for fk in other.foreign_keys:
        if fk.ref_table.lower() == base_key.lower():
            unique = set(fk.columns) == set(other.primary_key)
            return fk.repeats_referenced and not unique
    return base is not None and any(fk.ref_table.lower() == other_key.lower() and fk.repeats_referencing
                                    for fk in base.foreign_keys)
