"""SchemaSnapshot: what the pipeline knows about a datasource's tables.

One canonical table identity everywhere (snapshot, retriever, validator, policy, generator):
`Table.key` — the table name, prefixed by its schema only when the datasource has several.
"""

from __future__ import annotations

import hashlib
import json
import threading
import weakref
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# how many rows of each end one value of a relationship's key meets: `from`-to-`to`
Cardinality = Literal["many-to-one", "one-to-one", "one-to-many", "many-to-many"]


def many_ends(cardinality: Cardinality) -> tuple[bool, bool]:
    """(several referencing rows, several referenced rows) may share one key value."""
    return cardinality in ("many-to-one", "many-to-many"), cardinality in ("one-to-many", "many-to-many")


class Column(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    type: str  # normalized upper-case type name as the engine reports it, e.g. "INTEGER", "VARCHAR"
    nullable: bool = True
    primary_key: bool = False
    description: str | None = None
    original_name: str | None = None  # a human-readable name, when the source provides one
    samples: list[str] = Field(default_factory=list)  # bounded distinct values (text columns)
    distinct_count: int | None = None  # of the sampled population; None when unknown
    # smallest and largest value of an integer column (of the same population): the range an
    # inferred relationship's referencing values must fall into
    min_value: float | None = None
    max_value: float | None = None

    @property
    def is_text(self) -> bool:
        t = self.type.upper()
        return any(k in t for k in ("CHAR", "TEXT", "STRING", "CLOB")) or t in ("", "VARCHAR")

    @property
    def is_numeric(self) -> bool:
        t = self.type.upper()
        return any(
            k in t
            for k in ("INT", "DEC", "NUM", "REAL", "FLOAT", "DOUBLE", "MONEY", "HUGEINT")
        )

    @property
    def is_temporal(self) -> bool:
        t = self.type.upper()
        return "DATE" in t or "TIME" in t


class ForeignKey(BaseModel):
    model_config = ConfigDict(extra="forbid")

    columns: list[str]
    ref_table: str  # Table.key of the referenced table
    ref_columns: list[str]
    # added by the analyst's semantic layer (not declared by the database); dumps of declared
    # keys are unchanged, and the fingerprint covers the key, not where it came from
    from_layer: bool = Field(default=False, exclude_if=lambda v: not v)
    # a layer's relationship may say otherwise (a one-to-one extension table); a declared key is
    # many-to-one, and its dump (the fingerprint too) shows the field only when it says otherwise
    cardinality: Cardinality = Field(default="many-to-one", exclude_if=lambda v: v == "many-to-one")

    @property
    def repeats_referenced(self) -> bool:
        """Whether a joined row of the referenced table may be repeated (several rows here)."""
        return many_ends(self.cardinality)[0]

    @property
    def repeats_referencing(self) -> bool:
        """Whether a joined row of this table may be repeated (several referenced rows)."""
        return many_ends(self.cardinality)[1]


class SemanticTerm(BaseModel):
    """A business word the analyst declared for this table, one of its columns or a stored value."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    term: str
    column: str | None = None  # None: the word names the table
    value: str | None = None  # the stored value the word stands for ("CA" -> 'California')
    order: str | None = None  # asc | desc: a superlative ("priciest" -> unit_price desc)


class SemanticMetric(BaseModel):
    """A named aggregate over this table's rows (the table is its grain)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    expression: str  # a SQL aggregate over this table's columns, as the analyst wrote it
    columns: list[str] = Field(default_factory=list)  # the columns it reads (checked when loaded)
    description: str | None = None


class TableSemantics(BaseModel):
    """What the semantic layer (`nl2sql/semantic/`) says about one table."""

    model_config = ConfigDict(extra="forbid")

    labels: list[str] = Field(default_factory=list)  # what "list the <rows>" shows
    hidden: list[str] = Field(default_factory=list)  # columns never shown in an answer
    units: dict[str, str] = Field(default_factory=dict)  # column -> unit
    values: dict[str, list[str]] = Field(default_factory=dict)  # column -> its vocabulary
    terms: list[SemanticTerm] = Field(default_factory=list)
    metrics: list[SemanticMetric] = Field(default_factory=list)

    def visible_to(self, columns: set[str]) -> TableSemantics:
        """Only what reads no column outside `columns` (lower-case names): a term or metric over
        a denied column is invisible to that user."""
        return TableSemantics(
            labels=[c for c in self.labels if c.lower() in columns],
            hidden=[c for c in self.hidden if c.lower() in columns],
            units={c: u for c, u in self.units.items() if c.lower() in columns},
            values={c: v for c, v in self.values.items() if c.lower() in columns},
            terms=[t for t in self.terms if t.column is None or t.column.lower() in columns],
            metrics=[m for m in self.metrics if all(c.lower() in columns for c in m.columns)],
        )


class Table(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    schema_name: str | None = None
    kind: str = "table"  # table | view
    columns: list[Column]
    primary_key: list[str] = Field(default_factory=list)
    foreign_keys: list[ForeignKey] = Field(default_factory=list)
    row_count: int | None = None
    description: str | None = None
    original_name: str | None = None
    semantic: TableSemantics | None = None  # from the analyst's semantic layer, when it names this

    @property
    def key(self) -> str:
        return f"{self.schema_name}.{self.name}" if self.schema_name else self.name

    def column(self, name: str) -> Column | None:
        lname = name.lower()
        for col in self.columns:
            if col.name.lower() == lname:
                return col
        return None

    @property
    def metrics(self) -> list[SemanticMetric]:
        """The semantic layer's metrics over this table's rows (none without a layer)."""
        return self.semantic.metrics if self.semantic is not None else []

    def metric(self, name: str) -> SemanticMetric | None:
        """The metric called `name` (case-insensitive), or None."""
        return next((m for m in self.metrics if m.name.lower() == name.lower()), None)


# id(snapshot) -> (a weak reference to it, its fingerprint); an id is reused only after its
# object died, which the weak reference tells.
_FINGERPRINTS: dict[int, tuple[weakref.ref[SchemaSnapshot], str]] = {}
_FINGERPRINT_LOCK = threading.Lock()


class SchemaSnapshot(BaseModel):
    model_config = ConfigDict(extra="forbid")

    datasource_id: str
    dialect: str
    tables: list[Table]
    description: str | None = None

    def table(self, key: str) -> Table | None:
        lkey = key.lower()
        for t in self.tables:
            if t.key.lower() == lkey:
                return t
        # a bare name matches a schema-qualified table when it is unambiguous
        matches = [t for t in self.tables if t.name.lower() == lkey]
        return matches[0] if len(matches) == 1 else None

    @property
    def fingerprint(self) -> str:
        """Hash of the structure (tables, columns, types, keys) — not of data or samples.

        A pinned plan is valid while this is unchanged. Computed once per snapshot object (a
        few ms at hundreds of tables, asked several times per run): snapshots are treated as
        values, a changed schema is a new object (`model_copy`), never one changed in place.
        """
        with _FINGERPRINT_LOCK:
            known = _FINGERPRINTS.get(id(self))
            if known is not None and known[0]() is self:
                return known[1]
        value = self._structure_hash()
        with _FINGERPRINT_LOCK:
            for key in [k for k, (ref, _) in _FINGERPRINTS.items() if ref() is None]:
                del _FINGERPRINTS[key]
            _FINGERPRINTS[id(self)] = (weakref.ref(self), value)
        return value

    def _structure_hash(self) -> str:
        structure = [
            {
                "t": t.key,
                "c": [(c.name, c.type) for c in t.columns],
                "pk": t.primary_key,
                "fk": [(f.columns, f.ref_table, f.ref_columns)
                       + ((f.cardinality,) if f.cardinality != "many-to-one" else ())
                       for f in t.foreign_keys],
                # the layer changes what a question means: a pin made before it is stale
                **({"s": t.semantic.model_dump(mode="json")} if t.semantic is not None else {}),
            }
            for t in sorted(self.tables, key=lambda t: t.key)
        ]
        blob = json.dumps(structure, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    def subset(self, keys: list[str]) -> SchemaSnapshot:
        wanted = {k.lower() for k in keys}
        return self.model_copy(
            update={"tables": [t for t in self.tables if t.key.lower() in wanted]}
        )
