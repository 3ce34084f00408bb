"""Introspection helpers shared by the adapters: type names, column statistics, value samples.

Every query here is built with sqlglot and run through the adapter's own connection by a
`run` callable (SQL text -> rows), so each engine applies its own timeout and read-only rules.
Statistics are taken over a bounded population (the first `POPULATION_LIMIT` rows) so that
introspecting a very large table stays cheap; `Column.distinct_count` is of that population.
A view's statistics run the view's own query, which may be arbitrarily slow: they get a short
budget (`VIEW_STATS_BUDGET_S`) and none past it, so a slow view never delays a session. Every
statistics query also ends by the deadline of the run that asked for the schema.
"""

from __future__ import annotations

import functools
import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from nl2sql.datasources.base import ResultError
from nl2sql.schema.models import Column, SchemaSnapshot, Table

log = logging.getLogger(__name__)

#: Rows read per table to compute distinct counts and samples.
POPULATION_LIMIT = 200_000
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
    def for_table(cls, table: Table) -> StatsBudget:
        return cls(VIEW_STATS_BUDGET_S if table.kind == "view" else TABLE_STATS_BUDGET_S)

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

_SCALAR_HINTS = (
    "CHAR",
    "TEXT",
    "STRING",
    "CLOB",
    "INT",
    "DEC",
    "NUM",
    "REAL",
    "FLOAT",
    "DOUBLE",
    "DATE",
    "TIME",
    "BOOL",
    "ENUM",
)


def normalize_type(raw: str | None) -> str:
    """Upper-case a reported type name and collapse its whitespace.

    >>> normalize_type(" varchar(20) ")
    'VARCHAR(20)'
    >>> normalize_type("timestamp   with time zone")
    'TIMESTAMP WITH TIME ZONE'
    """
    return re.sub(r"\s+", " ", (raw or "").strip()).upper()


def table_expr(name: str, schema: str | None = None) -> exp.Table:
    """A quoted table reference."""
    return exp.table_(name, db=schema, quoted=True)


def table_expr_from_key(key: str) -> exp.Table:
    """A quoted table reference from a `Table.key` ("name" or "schema.name")."""
    schema, _, name = key.rpartition(".")
    return table_expr(name, schema or None)


def _ident(name: str) -> exp.Column:
    return exp.column(name, quoted=True)


def _is_sampled(column: Column) -> bool:
    # Enum columns hold labels just as text columns do (DuckDB reports ENUM('a', 'b')).
    return column.is_text or column.type.startswith("ENUM")


def _is_scalar(column: Column) -> bool:
    t = column.type
    if any(marker in t for marker in ("[]", "STRUCT", "MAP", "UNION", "LIST")):
        return False
    return t == "" or any(hint in t for hint in _SCALAR_HINTS)


def _population(table: exp.Table, columns: Sequence[str]) -> exp.Subquery:
    inner = exp.select(*(_ident(c) for c in columns)).from_(table.copy()).limit(POPULATION_LIMIT)
    return inner.subquery("population")


def _is_integer(column: Column) -> bool:
    # integer columns get MIN/MAX: the range relationship inference checks keys against
    t = column.type
    return "INT" in t and "INTERVAL" not in t and "POINT" not in t


# The statistics queries have one shape per dialect: built with sqlglot once, over placeholder
# names, then filled in per table by quoting names the way that dialect's generator does (sqlglot
# building them per table was half of introspecting a large schema). A dialect whose generator
# reshapes them per column (T-SQL's TOP adds aliases) fails the probe and keeps sqlglot per table.
_PLACEHOLDER = "nl2sql_slot_{}_"
_PROBE_TABLE = exp.table_('t"`]x', db="s b", quoted=True)
_PROBE_COLUMNS = (Column(name='a"`]b', type="TEXT"), Column(name="n", type="INTEGER"))


@dataclass(frozen=True)
class _Templates:
    """A dialect's statistics queries with slots: the identifier quoting, the stats query (with
    slots for the projections, the population columns and the table), one projection of each
    kind (slot for the column) and the top-values query (column and table)."""

    open: str
    close: str
    escaped_close: str
    slot: re.Pattern[str]  # a slot, quoted or not
    stats: str
    count: str
    avg_length: str
    minimum: str
    maximum: str
    top_values: str


def _slot(name: str) -> str:
    return _PLACEHOLDER.format(name)


@functools.lru_cache(maxsize=64)
def _templates(dialect: str, k: int) -> _Templates | None:
    """The templates of `dialect`, or None when they would not give what sqlglot gives."""
    quoted = exp.to_identifier(_slot("q"), quoted=True).sql(dialect)
    open_, close = quoted.split(_slot("q"))
    escaped = exp.to_identifier(close, quoted=True).sql(dialect)[len(open_):-len(close) or None]
    column = exp.column(_slot("c"))
    t = _Templates(
        open_, close, escaped,
        re.compile(f"{re.escape(open_)}?nl2sql_slot_(\\w+?)_{re.escape(close)}?"),
        stats=exp.select(exp.column(_slot("p"))).from_(
            _population(exp.table_(_slot("t")), [_slot("c")])).sql(dialect),
        count=exp.Count(this=exp.Distinct(expressions=[column.copy()])).sql(dialect),
        avg_length=exp.Avg(this=exp.Length(this=exp.cast(column.copy(), "TEXT"))).sql(dialect),
        minimum=exp.Min(this=column.copy()).sql(dialect),
        maximum=exp.Max(this=column.copy()).sql(dialect),
        top_values=_top_values_expr(exp.table_(_slot("t")), _slot("c"), k).sql(dialect),
    )
    probe = _stats_from(t, _PROBE_TABLE, _PROBE_COLUMNS), _top_from(t, _PROBE_TABLE, 'a"`]b')
    wanted = (_stats_expr(_PROBE_TABLE, _PROBE_COLUMNS).sql(dialect),
              _top_values_expr(_PROBE_TABLE, 'a"`]b', k).sql(dialect))
    return t if probe == wanted else None


def _fill(t: _Templates, template: str, slots: dict[str, str]) -> str:
    return t.slot.sub(lambda m: slots[m.group(1)], template)


def _quote(t: _Templates, name: str) -> str:
    return t.open + name.replace(t.close, t.escaped_close) + t.close


def _table_sql(t: _Templates, table: exp.Table) -> str:
    parts = [p.name for p in (table.args.get("catalog"), table.args.get("db")) if p is not None]
    return ".".join(_quote(t, name) for name in [*parts, table.name])


def _stats_from(t: _Templates, table: exp.Table, columns: Sequence[Column]) -> str:
    projections: list[str] = []
    for col in columns:
        name = _quote(t, col.name)
        projections.append(_fill(t, t.count, {"c": name}))
        if _is_integer(col):
            projections += [_fill(t, t.minimum, {"c": name}), _fill(t, t.maximum, {"c": name})]
        if _is_sampled(col):
            projections.append(_fill(t, t.avg_length, {"c": name}))
    return _fill(t, t.stats, {"p": ", ".join(projections), "t": _table_sql(t, table),
                              "c": ", ".join(_quote(t, c.name) for c in columns)})


def _top_from(t: _Templates, table: exp.Table, column: str) -> str:
    return _fill(t, t.top_values, {"t": _table_sql(t, table), "c": _quote(t, column)})


def stats_sql(table: exp.Table, columns: Sequence[Column], dialect: str) -> str:
    """One query: COUNT(DISTINCT c) for every column, AVG(LENGTH(c)) for the sampled ones,
    MIN(c) and MAX(c) for the integer ones."""
    t = _templates(dialect, 1)
    return _stats_expr(table, columns).sql(dialect) if t is None else _stats_from(t, table, columns)


def top_values_sql(table: exp.Table, column: str, k: int, dialect: str) -> str:
    """The k most frequent non-null values of a column (ties broken by value)."""
    t = _templates(dialect, k)
    return _top_values_expr(table, column, k).sql(dialect) if t is None else _top_from(t, table, column)


def _stats_expr(table: exp.Table, columns: Sequence[Column]) -> exp.Select:
    projections: list[exp.Expr] = []
    for col in columns:
        projections.append(exp.Count(this=exp.Distinct(expressions=[_ident(col.name)])))
        if _is_integer(col):
            projections += [exp.Min(this=_ident(col.name)), exp.Max(this=_ident(col.name))]
        if _is_sampled(col):
            text = exp.cast(_ident(col.name), "TEXT")
            projections.append(exp.Avg(this=exp.Length(this=text)))
    return exp.select(*projections).from_(_population(table, [c.name for c in columns]))


def _top_values_expr(table: exp.Table, column: str, k: int) -> exp.Select:
    value = _ident(column)
    count = exp.Count(this=exp.Star())
    return (
        exp.select(value)
        .from_(_population(table, [column]))
        .where(exp.Not(this=exp.Is(this=value.copy(), expression=exp.Null())))
        .group_by(value.copy())
        .order_by(exp.Ordered(this=count, desc=True), value.copy())
        .limit(k)
    )


def lookup_values_sql(table: exp.Table, column: str, needle: str, limit: int, dialect: str) -> str:
    """Existing values of a column equal to or containing `needle`, case-insensitively.

    Exact matches first, then shorter values, then alphabetical — so the best candidate leads.
    """
    value = _ident(column)
    lowered = exp.Lower(this=exp.cast(value.copy(), "TEXT"))
    wanted = exp.Lower(this=exp.Literal.string(needle))
    contains = exp.GT(
        this=exp.StrPosition(this=lowered, substr=wanted), expression=exp.Literal.number(0)
    )
    # 1/0 rather than the comparison itself: PostgreSQL has no MAX(boolean).
    exact = exp.If(
        this=exp.EQ(this=lowered.copy(), expression=wanted.copy()),
        true=exp.Literal.number(1),
        false=exp.Literal.number(0),
    )
    query = (
        exp.select(value)
        .from_(table.copy())
        .where(contains)
        .group_by(value.copy())
        .order_by(
            exp.Ordered(this=exp.Max(this=exact), desc=True),
            exp.Length(this=exp.cast(value.copy(), "TEXT")),
            value.copy(),
        )
        .limit(limit)
    )
    return query.sql(dialect)


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
    scalar = [c for c in columns if _is_scalar(c)]
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
        if _is_integer(col):
            update["min_value"], update["max_value"] = _number(next(values)), _number(next(values))
        if _is_sampled(col):
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

    `adapter` supplies id, dialect, description and sample_values; `run` (SQL text -> rows) is
    the adapter's own bounded reader, passed in so no private attribute is read from outside.
    """
    tables = [
        t.model_copy(update={"columns": with_statistics(
            table_expr_from_key(t.key), t.columns, run, adapter.dialect, adapter.sample_values,
            StatsBudget.for_table(t),
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
