"""A plan with the key columns of a join across sources (`SubQuery.key_columns`) in its output.

The two sides of a relationship across sources are joined after each has run, so each side
answers per key. An aggregate plan gets the keys as its first output columns and in its
grouping, and its measures become partials that an aggregate over the joined rows finishes
(`Keyed.finish`): SUM, COUNT, MIN and MAX stay as they are and are finished by SUM, SUM, MIN and
MAX; AVG becomes its SUM and COUNT, finished as SUM/SUM, so the average weighs every row, not
every key. A SUM, AVG or COUNT of DISTINCT values cannot be finished from per-key partials (a
value may occur under several keys): Unclear. A listing gets the keys first and becomes
DISTINCT: one row per key and listed value.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nl2sql.plan import (
    Aggregate,
    Arithmetic,
    ColumnRef,
    PlanModel,
    SelectItem,
    Star,
    is_aggregate,
    walk,
)
from nl2sql.reasoning.offline.shapes.spec import Unclear
from nl2sql.schema.models import SchemaSnapshot

_FINISH = {"sum": "sum", "count": "sum", "min": "min", "max": "max"}


@dataclass
class Keyed:
    """The keyed plan; for an aggregate plan, how its partial measures are finished."""

    plan: PlanModel
    keys: list[str]  # the keys' output names, in `key_columns` order
    finish: list[SelectItem] = field(default_factory=list)  # over the partials' output names
    groups: list[str] = field(default_factory=list)  # other grouped output names
    aggregated: bool = False


def keyed_plan(plan: PlanModel, key_columns: list[str], snapshot: SchemaSnapshot) -> Keyed:
    """`plan` answering per key of `key_columns` (`table.column`); Unclear when it cannot."""
    if plan.set_operation is not None or plan.limit is not None or plan.offset is not None:
        raise Unclear("a part joined across sources cannot keep a set operation or a row limit")
    keys = [_key_item(plan, ref, snapshot) for ref in key_columns]
    key_names = [k.alias or "" for k in keys]
    rest = [i for i in _expanded(plan, snapshot) if not any(i.expr == k.expr for k in keys)]
    if not _aggregates(plan):
        listed = plan.model_copy(update={"select": [*keys, *rest], "distinct": True,
                                         "order_by": []})
        return Keyed(listed, key_names)
    if plan.having is not None:
        raise Unclear("a part joined across sources cannot keep a HAVING condition")
    select, finish, groups = list(keys), [], []
    for position, item in enumerate(rest):
        name = item.alias or f"measure_{position + 1}"
        if not any(is_aggregate(n) for n in walk(item.expr)):
            select.append(item)
            groups.append(name)
            continue
        parts, finished = _partials(item.expr, name)
        select += parts
        finish.append(finished)
    group_by = [k.expr for k in keys] + [g for g in plan.group_by if g not in [k.expr for k in keys]]
    keyed = plan.model_copy(update={"select": select, "group_by": group_by, "order_by": []})
    return Keyed(keyed, key_names, finish, groups, aggregated=True)


def _key_item(plan: PlanModel, ref: str, snapshot: SchemaSnapshot) -> SelectItem:
    table_name, _, column_name = ref.rpartition(".")
    table = snapshot.table(table_name)
    column = table.column(column_name) if table is not None else None
    if table is None or column is None:
        raise Unclear(f"the key column {ref} is not in {snapshot.datasource_id}")
    alias = next((t.alias for t in plan.tables if t.query is None and t.name.lower() == table.key.lower()),
                 None)
    if alias is None:
        raise Unclear(f"the key column {ref} is on {table.key}, a table the plan does not read")
    return SelectItem(expr=ColumnRef(table=alias, name=column.name), alias=column.name)


def _expanded(plan: PlanModel, snapshot: SchemaSnapshot) -> list[SelectItem]:
    """The select list with each `*` spelt out as its table's shown columns (so a key beside it
    is not selected twice)."""
    out = []
    for item in plan.select:
        if not isinstance(item.expr, Star):
            out.append(item)
            continue
        star = item.expr.table
        for ref in plan.tables:
            table = snapshot.table(ref.name) if ref.query is None and star in (None, ref.alias) else None
            hidden = {h.lower() for h in table.semantic.hidden} if table and table.semantic else set()
            out += [SelectItem(expr=ColumnRef(table=ref.alias, name=c.name), alias=c.name)
                    for c in (table.columns if table else []) if c.name.lower() not in hidden]
    return out


def _aggregates(plan: PlanModel) -> bool:
    return bool(plan.group_by) or any(
        is_aggregate(n) for item in plan.select for n in walk(item.expr))


def _partials(expr: object, name: str) -> tuple[list[SelectItem], SelectItem]:
    """The per-key output items of one measure and the aggregate that finishes them."""
    if not isinstance(expr, Aggregate):
        raise Unclear(f"'{name}' computes over aggregates; it cannot be finished after a join")
    if expr.distinct and expr.func in ("count", "sum", "avg"):
        raise Unclear(f"'{name}' counts distinct values, which per-key partials cannot add up")
    if expr.func == "avg":
        total, count = f"{name}_sum", f"{name}_count"
        parts = [SelectItem(expr=expr.model_copy(update={"func": "sum"}), alias=total),
                 SelectItem(expr=expr.model_copy(update={"func": "count"}), alias=count)]
        ratio = Arithmetic(op="/", left=_agg("sum", total), right=_agg("sum", count))
        return parts, SelectItem(expr=ratio, alias=name)
    return [SelectItem(expr=expr, alias=name)], SelectItem(expr=_agg(_FINISH[expr.func], name), alias=name)


def _agg(func: str, column: str) -> Aggregate:
    return Aggregate.model_validate({"func": func, "arg": ColumnRef(name=column)})
