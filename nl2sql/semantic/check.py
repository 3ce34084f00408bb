"""Checking a layer against the sources' schemas: every name exists, every metric parses and
type-checks. The first problem is a ConfigError of one line naming the file, the entry and the
nearest valid name; a session never starts with part of its layer ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from nl2sql.errors import ConfigError
from nl2sql.schema.models import Column, SchemaSnapshot, Table
from nl2sql.semantic.load import LoadedLayer, nearest
from nl2sql.semantic.models import Metric, Relationship, SourceLayer

_AGGREGATES = ("SUM", "AVG", "COUNT", "MIN", "MAX")


@dataclass(frozen=True)
class ColumnRef:
    table: Table
    column: Column


class Where:
    """Names the entry being checked, for the one-line error."""

    def __init__(self, origin: str, path: str):
        self.origin, self.path = origin, path

    def fail(self, message: str) -> ConfigError:
        return ConfigError(f"{self.origin}: {self.path}: {message}")


def check_layer(loaded: LoadedLayer, schema: Callable[[str], SchemaSnapshot],
                source_ids: Collection[str]) -> None:
    """Every source, table and column the layer names exists; relationships across sources too.

    `schema(id)` gives a source's snapshot (read only for the sources the layer names)."""
    known = list(source_ids)
    for sid, layer in loaded.layer.sources.items():
        if sid not in known:
            where = Where(loaded.origin, f"sources.{sid}")
            raise where.fail(f"unknown datasource '{sid}'{nearest(sid, known)}")
        check_source_layer(layer, schema(sid), loaded.origin)
    for i, rel in enumerate(loaded.layer.relationships):
        where = Where(loaded.origin, f"relationships[{i}] ({rel.label()})")
        ends = [_cross_source_end(end, schema, known, where) for end in (rel.from_, rel.to)]
        sources = {end.partition(":")[0] for end in (rel.from_, rel.to)}
        if len(sources) == 1:
            sid = sources.pop()
            raise where.fail(f"both ends are in {sid}: a relationship within one source goes "
                             f"under `sources.{sid}.relationships`")
        _same_kind(ends[0], ends[1], where)


def check_source_layer(layer: SourceLayer, snapshot: SchemaSnapshot, origin: str) -> None:
    """Every entry of one source's layer against its (unfiltered) snapshot."""
    base = f"sources.{snapshot.datasource_id}"
    for i, rel in enumerate(layer.relationships):
        where = Where(origin, f"{base}.relationships[{i}] ({rel.label()})")
        _check_relationship(rel, snapshot, where)
    for i, term in enumerate(layer.terms):
        where = Where(origin, f"{base}.terms[{i}] ({term.label()})")
        if term.value is None and term.order is None and "." not in term.means:
            resolve_table(snapshot, term.means, where)
            continue
        ref = resolve_column(snapshot, term.means, where)
        if term.order is not None and not (ref.column.is_numeric or ref.column.is_temporal):
            raise where.fail(f"'{term.order}' orders by {term.means}, a {ref.column.type} column; "
                             "a superlative needs a number or a date")
    for name in layer.tables:
        resolve_table(snapshot, name, Where(origin, f"{base}.tables.{name}"))
    for name in layer.columns:
        resolve_column(snapshot, name, Where(origin, f"{base}.columns.{name}"))
    for i, metric in enumerate(layer.metrics):
        metric_columns(metric, snapshot, Where(origin, f"{base}.metrics[{i}] ({metric.label()})"))
    for table, labels in layer.labels.items():
        where = Where(origin, f"{base}.labels.{table}")
        found = resolve_table(snapshot, table, where)
        for name in labels:
            _column_of(found, name, where)
    for i, name in enumerate(layer.hidden):
        resolve_column(snapshot, name, Where(origin, f"{base}.hidden[{i}]"))


def resolve_table(snapshot: SchemaSnapshot, name: str, where: Where) -> Table:
    found = snapshot.table(name)
    if found is None:
        keys = [t.key for t in snapshot.tables]
        raise where.fail(f"unknown table '{name}' in {snapshot.datasource_id}{nearest(name, keys)}")
    return found


def resolve_column(snapshot: SchemaSnapshot, ref: str, where: Where) -> ColumnRef:
    """`table.column` (a table key may itself hold a dot: the column is after the last one)."""
    table_name, dot, column = ref.rpartition(".")
    if not dot or not table_name or not column:
        raise where.fail(f"'{ref}' is not `table.column`")
    table = resolve_table(snapshot, table_name, where)
    return ColumnRef(table, _column_of(table, column, where))


def _column_of(table: Table, name: str, where: Where) -> Column:
    found = table.column(name)
    if found is None:
        names = [c.name for c in table.columns]
        raise where.fail(f"unknown column '{name}' in {table.key}{nearest(name, names)}")
    return found


def _check_relationship(rel: Relationship, snapshot: SchemaSnapshot, where: Where) -> None:
    for end in (rel.from_, rel.to):
        if ":" in end:
            raise where.fail(f"'{end}' names a source: relationships across sources go under "
                             "the top-level `relationships:`")
    child = resolve_column(snapshot, rel.from_, where)
    parent = resolve_column(snapshot, rel.to, where)
    if child.table.key == parent.table.key and child.column.name == parent.column.name:
        raise where.fail("a column cannot reference itself")
    _same_kind(child, parent, where)


def _cross_source_end(end: str, schema: Callable[[str], SchemaSnapshot], known: list[str],
                      where: Where) -> ColumnRef:
    sid, colon, ref = end.partition(":")
    if not colon:
        raise where.fail(f"'{end}' names no source: write `source:table.column` across sources")
    if sid not in known:
        raise where.fail(f"unknown datasource '{sid}'{nearest(sid, known)}")
    return resolve_column(schema(sid), ref, where)


def _same_kind(a: ColumnRef, b: ColumnRef, where: Where) -> None:
    if join_kind(a.column) != join_kind(b.column):
        raise where.fail(f"{a.table.key}.{a.column.name} ({a.column.type}) and "
                         f"{b.table.key}.{b.column.name} ({b.column.type}) cannot be equal: "
                         "a join needs two numbers, two texts or two dates")


def join_kind(column: Column) -> str:
    """date | number | text: what two columns must share to be joined. A text column whose
    sampled values are all whole numbers (ids stored as text) counts as a number."""
    if column.is_temporal:
        return "date"
    if column.is_numeric:
        return "number"
    if column.is_text and column.samples and all(_whole(s) for s in column.samples):
        return "number"
    return "text" if column.is_text else column.type.upper()


def _whole(value: str) -> bool:
    text = str(value).strip()
    return text.removeprefix("-").isdigit()


def metric_columns(metric: Metric, snapshot: SchemaSnapshot, where: Where) -> list[str]:
    """The grain table's columns a metric reads; a ConfigError when it does not parse, is not an
    aggregate, names an unknown column or does arithmetic (or SUM/AVG) over a non-number."""
    import sqlglot
    from sqlglot import exp

    from nl2sql.sqlgen.metrics import metric_tree

    table = resolve_table(snapshot, metric.table, where)
    try:
        tree = metric_tree(metric.expression, snapshot.dialect or None)
    except sqlglot.errors.ParseError as exc:
        detail = str(exc).splitlines()[0] if str(exc) else "syntax error"
        raise where.fail(f"expression does not parse: {detail}") from None
    if isinstance(tree, exp.Query) or tree.find(exp.Select) is not None:
        raise where.fail("the expression must be an aggregate such as SUM(quantity * unit_price), "
                         "not a query")
    if not any(tree.find_all(exp.AggFunc)):
        raise where.fail(f"the expression aggregates nothing: use one of {', '.join(_AGGREGATES)}")
    read: list[str] = []
    for col in tree.find_all(exp.Column):
        if col.table and col.table.lower() not in (table.name.lower(), table.key.lower()):
            raise where.fail(f"'{col.sql()}' is outside the metric's table {table.key}")
        read.append(_column_of(table, col.name, where).name)
    numeric = (exp.Sum, exp.Avg, exp.Add, exp.Sub, exp.Mul, exp.Div)
    for node in tree.find_all(*numeric):
        operands = [node.this] if isinstance(node, exp.Sum | exp.Avg) else [
            node.args.get("this"), node.args.get("expression")]
        for operand in operands:
            if isinstance(operand, exp.Column):
                column = _column_of(table, operand.name, where)
                if not column.is_numeric:
                    raise where.fail(f"{node.key.upper()} over {table.key}.{column.name}, a "
                                     f"{column.type} column: it needs a number")
    return list(dict.fromkeys(read))
