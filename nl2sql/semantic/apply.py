"""Writing a checked layer into a source's schema snapshot, so every reader sees it.

Relationships become foreign keys (first-class: the join search, the validator and the prompts
use them like declared ones), descriptions and units go to the tables and columns, and each
table's terms, metrics, labels, hidden columns and vocabularies go to `Table.semantic`. The
snapshot's fingerprint covers all of it, so a pin made before a layer change is stale. Access
filtering (`security/rbac.py`) runs on the result: a term or metric over a denied column is
invisible to that user.
"""

from __future__ import annotations

from collections.abc import Callable

from nl2sql.schema.models import (
    Column,
    ForeignKey,
    SchemaSnapshot,
    SemanticMetric,
    SemanticTerm,
    Table,
    TableSemantics,
)
from nl2sql.semantic.check import Where, check_source_layer, metric_columns, resolve_column
from nl2sql.semantic.load import LoadedLayer
from nl2sql.semantic.models import SourceLayer


def annotator(loaded: LoadedLayer) -> Callable[[SchemaSnapshot], SchemaSnapshot]:
    """A function checking a fresh snapshot against the layer and returning it annotated."""

    def annotate(snapshot: SchemaSnapshot) -> SchemaSnapshot:
        layer = loaded.layer.sources.get(snapshot.datasource_id)
        if layer is None:
            return snapshot
        check_source_layer(layer, snapshot, loaded.origin)
        return apply_source_layer(snapshot, layer, loaded.origin)

    return annotate


def apply_source_layer(snapshot: SchemaSnapshot, layer: SourceLayer, origin: str = "layer") -> SchemaSnapshot:
    """`snapshot` with `layer` written into it (the layer must have been checked against it)."""
    notes: dict[str, TableSemantics] = {}
    foreign: dict[str, list[ForeignKey]] = {}
    where = Where(origin, f"sources.{snapshot.datasource_id}")

    def semantic(table: Table) -> TableSemantics:
        return notes.setdefault(table.key, TableSemantics())

    for rel in layer.relationships:
        child, parent = resolve_column(snapshot, rel.from_, where), resolve_column(snapshot, rel.to, where)
        foreign.setdefault(child.table.key, []).append(
            ForeignKey(columns=[child.column.name], ref_table=parent.table.key,
                       ref_columns=[parent.column.name], from_layer=True, cardinality=rel.cardinality))
    for term in layer.terms:
        if term.value is None and term.order is None and "." not in term.means:
            found = snapshot.table(term.means)
            assert found is not None  # checked
            semantic(found).terms.append(SemanticTerm(term=term.term))
            continue
        ref = resolve_column(snapshot, term.means, where)
        semantic(ref.table).terms.append(
            SemanticTerm(term=term.term, column=ref.column.name, value=term.value, order=term.order))
    for metric in layer.metrics:
        table = snapshot.table(metric.table)
        assert table is not None  # checked
        semantic(table).metrics.append(SemanticMetric(
            name=metric.name, expression=metric.expression, description=metric.description,
            columns=metric_columns(metric, snapshot, where)))
    for name, labels in layer.labels.items():
        table = snapshot.table(name)
        assert table is not None  # checked
        semantic(table).labels = [c.name for c in table.columns if c.name.lower() in {n.lower() for n in labels}]
    for ref_text in layer.hidden:
        ref = resolve_column(snapshot, ref_text, where)
        semantic(ref.table).hidden.append(ref.column.name)
    column_notes: dict[tuple[str, str], str] = {}
    for ref_text, note in layer.columns.items():
        ref = resolve_column(snapshot, ref_text, where)
        if note.unit:
            semantic(ref.table).units[ref.column.name] = note.unit
        if note.values:
            semantic(ref.table).values[ref.column.name] = list(note.values)
        if note.description:
            column_notes[(ref.table.key, ref.column.name)] = note.description
    table_notes = {t.key: n.description for name, n in layer.tables.items()
                   if n.description and (t := snapshot.table(name)) is not None}
    tables = [_annotated(t, notes.get(t.key), foreign.get(t.key, []), column_notes,
                         table_notes.get(t.key)) for t in snapshot.tables]
    return snapshot.model_copy(update={"tables": tables})


def _annotated(table: Table, semantic: TableSemantics | None, foreign: list[ForeignKey],
               column_notes: dict[tuple[str, str], str], description: str | None) -> Table:
    layer = {(tuple(f.columns), f.ref_table.lower()): f for f in foreign}
    # a declared key the layer restates takes the layer's cardinality (a one-to-one extension)
    kept = [f.model_copy(update={"cardinality": layer[key].cardinality}) if key in layer else f
            for f in table.foreign_keys for key in [(tuple(f.columns), f.ref_table.lower())]]
    declared = {(tuple(f.columns), f.ref_table.lower()) for f in table.foreign_keys}
    added = [f for key, f in layer.items() if key not in declared]
    columns = [_described(c, column_notes.get((table.key, c.name))) for c in table.columns]
    return table.model_copy(update={
        "semantic": semantic,
        "foreign_keys": [*kept, *added],
        "columns": columns,
        "description": description or table.description,
    })


def _described(column: Column, note: str | None) -> Column:
    return column.model_copy(update={"description": note}) if note else column
