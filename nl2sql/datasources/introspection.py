"""Introspection shared by the adapters: column statistics, value samples, value lookup.

Every query (built in `sql_builders.py`) is run through the adapter's own connection by a
`run` callable (SQL text -> rows), so each engine applies its own timeout and read-only rules.
Statistics are taken over a bounded population (the first `POPULATION_LIMIT` rows) so that
introspecting a very large table stays cheap; `Column.distinct_count` is of that population.
A view's statistics run the view's own query, which may be arbitrarily slow: they get a short
budget (`VIEW_STATS_BUDGET_S`) and none past it, so a slow view never delays a session. Every
statistics query also ends by the deadline of the run that asked for the schema.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from sqlglot import exp

from nl2sql.datasources.base import ResultError
from nl2sql.datasources.sql_builders import (
    is_integer,
    is_sampled,
    is_scalar,
    lookup_values_sql,
    stats_sql,
    table_expr_from_key,
    top_values_sql,
)
from nl2sql.schema.models import Column, SchemaSnapshot, Table

log = logging.getLogger(__name__)

#: Text columns whose values average more than this many characters are free text: no samples.
MAX_SAMPLE_AVG_LENGTH = 80
#: Seconds the statistics of one table may take (its queries together).
TABLE_STATS_BUDGET_S = 10.0
#: Seconds the statistics of one view may take: a view's query may be slow (a sleeping or
#: remote function, a huge join); past this the view is described without samples.
VIEW_STATS_BUDGET_S = 1.0
#: A query is not started with less time than this left.
_MIN_QUERY_S = 0.05

Run = Callable[..., Sequence[Sequence[Any]]]  # run(sql, timeout_s=...) -> rows


class StatsBudget:
    """The seconds the statistics of one table have left: its own budget, and no later than the
    deadline of the run that asked for the schema (a snapshot is first read inside a run)."""

    def __init__(self, seconds: float):
        self._end = time.monotonic() + seconds

    @classmethod
    def for_table(cls, table: Table, table_s: float | None = None) -> StatsBudget:
        """A view's budget, or a table's (`table_s`, default TABLE_STATS_BUDGET_S)."""
        if table.kind == "view":
            return cls(VIEW_STATS_BUDGET_S)
        return cls(TABLE_STATS_BUDGET_S if table_s is None else table_s)

    def left(self) -> float:
        left = self._end - time.monotonic()
        run_left = _run_time_left()
        return left if run_left is None else min(left, run_left)


def _run_time_left() -> float | None:
    """Seconds before the current graph run's deadline, or None outside a run (or without one)."""
    try:
        from langgraph.runtime import get_runtime

        deadline = getattr(get_runtime().context, "deadline", None)
    except (RuntimeError, KeyError, AttributeError, ImportError):
        return None
    return None if deadline is None else deadline - time.monotonic()


def _bounded(run: Run, sql: str, budget: StatsBudget) -> Sequence[Sequence[Any]]:
    """run(sql) within what the budget has left; TimeoutError when it has nothing left."""
    left = budget.left()
    if left < _MIN_QUERY_S:
        raise TimeoutError("no time left for statistics")
    return run(sql, timeout_s=left)

def with_statistics(
    table: exp.Table,
    columns: list[Column],
    run: Run,
    dialect: str,
    sample_values: int,
    budget: StatsBudget | None = None,
) -> list[Column]:
    """Columns with `distinct_count` and `samples` filled in where the queries succeed.

    A failing statistics query (timeout, unsupported type) leaves the columns as they were:
    introspection must not fail because one table is expensive. All queries share `budget`.
    """
    budget = budget or StatsBudget(TABLE_STATS_BUDGET_S)
    scalar = [c for c in columns if is_scalar(c)]
    if not scalar:
        return columns
    try:
        row = _bounded(run, stats_sql(table, scalar, dialect), budget)[0]
    except Exception as exc:  # noqa: BLE001 - any engine error just means "no statistics"
        log.debug("statistics skipped for %s: %s", table.sql(), exc)
        return columns
    updates: dict[str, dict[str, Any]] = {}
    values = iter(row)
    for col in scalar:
        update: dict[str, Any] = {"distinct_count": int(next(values) or 0)}
        if is_integer(col):
            update["min_value"], update["max_value"] = _number(next(values)), _number(next(values))
        if is_sampled(col):
            avg_length = next(values)
            if sample_values > 0 and avg_length is not None and avg_length <= MAX_SAMPLE_AVG_LENGTH:
                update["samples"] = _samples(table, col.name, run, dialect, sample_values, budget)
        updates[col.name] = update
    return [c.model_copy(update=updates[c.name]) if c.name in updates else c for c in columns]


def _samples(
    table: exp.Table, column: str, run: Run, dialect: str, k: int, budget: StatsBudget
) -> list[str]:
    try:
        rows = _bounded(run, top_values_sql(table, column, k, dialect), budget)
    except Exception as exc:  # noqa: BLE001
        log.debug("samples skipped for %s.%s: %s", table.sql(), column, exc)
        return []
    return [str(r[0]) for r in rows]


def snapshot_with_statistics(adapter: Any, tables: Sequence[Table], run: Run) -> SchemaSnapshot:
    """The adapter's SchemaSnapshot: its catalog `tables`, each column with samples and counts.

    `adapter` supplies id, dialect, description, sample_values and table_stats_budget_s; `run` (SQL text -> rows) is
    the adapter's own bounded reader, passed in so no private attribute is read from outside.
    """
    tables = [
        t.model_copy(update={"columns": with_statistics(
            table_expr_from_key(t.key), t.columns, run, adapter.dialect, adapter.sample_values,
            StatsBudget.for_table(t, adapter.table_stats_budget_s),
        )})
        for t in tables
    ]
    return SchemaSnapshot(datasource_id=adapter.id, dialect=adapter.dialect, tables=tables,
                          description=adapter.description)


def resampled(snapshot: SchemaSnapshot, columns: Sequence[tuple[str, str]], run: Run,
              dialect: str, sample_values: int) -> SchemaSnapshot:
    """`snapshot` with the statistics of `columns` ((table key, column name)) taken again."""
    wanted: dict[str, set[str]] = {}
    for table_key, column in columns:
        wanted.setdefault(table_key, set()).add(column)
    tables = []
    for table in snapshot.tables:
        names = wanted.get(table.key)
        if names:
            redo = [c for c in table.columns if c.name in names]
            fresh = {c.name: c for c in with_statistics(
                table_expr_from_key(table.key), redo, run, dialect, sample_values,
                StatsBudget.for_table(table))}
            table = table.model_copy(update={"columns": [fresh.get(c.name, c) for c in table.columns]})
        tables.append(table)
    return snapshot.model_copy(update={"tables": tables})


def bounded_lookup(run: Callable[..., list[Any]], table_key: str, column: str, needle: str, limit: int,
                   dialect: str, timeout_s: float) -> list[str]:
    """Existing values of a column that equal or contain `needle` (case-insensitive).

    Best effort and bounded: a lookup slower than `timeout_s` returns no values; a query the
    database rejects (unknown table or column) raises ResultError.
    """
    if not needle or limit <= 0:
        return []
    sql = lookup_values_sql(table_expr_from_key(table_key), column, needle, limit, dialect)
    try:
        rows = run(sql, timeout_s=timeout_s)
    except ResultError as exc:
        if exc.kind == "timeout":
            return []
        raise
    return [str(r[0]) for r in rows if r[0] is not None]


def _number(value: Any) -> float | None:
    """A MIN/MAX result as a number; None for NULL or a stray non-numeric value (SQLite)."""
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None
