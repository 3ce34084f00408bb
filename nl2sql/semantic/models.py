"""The semantic layer's shape, validated with pydantic (docs/configuration.md lists every key).

References name a table (`orders`), a column (`orders.ship_date`) or, in relationships across
sources, a source too (`crm:customers.id`). Whether they exist is checked against the schemas
(`check.py`); this module checks only the shape.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from nl2sql.schema.models import Cardinality


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Relationship(_Entry):
    """`from` references `to`: `orders.customer_id` → `customers.id`."""

    from_: str = Field(alias="from")
    to: str
    cardinality: Cardinality = "many-to-one"
    note: str | None = None  # why it holds (describe writes its evidence here)

    def label(self) -> str:
        return f"{self.from_} -> {self.to}"


class Term(_Entry):
    """A business word: for a table (`means: customers`), a column (`means: orders.quantity`),
    a stored value (`value: California`) or a superlative (`order: desc`)."""

    term: str = Field(min_length=1)
    means: str
    value: str | None = None
    order: Literal["asc", "desc"] | None = None

    def label(self) -> str:
        return f"term '{self.term}'"


class ColumnNotes(_Entry):
    """What a column means: a description, its unit, the words it holds."""

    description: str | None = None
    unit: str | None = None
    values: list[str] = Field(default_factory=list)  # vocabulary of a low-cardinality column


class TableNotes(_Entry):
    """What a table means."""

    description: str | None = None


class Metric(_Entry):
    """A named aggregate with its grain: `revenue = SUM(quantity * unit_price)` over order_items."""

    name: str = Field(min_length=1)
    expression: str
    table: str  # the grain: the table whose rows the expression aggregates
    description: str | None = None

    def label(self) -> str:
        return f"metric '{self.name}'"


class SourceLayer(_Entry):
    """Everything the layer says about one datasource."""

    relationships: list[Relationship] = Field(default_factory=list)
    terms: list[Term] = Field(default_factory=list)
    tables: dict[str, TableNotes] = Field(default_factory=dict)  # table -> notes
    columns: dict[str, ColumnNotes] = Field(default_factory=dict)  # "table.column" -> notes
    metrics: list[Metric] = Field(default_factory=list)
    labels: dict[str, list[str]] = Field(default_factory=dict)  # table -> label columns
    hidden: list[str] = Field(default_factory=list)  # "table.column" never shown


class SemanticLayer(_Entry):
    """The whole layer: per source, and the relationships across sources."""

    sources: dict[str, SourceLayer] = Field(default_factory=dict)
    relationships: list[Relationship] = Field(default_factory=list)  # `src:table.col` both ends

    def merged(self, other: SemanticLayer) -> SemanticLayer:
        """This layer with `other`'s entries added (inline config after the file)."""
        sources = {sid: layer.model_copy(deep=True) for sid, layer in self.sources.items()}
        for sid, extra in other.sources.items():
            if sid not in sources:
                sources[sid] = extra
                continue
            base = sources[sid]
            for name in SourceLayer.model_fields:
                mine, theirs = getattr(base, name), getattr(extra, name)
                merged = {**mine, **theirs} if isinstance(mine, dict) else [*mine, *theirs]
                setattr(base, name, merged)
        return SemanticLayer(sources=sources, relationships=[*self.relationships, *other.relationships])
