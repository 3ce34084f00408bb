"""`nl2sql describe SOURCE`: a draft layer from the data, for the analyst to review and commit.

* relationships: the candidates `candidates.py` finds from names and profiles, each then checked
  in the database — the referencing column's distinct values (a bounded sample, the query pushed
  to the source) must be found among the referenced key's — with the evidence as a YAML comment;
  a candidate the data contradicts is listed as a comment, not proposed (two tables sharing
  their keys' values: every value must be found);
* labels: the columns that name a row (the offline engine's reading of the names);
* units, from column names (`price_usd`, `weight_kg`, `duration_min`);
* vocabularies: the values of low-cardinality text columns (not numbers stored as text, not
  the columns of a proposed relationship).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any

from nl2sql.schema.key_names import split_words
from nl2sql.schema.models import Column, SchemaSnapshot, Table
from nl2sql.schema.relationships import InferredRelationship
from nl2sql.semantic.candidates import candidates, shared_keys

if TYPE_CHECKING:
    from nl2sql.datasources.base import DatasourceAdapter

#: Distinct referencing values compared per candidate (the query's bound).
SAMPLE = 2000
#: Share of those values that must be found among the referenced key's.
INCLUDED = 0.95
#: A text column with at most this many distinct values gets its vocabulary written.
VOCABULARY = 25

#: A column name's last word → its unit.
UNITS = {
    "usd": "USD", "dollars": "USD", "eur": "EUR", "euros": "EUR", "gbp": "GBP",
    "pct": "percent", "percent": "percent", "percentage": "percent",
    "kg": "kg", "kgs": "kg", "g": "g", "grams": "g", "lb": "lb", "lbs": "lb",
    "km": "km", "mi": "miles", "miles": "miles", "m": "m", "meters": "m", "cm": "cm", "mm": "mm",
    "ms": "milliseconds", "sec": "seconds", "secs": "seconds", "seconds": "seconds",
    "min": "minutes", "mins": "minutes", "minutes": "minutes", "hrs": "hours", "hours": "hours",
    "days": "days", "kwh": "kWh", "mb": "MB", "gb": "GB",
}


@dataclass
class CheckedRelationship:
    """An inferred candidate and what the data said about it."""

    candidate: InferredRelationship
    distinct: int  # referencing values compared
    found: int  # of them, found among the referenced key's
    needed: float = INCLUDED  # the share of them that must be found

    @property
    def holds(self) -> bool:
        return self.distinct > 0 and self.found >= self.needed * self.distinct

    def evidence(self) -> str:
        c = self.candidate
        return (f"{', '.join(c.evidence)}; {self.found} of {self.distinct} distinct values of "
                f"{c.src}.{c.src_columns[0]} found in {c.dst}.{c.dst_columns[0]} (checked in the data)")


@dataclass
class Draft:
    """What `describe` found for one source."""

    source_id: str
    relationships: list[CheckedRelationship] = field(default_factory=list)
    labels: dict[str, list[str]] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)  # "table.column" -> unit
    vocabularies: dict[str, list[str]] = field(default_factory=dict)  # "table.column" -> values

    def layer(self) -> dict[str, Any]:
        """The draft as a layer mapping (what `connect(semantic=...)` takes)."""
        columns: dict[str, dict[str, Any]] = {}
        for ref, unit in self.units.items():
            columns.setdefault(ref, {})["unit"] = unit
        for ref, values in self.vocabularies.items():
            columns.setdefault(ref, {})["values"] = values
        body: dict[str, Any] = {
            "relationships": [_relationship(r.candidate) for r in self.relationships if r.holds],
            "labels": self.labels,
            "columns": columns,
        }
        return {"sources": {self.source_id: {k: v for k, v in body.items() if v}}}


def describe_source(adapter: DatasourceAdapter, snapshot: SchemaSnapshot) -> Draft:
    """Draft a layer for one source from its schema snapshot and queries on its data."""
    from nl2sql.reasoning.offline.catalog.index import build_index

    draft = Draft(snapshot.datasource_id)
    for candidate in candidates(snapshot):
        draft.relationships.append(check_inclusion(adapter, snapshot, candidate))
    for candidate in shared_keys(snapshot, [r.candidate for r in draft.relationships]):
        checked = check_inclusion(adapter, snapshot, candidate)
        draft.relationships.append(CheckedRelationship(candidate, checked.distinct, checked.found, 1.0))
    joined = {(t, c) for r in draft.relationships if r.holds for t, c in _ends(r.candidate)}
    index = build_index(snapshot)
    for table in snapshot.tables:
        if index.labels.get(table.key):
            draft.labels[table.key] = list(index.labels[table.key])
        for column in table.columns:
            ref = f"{table.key}.{column.name}"
            unit = unit_of(column)
            if unit:
                draft.units[ref] = unit
            values = vocabulary(table, column, draft.labels.get(table.key, []))
            if values and (table.key, column.name) not in joined:  # a key's values name nothing
                draft.vocabularies[ref] = values
    return draft


def check_inclusion(adapter: DatasourceAdapter, snapshot: SchemaSnapshot,
                    candidate: InferredRelationship) -> CheckedRelationship:
    """How many of the referencing column's distinct values (at most SAMPLE) the referenced key
    holds: one query, run by the source itself."""
    from nl2sql.dialects import sqlglot_dialect

    sql = inclusion_sql(snapshot, candidate).sql(dialect=sqlglot_dialect(snapshot.dialect))
    try:
        frame = adapter.execute(sql, row_cap=1, timeout_s=60.0)
        distinct, found = frame.table.to_pylist()[0].values()
    except Exception:  # noqa: BLE001 - a check that cannot run proves nothing: not proposed
        return CheckedRelationship(candidate, 0, 0)
    return CheckedRelationship(candidate, int(distinct or 0), int(found or 0))


def inclusion_sql(snapshot: SchemaSnapshot, candidate: InferredRelationship) -> Any:
    """SELECT COUNT(*), COUNT(k.v) FROM (SELECT DISTINCT col … LIMIT n) s LEFT JOIN (SELECT
    DISTINCT key …) k ON s.v = k.v — a sqlglot expression."""
    from sqlglot import exp

    def table_of(key: str) -> exp.Table:
        found = snapshot.table(key)
        assert found is not None
        return exp.table_(found.name, db=found.schema_name, quoted=True)

    def distinct(key: str, column: str, limit: int | None) -> exp.Select:
        col = exp.column(column, quoted=True)
        query = exp.select(exp.alias_(col, "v")).distinct().from_(table_of(key)).where(
            exp.Not(this=exp.Is(this=col.copy(), expression=exp.Null())))
        return query.limit(limit) if limit else query

    child = distinct(candidate.src, candidate.src_columns[0], SAMPLE).subquery("s")
    parent = distinct(candidate.dst, candidate.dst_columns[0], None).subquery("k")
    return (exp.select(exp.alias_(exp.Count(this=exp.Star()), "n"),
                       exp.alias_(exp.Count(this=exp.column("v", "k")), "found"))
            .from_(child).join(parent, on=exp.column("v", "s").eq(exp.column("v", "k")), join_type="left"))


def unit_of(column: Column) -> str | None:
    """The unit a numeric column's name ends with (`price_usd` → USD), or None."""
    words = split_words(column.name)
    if not column.is_numeric or len(words) < 2:
        return None
    return UNITS.get(words[-1])


def vocabulary(table: Table, column: Column, labels: list[str]) -> list[str]:
    """All values of a low-cardinality text column (not a label, not a key) when sampled whole;
    none when every value is a number (ids or years stored as text are not words)."""
    if not column.is_text or column.name in labels or column.primary_key:
        return []
    count = column.distinct_count
    if count is None or not 1 < count <= VOCABULARY or len(column.samples) < count:
        return []
    if all(_is_number(v) for v in column.samples):
        return []
    if (table.row_count or 0) <= count:
        return []  # one value per row: names, not a vocabulary
    return sorted(column.samples, key=str.lower)


def _is_number(value: str) -> bool:
    try:
        float(str(value))
    except ValueError:
        return False
    return True


def _ends(c: InferredRelationship) -> list[tuple[str, str]]:
    return [(c.src, c.src_columns[0]), (c.dst, c.dst_columns[0])]


def render_draft(draft: Draft, today: date | None = None) -> str:
    """The draft as a YAML file with its evidence as comments."""
    import yaml

    def flow(value: Any) -> str:
        text = str(yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=10_000))
        return text.removesuffix("\n...\n").strip()  # a plain scalar ends its document

    layer = draft.layer()["sources"][draft.source_id]
    lines = [
        f"# Drafted by `nl2sql describe {draft.source_id}` on {(today or date.today()).isoformat()}"
        " from the data: review every entry,",
        "# then name this file in nl2sql.toml:  [semantic]  file = \"<this file>\"",
        "sources:",
        f"  {flow(draft.source_id)}:",
        "    relationships:" if any(r.holds for r in draft.relationships) else "    relationships: []",
    ]
    for checked in draft.relationships:
        if checked.holds:
            lines.append(f"      # {checked.evidence()}")
            lines.append(f"      - {flow(_relationship(checked.candidate))}")
    for checked in draft.relationships:
        if not checked.holds:
            c = checked.candidate
            lines.append(f"      # not proposed: {c.src}.{c.src_columns[0]} -> {c.dst}.{c.dst_columns[0]} "
                         f"({', '.join(c.evidence)}; only {checked.found} of {checked.distinct} "
                         "distinct values found)")
    for key in ("labels", "columns"):
        if layer.get(key):
            lines.append(f"    {key}:")
            lines += [f"      {flow(name)}: {flow(value)}" for name, value in layer[key].items()]
    return "\n".join(lines) + "\n"


def _relationship(c: InferredRelationship) -> dict[str, str]:
    return {"from": f"{c.src}.{c.src_columns[0]}", "to": f"{c.dst}.{c.dst_columns[0]}",
            "cardinality": c.cardinality}


def draft_file(adapter: DatasourceAdapter, snapshot: SchemaSnapshot) -> tuple[str, Draft]:
    """The draft of one source as YAML text, checked to load as that source's layer."""
    import yaml

    from nl2sql.semantic.apply import annotator
    from nl2sql.semantic.load import LoadedLayer, parse_layer

    draft = describe_source(adapter, snapshot)
    text = render_draft(draft)
    # what is written must load: checked like a layer the analyst wrote
    annotator(LoadedLayer(parse_layer(yaml.safe_load(text), "draft"), "draft"))(snapshot)
    return text, draft
