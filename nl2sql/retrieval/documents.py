"""The texts the vector store embeds: one per datasource, one per table.

Kept apart from the store so what a search can match is easy to read and to test: table names
and column names as words, descriptions, human-readable original names and a few sample values
(a question often names a value — "PayPal", "ICU" — rather than the column that holds it).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from nl2sql.retrieval.embeddings import split_identifiers
from nl2sql.schema.models import SchemaSnapshot, Table

SAMPLES_PER_COLUMN = 5
MAX_SAMPLES = 40  # per table: enough to match a named value, not so many they drown the names


class DatasourceDoc(BaseModel):
    """What the resolver searches for a datasource: its description and a line per table."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    description: str
    table_summaries: list[str] = Field(default_factory=list)

    @classmethod
    def from_snapshot(
        cls, snapshot: SchemaSnapshot, description: str | None = None
    ) -> DatasourceDoc:
        """A doc for `snapshot`: the given or snapshot description, one summary line per table."""
        return cls(
            id=snapshot.datasource_id,
            description=description or snapshot.description or "",
            table_summaries=[table_summary(t) for t in snapshot.tables],
        )


def _words(identifier: str) -> str:
    return " ".join(split_identifiers(identifier).split())


def table_summary(table: Table) -> str:
    """One line: the table's name as words, its description and its column names.

    >>> from nl2sql.schema.models import Column
    >>> table_summary(Table(name="order_items", columns=[Column(name="unitPrice", type="REAL")]))
    'order items: unit Price'
    """
    head = _words(table.key)
    if table.description:
        head = f"{head} ({table.description.strip().rstrip('.')})"
    columns = ", ".join(_words(c.name) for c in table.columns)
    return f"{head}: {columns}"


def table_text(table: Table) -> str:
    """The document for one table: names, descriptions, columns and a few sample values."""
    lines = [f"{_words(table.key)} ({table.key})"]
    if table.original_name:
        lines.append(table.original_name)
    if table.description:
        lines.append(table.description.strip())
    columns = []
    for col in table.columns:
        text = _words(col.name)
        if col.original_name and col.original_name != col.name:
            text += f" ({col.original_name})"
        if col.description:
            text += f" - {col.description.strip()}"
        columns.append(text)
    lines.append("Columns: " + ", ".join(columns) + ".")
    samples = [s for col in table.columns if col.is_text for s in col.samples[:SAMPLES_PER_COLUMN]][
        :MAX_SAMPLES
    ]
    if samples:
        lines.append("Values: " + ", ".join(samples) + ".")
    return "\n".join(lines)


def datasource_text(doc: DatasourceDoc) -> str:
    """The document for one datasource: its id as words, description and table summaries."""
    lines = [_words(doc.id), doc.description.strip()]
    lines.extend(doc.table_summaries)
    return "\n".join(line for line in lines if line)
