"""`nl2sql describe SOURCE`: a draft layer from the data, for the analyst to review and commit.

* relationships: the references `schema/relationships.py` infers from names and types, down to a
  lower score than the engine uses alone, each then checked in the database — the referencing
  column's distinct values (a bounded sample, the query pushed to the source) must be found
  among the referenced key's — with the evidence as a YAML comment; a candidate the data
  contradicts is listed as a comment, not proposed; a column named with the plural of a table
  (`num_visits`) counts its rows and is not checked; two tables whose own keys hold the same
  many values and whose names share a word are one-to-one (every value must be found); any other
  reference is one-to-one only when its column is its table's own key or unique over SHARED_KEYS
  rows (a few distinct values are chance, and a one-to-one join is trusted not to repeat rows);
* labels: the columns that name a row (the offline engine's reading of the names);
* units, from column names (`price_usd`, `weight_kg`, `duration_min`);
* vocabularies: the values of low-cardinality text columns (not numbers stored as text, not
  the columns of a proposed relationship).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import date
from typing import TYPE_CHECKING, Any

from nl2sql.schema.key_names import split_words
from nl2sql.schema.models import Column, SchemaSnapshot, Table
from nl2sql.schema.naming import ColumnNaming, SchemaNaming, read_naming
from nl2sql.schema.relationships import InferredRelationship, infer_relationships
from nl2sql.semantic.check import join_kind

if TYPE_CHECKING:
    from nl2sql.datasources.base import DatasourceAdapter

#: Candidates from this score up are checked in the data (the engine alone needs THRESHOLD):
#: a shared name and a unique key (0.3 + 0.15) are worth a query, not a guess.
CANDIDATE_SCORE = 0.45
#: Distinct referencing values compared per candidate (the query's bound).
SAMPLE = 2000
#: Share of those values that must be found among the referenced key's.
INCLUDED = 0.95
#: Two tables whose own keys hold the same values are one-to-one from this many values up: two
#: tables numbered 1..n of the same size by chance are common for a handful of rows, not past it.
SHARED_KEYS = 50
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


def candidates(snapshot: SchemaSnapshot) -> list[InferredRelationship]:
    """What to check in the data: the inferred references down to CANDIDATE_SCORE, then the
    ones names alone cannot settle — a column named like another table's key, or named after
    that table (`Owner` → pet_owners.Id), which only the data can confirm."""
    inferred = infer_relationships(snapshot, CANDIDATE_SCORE)
    found = [replace(r, cardinality=cardinality(snapshot, r)) for r in inferred]
    seen = {(r.src, r.src_columns) for r in found} | {(r.dst, r.dst_columns) for r in found}
    naming = read_naming(snapshot)
    for src in snapshot.tables:
        own = src.primary_key if len(src.primary_key) == 1 else []
        for col in src.columns:
            if (src.key, (col.name,)) in seen or [col.name] == own:
                continue
            for dst in snapshot.tables:
                read = naming.column(src.key, col.name)
                core = naming.table(dst.key).core
                named = _names_key_of(col, dst, read, core) if dst.key != src.key else None
                if named is not None:
                    key, evidence = named
                    one = "one-to-one" if _one_per_row(src, col) else "many-to-one"
                    found.append(InferredRelationship(src.key, (col.name,), dst.key, (key.name,),
                                                      CANDIDATE_SCORE, (evidence,), one))
                    seen.add((dst.key, (key.name,)))  # not proposed again the other way round
                    break
    return found


def shared_keys(snapshot: SchemaSnapshot, found: list[InferredRelationship]) -> list[InferredRelationship]:
    """One-to-one references between two tables whose own single-column keys are unique with
    the same number of values (at least SHARED_KEYS) and whose names share a word (`bike_specs`,
    `bike_frames`), with no other candidate between them: the data must then hold the same
    values on both sides. A key matching several tables so is no evidence: none proposed."""
    from nl2sql.schema.relationships import inferred_key

    linked = {frozenset((r.src, r.dst)) for r in found}
    # a word in most tables' names (a coded prefix such as `tbl`) tells no two of them apart
    naming = read_naming(snapshot)
    counts = Counter(w for t in snapshot.tables for w in _name_words(t, naming))
    common = {w for w, n in counts.items() if n > max(2, len(snapshot.tables) // 2)}
    keys: list[tuple[Table, Column]] = []
    for table in snapshot.tables:
        name = table.primary_key[0] if len(table.primary_key) == 1 else inferred_key(table)
        col = table.column(name) if name else None
        if col is not None and _unique(table, col) and (col.distinct_count or 0) >= SHARED_KEYS:
            keys.append((table, col))

    def partners(table: Table, col: Column) -> list[tuple[Table, Column]]:
        return [(other, key) for other, key in keys if other.key != table.key
                and key.distinct_count == col.distinct_count and join_kind(key) == join_kind(col)
                and (_name_words(other, naming) & _name_words(table, naming)) - common]

    out = []
    for table, col in keys:
        matches = partners(table, col)
        if len(matches) != 1 or frozenset((table.key, matches[0][0].key)) in linked:
            continue
        other, key = matches[0]
        if len(partners(other, key)) == 1 and _refers(table, other, found):
            shared = ", ".join(
                sorted((_name_words(other, naming) & _name_words(table, naming)) - common))
            evidence = (f"{table.name} and {other.name} (sharing '{shared}') have keys of "
                        f"{col.distinct_count} values each")
            out.append(InferredRelationship(table.key, (col.name,), other.key, (key.name,),
                                            CANDIDATE_SCORE, (evidence,), "one-to-one"))
    return out


def _refers(table: Table, other: Table, found: list[InferredRelationship]) -> bool:
    """Which of two tables sharing a key refers to the other: the one fewer relationships
    reach (its rows extend the other's, which the rest of the schema links to); then by name."""
    def links(t: Table) -> int:
        return sum(t.key in (r.src, r.dst) for r in found)

    return (links(table), table.key) < (links(other), other.key)


def _name_words(table: Table, naming: SchemaNaming) -> set[str]:
    """The singular words of a table's name, without its namespace prefix (`schema/naming.py`)."""
    from nl2sql.schema.naming import singular

    return {singular(w) for w in naming.table(table.key).core if len(w) > 2}


def _names_key_of(
    col: Column, dst: Table, read: ColumnNaming, dst_core: tuple[str, ...]
) -> tuple[Column, str] | None:
    """(a key of dst, why) when `col` is named like it, after `dst`, ends with dst's name
    (`sent_by_carrier_id` → carrier) or with its key's (`targetpageid` → page.pageid), and holds
    values of the same kind. Names are read without a table code (`read`) or a namespace
    prefix (`dst_core`, the words of dst's name without it)."""
    from nl2sql.schema.key_names import KEY_SUFFIXES, name_match
    from nl2sql.schema.relationships import inferred_key

    kind = join_kind(col)
    if kind not in ("number", "text"):
        return None
    names = dst.primary_key if len(dst.primary_key) == 1 else [inferred_key(dst) or ""]
    key = dst.column(names[0]) if names[0] else None
    key = key if key is not None and join_kind(key) == kind else None
    same = next((c for c in dst.columns if c.name.lower() == col.name.lower() and _unique(dst, c)
                 and join_kind(c) == kind), None)
    if same is not None and col.name.lower() not in KEY_SUFFIXES:
        return same, f"same name as a unique column of {dst.name}"
    if key is None:
        return None
    words = list(read.words)
    if len(words) > 1 and words[-1] in KEY_SUFFIXES:
        words = words[:-1]
    if words and _counts(words[-1], dst):
        return None
    for start in range(len(words)):
        match = name_match("".join(words[start:]), dst_core)
        if match == ("named", True):
            how = "names" if start == 0 else "ends with the name of"
            return key, f"{col.name} {how} {dst.name}"
    glued, own = "".join(read.words), "".join(split_words(key.name))
    if own not in KEY_SUFFIXES and len(glued) > len(own) and glued.endswith(own):
        return key, f"{col.name} ends with the name of {dst.name}'s key {key.name}"  # targetPageId
    return None


def _counts(word: str, dst: Table) -> bool:
    """`num_visits`, `seats_for_guests` of a table `visit`, `guest`: the plural of a
    singular table's name counts its rows, a reference names one."""
    from nl2sql.inflection import inflect_engine

    last = split_words(dst.name)[-1]
    return word != last and inflect_engine().singular_noun(word) == last


def cardinality(snapshot: SchemaSnapshot, candidate: InferredRelationship) -> str:
    """one-to-one when the referencing column holds each value once beyond chance, else many-to-one."""
    table = snapshot.table(candidate.src)
    col = table.column(candidate.src_columns[0]) if table is not None else None
    one = table is not None and col is not None and _one_per_row(table, col)
    return "one-to-one" if one else "many-to-one"


def _one_per_row(table: Table, col: Column) -> bool:
    """Whether `col` refers to a row at most once: unique and its table's own key, or unique over
    SHARED_KEYS rows or more. A handful of rows holding distinct values is chance (a third order
    by a new customer), and a one-to-one join is trusted not to repeat rows under a SUM."""
    if not _unique(table, col):
        return False
    return table.primary_key == [col.name] or (table.row_count or 0) >= SHARED_KEYS


def _unique(table: Table, col: Column) -> bool:
    rows = table.row_count or 0
    return bool(rows and col.distinct_count and col.distinct_count >= rows)


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
