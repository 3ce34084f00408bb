"""The queries the adapters send about their own data — column statistics, most frequent values,
value lookup — and the table references and type names they share, all built with sqlglot.

The statistics queries have one shape per dialect: built once over placeholder names, then filled
in per table (building them with sqlglot per table was half of introspecting a large schema).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from sqlglot import exp

from nl2sql.schema.models import Column

#: Rows read per table to compute distinct counts and samples.
POPULATION_LIMIT = 200_000

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


def is_sampled(column: Column) -> bool:
    # Enum columns hold labels just as text columns do (DuckDB reports ENUM('a', 'b')).
    return column.is_text or column.type.startswith("ENUM")


def is_scalar(column: Column) -> bool:
    t = column.type
    if any(marker in t for marker in ("[]", "STRUCT", "MAP", "UNION", "LIST")):
        return False
    return t == "" or any(hint in t for hint in _SCALAR_HINTS)


def _population(table: exp.Table, columns: Sequence[str]) -> exp.Subquery:
    inner = exp.select(*(_ident(c) for c in columns)).from_(table.copy()).limit(POPULATION_LIMIT)
    return inner.subquery("population")


def is_integer(column: Column) -> bool:
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
        if is_integer(col):
            projections += [_fill(t, t.minimum, {"c": name}), _fill(t, t.maximum, {"c": name})]
        if is_sampled(col):
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
        if is_integer(col):
            projections += [exp.Min(this=_ident(col.name)), exp.Max(this=_ident(col.name))]
        if is_sampled(col):
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
