"""Human column labels and column roles, read off the plans that made a result.

A result's columns carry SQL aliases (`count_orders_left`, `customerID`,
`count_support_tickets_minus_count_orders_diff`); a reader wants "Orders", "Customer ID",
"Difference". The label comes from what the select item computed (an aggregate over a table or
a column, a date part, a plain column), and the alias stays the column's name in every frame.

The role says what a column is for a chart: a `measure` (an aggregate, a compared measure or
its difference), a `time` grain (a date part, or a date column the plan groups by), a
`category` (a grouped column), a `key` (ids and codes: never plotted), or `text`/`value` (an
entity's own fields, as in a list). Pure functions of names and plans: no data is read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from nl2sql.inflection import is_plural, plural_phrase, singular_phrase
from nl2sql.plan import (
    Aggregate,
    Arithmetic,
    Cast,
    ColumnRef,
    Expr,
    Extract,
    Function,
    PlanModel,
    is_aggregate,
    walk,
)

if TYPE_CHECKING:
    import pyarrow as pa

    from nl2sql.decomposition import DecomposerResponse
    from nl2sql.pipeline.subgraphs.schemas import SubgraphOutput
    from nl2sql.result import QueryResult

Role = Literal["measure", "time", "category", "key", "text", "value"]
Kind = Literal["number", "date", "text"]

_SPLIT = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|[^0-9A-Za-z\u00C0-\uFFFF]+")
_KEY_WORDS = {"id", "ids", "uuid", "guid", "key", "pk", "fk", "code", "sku", "zip", "postcode", "phone"}
_TIME_WORDS = {"year", "quarter", "month", "week", "day", "date", "hour", "period"}
_PART_SHORT = ("yr", "yy", "yyyy", "mon", "mo", "mm", "mth", "qtr", "dd", "dy", "part", "num", "no")
_FUNC_WORDS = {"sum": "Total", "avg": "Average", "min": "Lowest", "max": "Highest"}
_MECHANICAL = {"count", "cnt", "num", "number", "n", "of", "total", "sum", "avg", "average", "mean",
               "min", "max", "minimum", "maximum", "distinct", "unique", "value", "diff"}


@dataclass(frozen=True)
class ColumnInfo:
    """One result column: its SQL name, a human label and its role."""

    name: str
    label: str
    role: Role
    aggregate: str = ""  # count, sum, avg, min or max when the column is one aggregate


@dataclass(frozen=True)
class Source:
    """A plan that fed the result: its combine role and datasource (both "" when standalone)."""

    plan: PlanModel | None
    role: str = ""
    datasource: str = ""


def words(identifier: str) -> list[str]:
    """An identifier's words: snake_case, camelCase, kebab-case and spaces alike.

    >>> words("count_support_tickets"), words("customerID"), words("OrderDate")
    (['count', 'support', 'tickets'], ['customer', 'ID'], ['Order', 'Date'])
    """
    return [w for w in _SPLIT.split(identifier) if w]


def humanize(identifier: str) -> str:
    """An identifier as a label: "first_name" → "First name", "customerID" → "Customer ID".

    >>> humanize("first_name"), humanize("customerID"), humanize("ZIP_code"), humanize("region")
    ('First name', 'Customer ID', 'ZIP code', 'Region')
    """
    parts = []
    for w in words(identifier):
        if w.lower() in ("id", "ids"):
            parts.append(w.upper().replace("IDS", "IDs"))
        elif w.isupper() and len(w) > 1:
            parts.append(w)  # an acronym stays as written
        else:
            parts.append(w.lower())
    text = " ".join(parts) or identifier
    return text[:1].upper() + text[1:]


def is_key_name(identifier: str) -> bool:
    """Ids, keys and codes by name: `id`, `customer_id`, `customerID`, `order_key`, `sku`."""
    found = [w.lower() for w in words(identifier)]
    return bool(found) and found[-1] in _KEY_WORDS


def is_time_name(identifier: str) -> bool:
    return bool({w.lower() for w in words(identifier)} & _TIME_WORDS)


def describe_columns(columns: Sequence[tuple[str, Kind]], sources: Sequence[Source]) -> list[ColumnInfo]:
    """Label and role of each (name, kind) column of a result made from `sources`' plans.

    A standalone result has one source; a compare or join has one per input, in order, and its
    columns are the inputs' aliases with `_<role>` suffixes and `_diff` differences.
    """
    by_role = {s.role: s for s in sources if s.role}
    if not any(s.plan is not None for s in sources):
        found = [_guessed(name, kind) for name, kind in columns]
    else:
        found = [_one(name, kind, sources, by_role) for name, kind in columns]
        only = sources[0].plan if len(sources) == 1 else None
        if only is not None and len(only.select) == len(columns):
            # an unaliased expression gets an engine's own name ("max(net)"): match by position
            found = [_positional(info, only, i, columns[i][1]) for i, info in enumerate(found)]
        if only is not None:
            found = _ranked(found, only)
    return _distinct_labels(found, by_role)


def _ranked(found: list[ColumnInfo], plan: PlanModel) -> list[ColumnInfo]:
    """A top-N of rows by a number ("the 5 priciest items") ranks a measure per entity: the
    ordered number is the measure and the entity's text names the bars."""
    if plan.limit is None or not plan.order_by or any(c.role == "measure" for c in found):
        return found
    key = plan.order_by[0].expr
    name = key.name if isinstance(key, ColumnRef) else None
    if not any(c.name == name and c.role == "value" for c in found):
        return found
    return [ColumnInfo(c.name, c.label, "measure") if c.name == name
            else ColumnInfo(c.name, c.label, "category") if c.role == "text" else c for c in found]


def _positional(info: ColumnInfo, plan: PlanModel, index: int, kind: Kind) -> ColumnInfo:
    item = plan.select[index]
    if _from_plan(info.name, kind, plan) is not None or item.alias is not None:
        return info
    label, role = _item(info.name, item.expr, kind, plan)
    return ColumnInfo(info.name, label, role, item.expr.func if isinstance(item.expr, Aggregate) else "")


def _guessed(name: str, kind: Kind) -> ColumnInfo:
    """Without a plan nothing is known to be grouped: numbers are measures (named as their
    alias says: `count_books` → "Books", `avg_price` → "Average price"), dates a time axis
    and other text a category; ids and keys stay keys."""
    info = _by_name(name, kind, grouped=True)
    if info.role == "value" or (kind == "number" and info.role == "category"):
        label, func = _alias_label(name)
        return ColumnInfo(name, label, "measure", func)
    return info


_ALIAS_FUNCS = {"count": "count", "cnt": "count", "num": "count", "sum": "sum", "total": "sum",
                "avg": "avg", "average": "avg", "mean": "avg", "min": "min", "max": "max"}


def _alias_label(name: str) -> tuple[str, str]:
    """(label, aggregate) read off an aggregate's usual alias: `count_orders`, `orders_count`,
    `sum_amount`; (humanized name, "") for any other."""
    parts = words(name)
    if len(parts) < 2:
        return humanize(name), ""
    head, tail = _ALIAS_FUNCS.get(parts[0].lower()), _ALIAS_FUNCS.get(parts[-1].lower())
    func, rest = (head, parts[1:]) if head else (tail, parts[:-1]) if tail else ("", parts)
    if not func:
        return humanize(name), ""
    subject = humanize("_".join(rest))
    if func == "count":
        return _plural_label(subject), func
    return f"{_FUNC_WORDS[func]} {subject[:1].lower() + subject[1:]}", func


def _one(name: str, kind: Kind, sources: Sequence[Source], by_role: dict[str, Source]) -> ColumnInfo:
    if name.lower().endswith("_diff") or re.search(r"_diff_[^_]+$", name.lower()):
        return ColumnInfo(name, "Difference", "measure")
    for source in sources:
        info = _from_plan(name, kind, source.plan)
        if info is not None:
            return info
    for role, source in by_role.items():
        suffix = f"_{role}"
        if name.endswith(suffix) and len(name) > len(suffix):
            info = _from_plan(name[: -len(suffix)], kind, source.plan)
            if info is not None:
                return ColumnInfo(name, info.label, info.role, info.aggregate)
    return _by_name(name, kind, grouped=False)


def _from_plan(name: str, kind: Kind, plan: PlanModel | None) -> ColumnInfo | None:
    """The column's label and role from the select item that made it (None: not this plan's)."""
    if plan is None:
        return None
    for item in plan.select:
        if item.alias == name or (item.alias is None and isinstance(item.expr, ColumnRef)
                                  and item.expr.name == name):
            label, role = _item(name, item.expr, kind, plan)
            func = item.expr.func if isinstance(item.expr, Aggregate) else ""
            return ColumnInfo(name, label, role, func)
    return None


def _item(name: str, expr: Expr, kind: Kind, plan: PlanModel) -> tuple[str, Role]:
    grouped = any(g == expr or (isinstance(g, ColumnRef) and g.name == name) for g in plan.group_by)
    if _has_aggregate(expr):
        return _measure_label(name, expr, plan), "measure"
    if isinstance(expr, Extract):
        plain = _mechanical(name, [expr.part, *_PART_SHORT])  # "yr", "month_num": just "Year", "Month"
        return (expr.part.title() if plain else humanize(name)), "time"
    if isinstance(expr, Cast) and expr.to in ("date", "timestamp") and grouped:
        return humanize(name), "time"
    label = humanize(name)
    info = _by_name(name, kind, grouped)
    return label, info.role


def _by_name(name: str, kind: Kind, grouped: bool) -> ColumnInfo:
    label = humanize(name)
    if name.lower().endswith("_diff"):
        return ColumnInfo(name, "Difference", "measure")
    if is_key_name(name):
        return ColumnInfo(name, label, "key")
    if kind == "date" or (kind == "number" and is_time_name(name) and grouped):
        return ColumnInfo(name, label, "time" if grouped else "text")
    if grouped:
        return ColumnInfo(name, label, "category")
    return ColumnInfo(name, label, "value" if kind == "number" else "text")


def _has_aggregate(expr: Expr) -> bool:
    return any(is_aggregate(n) for n in walk(expr))


def _measure_label(name: str, expr: Expr, plan: PlanModel) -> str:
    """"Orders" for COUNT(*) of orders, "Total amount" for SUM(amount), or the alias when the
    planner chose a name of its own ("revenue")."""
    if not isinstance(expr, Aggregate):
        return humanize(name)
    column = _column_name(expr.arg)
    table = _table_name(plan)
    if not _mechanical(name, [column or "rows", table]):
        return humanize(name)
    if expr.func == "count":
        if column is None:
            return _plural_label(table)
        if expr.distinct and is_key_name(column) and len(words(column)) > 1:
            return plural_phrase(humanize("_".join(words(column)[:-1])))  # distinct customer ids: "Customers"
        return f"{'Distinct ' if expr.distinct else ''}{humanize(column)}{'' if expr.distinct else ' count'}"
    if column is None:
        return humanize(name)
    label = humanize(column)
    return f"{_FUNC_WORDS[expr.func]} {label[:1].lower() + label[1:] if not words(column)[0].isupper() else label}"


def _plural_label(name: str) -> str:
    label = humanize(name)
    return label if is_plural(label) else f"{label} count"


def _column_name(expr: Expr | None) -> str | None:
    if isinstance(expr, ColumnRef):
        return expr.name
    if isinstance(expr, (Function, Cast, Arithmetic)):
        refs = [n for n in walk(expr) if isinstance(n, ColumnRef)]
        return refs[0].name if len(refs) == 1 else None
    return None


def _table_name(plan: PlanModel) -> str:
    return table_noun(plan.tables[0].name)


def table_noun(key: str) -> str:
    """A table's name without its schema and a naming-convention prefix: "dbo.tblOrders" →
    "Orders", "dim_customer" → "customer".

    >>> table_noun("dbo.tblOrders"), table_noun("dim_customer"), table_noun("orders")
    ('Orders', 'customer', 'orders')
    """
    name = key.rsplit(".", 1)[-1]
    parts = words(name)
    if len(parts) > 1 and parts[0].lower() in _TABLE_PREFIXES:
        return "_".join(parts[1:])
    return name


_TABLE_PREFIXES = {"tbl", "tb", "dim", "fact", "fct", "stg", "vw"}


def _mechanical(alias: str, names: Iterable[str]) -> bool:
    """Whether an alias only says what the expression says (`count_orders`, `order_count`)."""
    allowed = {w.lower() for n in names for w in words(n)}
    allowed |= {singular_phrase(w) for w in allowed} | {plural_phrase(w) for w in allowed}
    return all(w.lower() in allowed or w.lower() in _MECHANICAL for w in words(alias))


def _distinct_labels(found: list[ColumnInfo], by_role: dict[str, Source]) -> list[ColumnInfo]:
    """Two columns never share a label: a compared measure gains its source, else its alias."""
    counts: dict[str, int] = {}
    for info in found:
        counts[info.label] = counts.get(info.label, 0) + 1
    out = []
    for info in found:
        role = next((r for r in by_role if info.name.endswith(f"_{r}")), None)
        if counts[info.label] > 1 and role is not None:
            where = by_role[role].datasource or role
            info = ColumnInfo(info.name, f"{info.label} ({where})", info.role, info.aggregate)
        out.append(info)
    seen: set[str] = set()
    final = []
    for info in out:
        label = info.label if info.label not in seen else f"{info.label} ({info.name})"
        seen.add(label)
        final.append(ColumnInfo(info.name, label, info.role, info.aggregate))
    return final


def plan_sources(terminal: str, decomposition: DecomposerResponse | None,
                 outputs: Iterable[SubgraphOutput]) -> list[Source]:
    """The plans behind the terminal result `terminal` (a DAG node id): the inputs of its combine
    group in order (one for a standalone result), or every sub-query's when it cannot be told."""
    by_id = {(o.sub_query.id if o.sub_query else o.subgraph_id): o for o in outputs}
    # DAG node ids (nl2sql.dag): "combine:<group>", "post:<op>", "scan:<sub-query>"
    kind, _, name = terminal.partition(":")
    if kind == "post" and decomposition is not None:
        name = next((p.group_id for p in decomposition.post_combine_ops if p.op_id == name), name)
    groups = decomposition.combine_groups if decomposition else []
    group = next((g for g in groups if g.group_id == name), None)
    if group is not None:
        ids = [(i.subquery_id, i.role if len(group.inputs) > 1 else "") for i in group.inputs]
    elif name in by_id:
        ids = [(name, "")]
    else:
        ids = [(k, "") for k in by_id]
    roles = [r for _, r in ids]
    if len(set(roles)) != len(roles):  # the aggregator numbers repeated roles (combine.role_labels)
        roles = [f"{r}{i + 1}" for i, r in enumerate(roles)]
    sources = []
    for (sq_id, _), role in zip(ids, roles, strict=True):
        out = by_id.get(sq_id)
        if out is not None:
            sources.append(Source(out.plan, role, out.sub_query.datasource_id if out.sub_query else ""))
    return sources


def result_columns(result: QueryResult, table: pa.Table | None = None) -> list[ColumnInfo]:
    """Label and role of every column of the result's answer table ([] when it has none)."""
    table = result.table() if table is None else table
    if table is None:
        return []
    agg = result.state.aggregator_response
    terminal = next(iter(agg.terminal_results), "") if agg else ""
    sources = plan_sources(terminal, result.decomposition, result.sub_queries)
    return describe_columns([(f.name, arrow_kind(f.type)) for f in table.schema], sources)


def arrow_kind(t: pa.DataType) -> Kind:
    import pyarrow.types as pt

    if pt.is_integer(t) or pt.is_floating(t) or pt.is_decimal(t):
        return "number"
    if pt.is_temporal(t):
        return "date"
    return "text"
