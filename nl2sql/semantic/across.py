"""Relationships across sources, as the decomposer reads them.

The layer's top-level `relationships` (`warehouse:orders.cust_ref` → `crm:customers.code`) are
checked when the session opens (`check.py`); here they are resolved against the snapshots a run
may use: only those whose two ends are on two of its sources and visible in their snapshots
(a column a role may not read hides the relationship), with the stored spelling of each name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from nl2sql.schema.models import Cardinality, SchemaSnapshot, many_ends
from nl2sql.semantic.models import Relationship


@dataclass(frozen=True)
class SourceColumn:
    """One end: a source, a table key and a column name as the snapshot spells them."""

    source: str
    table: str
    column: str

    def ref(self) -> str:
        """`table.column` within the source."""
        return f"{self.table}.{self.column}"


@dataclass(frozen=True)
class CrossRelationship:
    """A relationship between a column of one source and a key of another."""

    from_: SourceColumn
    to: SourceColumn
    cardinality: Cardinality
    written: str  # as the layer writes it: "warehouse:orders.cust_ref → crm:customers.code"

    def end_on(self, source: str) -> SourceColumn:
        """The end on `source` (one of the two)."""
        return self.from_ if self.from_.source == source else self.to

    def many_on(self, source: str) -> bool:
        """Whether a key value may occur on several rows of `source`'s end."""
        many_from, many_to = many_ends(self.cardinality)
        return many_from if self.from_.source == source else many_to

    def text(self) -> str:
        """For prompts and reasoning: the relationship and its cardinality."""
        return f"{self.written} ({self.cardinality})"


def relevant_relationships(declared: Sequence[Relationship],
                           snapshots: Mapping[str, SchemaSnapshot]) -> list[CrossRelationship]:
    """The declared cross-source relationships between two of `snapshots`' sources whose ends
    are visible in them."""
    out = []
    for rel in declared:
        ends = [_end(text, snapshots) for text in (rel.from_, rel.to)]
        if ends[0] is None or ends[1] is None or ends[0].source == ends[1].source:
            continue
        out.append(CrossRelationship(ends[0], ends[1], rel.cardinality, f"{rel.from_} → {rel.to}"))
    return out


def _end(text: str, snapshots: Mapping[str, SchemaSnapshot]) -> SourceColumn | None:
    source, _, ref = text.partition(":")
    table_name, _, column_name = ref.rpartition(".")
    snapshot = snapshots.get(source)
    table = snapshot.table(table_name) if snapshot is not None else None
    column = table.column(column_name) if table is not None else None
    if table is None or column is None:
        return None
    return SourceColumn(source, table.key, column.name)
