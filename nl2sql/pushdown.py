"""Push-down: a combine group whose sub-queries all live on one datasource runs there, as one query.

The decomposer splits "compare the orders with the support tickets per region" into two
sub-queries and a compare group. When both sub-queries name the same datasource, fetching both
results and joining them in the local DuckDB moves every row of both across the wire; the engine
that holds the data can join them itself. `push_down()` (called by the decomposer node) replaces
such a group's sub-queries with one sub-query that carries them as `pushed_down.parts`; the SQL
agent plans each part as usual and `fuse_plans()` nests the part plans as derived tables of one
plan whose SELECT is the combine, so it is validated, rendered, guarded and executed like any
other plan. The output columns follow the same layout as the local combine
(aggregation/layout.py), so the answer has the same columns wherever it was combined.

What is not pushed down (and combines locally, within `combine_max_rows`/`combine_max_bytes`):
groups across datasources, a sub-query another group also reads, and a compare on an engine
without FULL OUTER JOIN (MySQL/MariaDB, SQLite before 3.39).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

from nl2sql.aggregation.combine import role_labels
from nl2sql.aggregation.layout import InputColumns, OutputColumn, compare_layout, join_layout
from nl2sql.decomposition import (
    CombineGroup,
    CombineInput,
    DecomposerResponse,
    PushedDown,
    SubQuery,
    sub_query_id,
)
from nl2sql.plan import (
    Aggregate,
    Arithmetic,
    BoolOp,
    Case,
    Cast,
    ColumnRef,
    Comparison,
    Expr,
    Extract,
    Function,
    Join,
    Literal_,
    MetricRef,
    OrderItem,
    PlanModel,
    SelectItem,
    SetOperation,
    Star,
    TableRef,
    col,
    is_aggregate,
    lit,
)
from nl2sql.schema.models import Column, SchemaSnapshot
from nl2sql.sqlgen.render import select_aliases

#: Engines (sqlglot dialects) without FULL OUTER JOIN: a compare there combines locally.
NO_FULL_JOIN = frozenset({"mysql", "mariadb", "singlestore", "doris", "starrocks"})
_NUMERIC_CASTS = frozenset({"integer", "bigint", "double", "decimal"})
_NUMERIC_FUNCTIONS = frozenset({"abs", "round", "length"})
LOCAL_ENGINE = "combined locally in DuckDB"


class FuseError(ValueError):
    """The parts' plans cannot be combined into one query (PLANNING_FAILURE)."""


def runs_in(dialect: str, datasource_id: str) -> str:
    """Where a query runs, as the plan and the trace say it: `postgres:crm`."""
    return f"{dialect}:{datasource_id}"


def push_down(
    response: DecomposerResponse, dialects: Mapping[str, str]
) -> tuple[DecomposerResponse, list[str]]:
    """`response` with every group that can run on one engine fused into one sub-query, and a
    note per fused group. `dialects`: datasource id -> the sqlglot dialect of its engine."""
    by_id = {sq.id: sq for sq in response.sub_queries}
    readers: dict[str, int] = {}
    for group in response.combine_groups:
        for sq_id in {i.subquery_id for i in group.inputs}:
            readers[sq_id] = readers.get(sq_id, 0) + 1
    fused: dict[str, SubQuery] = {}  # first part's id -> the fused sub-query
    gone: set[str] = set()
    groups, notes = [], []
    for group in response.combine_groups:
        parts = [by_id.get(i.subquery_id) for i in group.inputs]
        if not _fusable(group, parts, readers, dialects):
            groups.append(group)
            continue
        members = [p for p in parts if p is not None]
        one = _fused_sub_query(group, members, len(fused))
        fused[members[0].id] = one
        gone.update(p.id for p in members)
        groups.append(CombineGroup(group_id=group.group_id, operation="standalone",
                                   inputs=[CombineInput(subquery_id=one.id)]))
        ds = members[0].datasource_id
        notes.append(f"{group.operation} of {len(members)} sub-queries runs as one query in "
                     f"{runs_in(dialects[ds], ds)}")
    if not fused:
        return response, []
    sub_queries = [fused.get(sq.id, sq) for sq in response.sub_queries
                   if sq.id in fused or sq.id not in gone]
    return response.model_copy(update={"sub_queries": sub_queries, "combine_groups": groups}), notes


def placement(response: DecomposerResponse, dialects: Mapping[str, str]) -> dict[str, str]:
    """Where each step runs: sub-query id -> its engine (`postgres:crm`), combine group id ->
    `local DuckDB` for a combine that still crosses engines."""
    out = {sq.id: runs_in(dialects.get(sq.datasource_id, "?"), sq.datasource_id)
           for sq in response.sub_queries}
    out.update({g.group_id: "local DuckDB" for g in response.combine_groups
                if g.operation != "standalone"})
    return out


def _fusable(
    group: CombineGroup, parts: list[SubQuery | None], readers: Mapping[str, int],
    dialects: Mapping[str, str],
) -> bool:
    if group.operation == "standalone" or len(parts) < 2 or any(p is None for p in parts):
        return False
    members = [p for p in parts if p is not None]
    sources = {p.datasource_id for p in members}
    if len(sources) != 1 or len({p.id for p in members}) != len(members):
        return False
    if any(readers.get(p.id, 0) > 1 or p.pushed_down is not None for p in members):
        return False  # another group needs this sub-query's own result
    dialect = dialects.get(members[0].datasource_id)
    if dialect is None:
        return False
    if group.operation == "compare" and not _full_join(dialect):
        return False
    return True


def _full_join(dialect: str) -> bool:
    if dialect in NO_FULL_JOIN:
        return False
    return dialect != "sqlite" or sqlite3.sqlite_version_info >= (3, 39)


def _fused_sub_query(group: CombineGroup, parts: list[SubQuery], position: int) -> SubQuery:
    word = {"compare": "compared with", "join": "together with", "union": "and"}[group.operation]
    intent = f" {word} ".join(p.intent for p in parts)
    ds = parts[0].datasource_id
    return SubQuery(
        id=sub_query_id(ds, f"{group.operation}\x1f{group.group_id}\x1f{intent}", position),
        datasource_id=ds,
        intent=intent,
        metrics=[m for p in parts for m in p.metrics],
        filters=[f for p in parts for f in p.filters],
        group_by=list(dict.fromkeys(g for p in parts for g in p.group_by)),
        pushed_down=PushedDown(
            group_id=group.group_id,
            operation=group.operation,  # standalone was excluded by _fusable
            parts=parts,
            roles=[i.role for i in group.inputs],
            join_keys=group.join_keys,
        ),
    )


# -- one plan for the parts ------------------------------------------------------------------


def fuse_plans(pushed: PushedDown, plans: list[PlanModel], snapshot: SchemaSnapshot) -> PlanModel:
    """One plan computing `pushed`'s combine over the parts' plans (as derived tables)."""
    parts = [_named(plan, snapshot, i) for i, plan in enumerate(plans)]
    refs = [TableRef(name=f"part{i + 1}", alias=f"part{i + 1}", query=p) for i, p in enumerate(parts)]
    if pushed.operation == "union":
        return _union(refs)
    inputs = [InputColumns([i.alias or "" for i in p.select], [_numeric(i.expr, p, snapshot)
                                                            for i in p.select]) for p in parts]
    labels = role_labels(pushed.roles)
    keys = _keys(pushed, inputs)
    for cols, wanted, ref in zip(inputs, keys, refs, strict=True):
        missing = [k for k in wanted if k not in cols.names]
        if missing:
            raise FuseError(f"{ref.alias} has no key column {missing[0]!r}; it has {', '.join(cols.names)}")
    layout = (join_layout if pushed.operation == "join" else compare_layout)(inputs, keys, labels)
    kind = "inner" if pushed.operation == "join" else "full"
    if not keys[0] and not all(_one_row(p) for p in parts):
        raise FuseError("a compare without keys matches rows one by one, which one query "
                        "cannot do; name the column to compare by")
    # One-row parts without keys pair up as they are: an inner join on a true condition.
    joins = [Join(alias=refs[i].alias, kind=kind, on=_on(refs, keys, i, outer=kind == "full"))
             if keys[0] else Join(alias=refs[i].alias, on=Comparison(op="=", left=lit(1), right=lit(1)))
             for i in range(1, len(refs))]
    select = [_item(o, refs) for o in layout]
    # Ordered by the keys (the first input's, coalesced in a compare), so a re-run gives the
    # same table; the local combine keeps its inputs' order instead, so compare rows as sets.
    order = [i.expr for i in select[: len(keys[0])]] if pushed.operation == "compare" else [
        col(k, refs[0].alias) for k in keys[0]]
    return PlanModel(tables=refs, joins=joins, select=select,
                     order_by=[OrderItem(expr=e) for e in order])


def _named(plan: PlanModel, snapshot: SchemaSnapshot, index: int) -> PlanModel:
    """`plan` with an explicit alias on every select item: the names its result has alone."""
    if any(isinstance(i.expr, Star) for i in plan.select):
        raise FuseError(f"part {index + 1} selects '*', whose columns one query cannot name")
    aliases = select_aliases(plan, derive=True, every=True)
    items = []
    for item, alias in zip(plan.select, aliases, strict=True):
        if alias is None and isinstance(item.expr, ColumnRef):
            alias = _column_name(item.expr, plan, snapshot)
        items.append(item.model_copy(update={"alias": alias}))
    update: dict[str, object] = {"select": items}
    if plan.limit is None and plan.offset is None and plan.set_operation is None:
        update["order_by"] = []  # a derived table's order means nothing: do not make the engine sort
    return plan.model_copy(update=update)


def _column_name(ref: ColumnRef, plan: PlanModel, snapshot: SchemaSnapshot) -> str:
    """A bare column's result name: the snapshot's spelling, as the rendered SQL has it."""
    column = _column(ref, plan, snapshot)
    return column.name if column is not None else ref.name


def _column(ref: ColumnRef, plan: PlanModel, snapshot: SchemaSnapshot) -> Column | None:
    tables = {t.alias: t.name for t in plan.tables if t.query is None}
    key = tables.get(ref.table or "") if ref.table else (
        next(iter(tables.values())) if len(tables) == 1 else None)
    if key is None:
        for name in tables.values():
            table = snapshot.table(name)
            if table is not None and table.column(ref.name) is not None:
                return table.column(ref.name)
        return None
    table = snapshot.table(key)
    return table.column(ref.name) if table is not None else None


def _numeric(e: Expr, plan: PlanModel, snapshot: SchemaSnapshot) -> bool:
    """Whether a select expression yields numbers (what the local combine reads off Arrow)."""
    match e:
        case MetricRef():
            return True  # a metric aggregates numbers (its layer check refuses SUM of text)
        case Aggregate():
            if e.func in ("count", "sum", "avg"):
                return True
            return e.arg is not None and _numeric(e.arg, plan, snapshot)
        case ColumnRef():
            column = _column(e, plan, snapshot)
            return column is not None and column.is_numeric
        case Arithmetic() | Extract():
            return True
        case Cast():
            return e.to in _NUMERIC_CASTS
        case Function():
            if e.name == "coalesce":
                return bool(e.args) and _numeric(e.args[0], plan, snapshot)
            return e.name in _NUMERIC_FUNCTIONS
        case Literal_():
            return isinstance(e.value, int | float) and not isinstance(e.value, bool)
        case Case():
            return _numeric(e.whens[0].value, plan, snapshot)
    return False


def _keys(pushed: PushedDown, inputs: list[InputColumns]) -> list[list[str]]:
    """Each part's key columns: the group's join keys, else the dimensions all parts share."""
    if pushed.join_keys:
        return [[k.left for k in pushed.join_keys]] + [
            [k.right for k in pushed.join_keys] for _ in inputs[1:]]
    shared = [c for c in inputs[0].names if all(
        c in i.names and not i.is_numeric(c) for i in inputs)]
    return [list(shared) for _ in inputs]


def _one_row(plan: PlanModel) -> bool:
    """An aggregate with no GROUP BY returns exactly one row."""
    return (not plan.group_by and plan.set_operation is None
            and all(is_aggregate(i.expr) for i in plan.select))


def _on(refs: list[TableRef], keys: list[list[str]], i: int, *, outer: bool) -> Expr:
    """Part i's keys against the first part's (coalesced over the earlier parts in a full join)."""
    parts: list[Expr] = []
    for j, key in enumerate(keys[i]):
        left: Expr = col(keys[0][j], refs[0].alias)
        if outer and i > 1:
            left = Function(name="coalesce", args=[left, *(col(keys[p][j], refs[p].alias)
                                                          for p in range(1, i))])
        parts.append(Comparison(op="=", left=left, right=col(key, refs[i].alias)))
    return parts[0] if len(parts) == 1 else BoolOp(op="and", items=parts)


def _item(out: OutputColumn, refs: list[TableRef]) -> SelectItem:
    cols: list[Expr] = [col(name, refs[i].alias) for i, name in out.sources]
    expr: Expr
    if out.kind == "keys":
        expr = Function(name="coalesce", args=cols)
    elif out.kind == "diff":
        expr = Arithmetic(op="-", left=cols[0], right=cols[1])
    else:
        expr = cols[0]
    return SelectItem(expr=expr, alias=out.name)


def _union(refs: list[TableRef]) -> PlanModel:
    """UNION ALL of the parts by position, names from the first (as the local union)."""
    right: PlanModel | None = None
    for ref in reversed(refs[1:]):
        right = PlanModel(tables=[ref], select=[SelectItem(expr=Star())],
                          set_operation=SetOperation(op="union", all=True, right=right)
                          if right is not None else None)
    assert right is not None
    return PlanModel(tables=[refs[0]], select=[SelectItem(expr=Star())],
                     set_operation=SetOperation(op="union", all=True, right=right))
