"""Relationships a schema does not declare, inferred from names, types and sampled values.

Many databases declare no foreign keys; their joins are still written in the names and the data.
`infer_relationships(snapshot)` proposes single-column references `src.col → dst.key` from:

* identifier evidence — the referencing column is named after the referenced table plus a key
  suffix (`supplier_id`, `supplierId`, `supplierid` → `suppliers`), abbreviates it (`custRef` →
  `tblCustomers`), has the same name as the referenced table's key, or that name after a role
  word (`winnerTeamId`, `home_team_id` → `teamId` of teams);
* the referenced side — it must look like that table's key: the declared primary key, or a
  column that is unique in the sampled population and named like a key of its table;
* types — both integer or both text (floats, dates and booleans never make keys; a text column
  whose sampled values are all whole numbers is an integer);
* values — the referencing side's sampled values must be (mostly) included in the referenced
  side's (text columns: their samples; integer columns: their MIN/MAX range). A violation rejects
  the pair, whatever its names say.

Each piece of evidence adds to a score (weights in `_W`); only pairs at or above `THRESHOLD`
are returned, strongest first, each with its evidence in words, and of the targets of one
column only the best-scoring. Word forms (singular/plural) come from `inflect`, not word lists.
Names are read as `schema/naming.py` reads them, as written and without a table's namespace
prefix or a column's table code: `crtDepotId` of tblCrate reads "depot id" (named after
tblDepot), `c_depotkey` of crate "depotkey" (the name of `d_depotkey` of depot, and
abbreviating it), and a coded key `depoId` of tblDepot also "depot id".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from nl2sql.schema.key_names import (
    KEY_SUFFIXES,
    MIN_ABBREVIATION,
    glued_stem,
    key_stem,
    name_match,
    spelled_key,
)
from nl2sql.schema.models import Column, SchemaSnapshot, Table
from nl2sql.schema.naming import (
    ColumnNaming,
    SchemaNaming,
    read_columns,
    read_naming,
    read_table,
    segments,
)

#: The score a pair needs to be returned. How it was chosen: the same name alone plus a unique
#: integer column in range (0.3 + 0.15 + 0.2 = 0.65) must stay out — two link tables sharing a
#: key, or a count column of the same name, pass those checks by chance in small tables; a
#: name that relates the column to the referenced table plus the key and agreeing values
#: (`loans.bid` → `borrowers.bid`: 0.3 + 0.25 + 0.15 + 0.2 = 0.9), or text values all found under
#: a shared name (0.3 + 0.15 + 0.3 = 0.75), must get in. Without values (no statistics), only
#: two name rules and the key reach it (0.3 + 0.35 + 0.15 = 0.8).
THRESHOLD = 0.7


_W = {
    "same_name": 0.3,
    "named_after": 0.35,
    "abbreviates": 0.25,
    "same_stem": 0.15,
    "declared_key": 0.2,
    "unique_key": 0.15,
    "values_included": 0.3,
    "values_mostly": 0.2,
    "range_within": 0.2,
    "role": 0.1,  # taken off a key's name read after a role word (`winner` of winnerTeamId)
}
_MOSTLY = 0.9  # share of referencing samples that must be found among the referenced ones
_POPULATION = 200_000
_UNIQUE_SHARE = 0.98


@dataclass(frozen=True)
class InferredRelationship:
    """`src.src_columns` references `dst.dst_columns`, with the evidence for it."""

    src: str  # Table.key of the referencing table
    src_columns: tuple[str, ...]
    dst: str  # Table.key of the referenced table
    dst_columns: tuple[str, ...]
    score: float
    evidence: tuple[str, ...]
    cardinality: str  # many-to-one | one-to-one

    def describe(self) -> str:
        """One line: the join condition and why it was inferred."""
        pairs = ", ".join(
            f"{self.src}.{a} = {self.dst}.{b}"
            for a, b in zip(self.src_columns, self.dst_columns, strict=True)
        )
        return f"{pairs} — inferred: {', '.join(self.evidence)}"


def infer_relationships(
    snapshot: SchemaSnapshot, threshold: float = THRESHOLD, naming: SchemaNaming | None = None
) -> list[InferredRelationship]:
    """Undeclared references between the snapshot's tables, strongest first.

    Pairs already declared as foreign keys (either way round) are not repeated. For each
    referencing column only its best-scoring target(s) are kept: a column references one table.
    A `threshold` below THRESHOLD proposes weaker candidates, for a caller that checks them in
    the data (`nl2sql describe`). `naming` is the snapshot's naming reading, when the caller
    has it already.
    """
    declared = _declared_pairs(snapshot)
    naming = naming or read_naming(snapshot)
    keys = {t.key: _key_columns(t, naming) for t in snapshot.tables}
    found: list[InferredRelationship] = []
    for src in snapshot.tables:
        for col in src.columns:
            if (
                _kind(col) is None
                or col.name.lower() in keys[src.key]
                and _own_name(src, col, naming)
            ):
                continue  # a table's own key (`shipments.shipment_id`) is referenced, not referencing
            options = [
                rel
                for dst in snapshot.tables
                if dst.key != src.key
                for rel in _candidates(src, col, dst, keys[dst.key], naming, threshold)
                if (src.key, col.name.lower(), dst.key) not in declared
            ]
            if options:
                best = max(r.score for r in options)
                found += [r for r in options if r.score == best]
    return _one_direction(sorted(found, key=lambda r: (-r.score, r.src, r.src_columns, r.dst)))


def _declared_pairs(snapshot: SchemaSnapshot) -> set[tuple[str, str, str]]:
    out = set()
    for t in snapshot.tables:
        for fk in t.foreign_keys:
            ref = snapshot.table(fk.ref_table)
            ref_key = ref.key if ref else fk.ref_table
            for a, b in zip(fk.columns, fk.ref_columns, strict=False):
                out.add((t.key, a.lower(), ref_key))
                out.add((ref_key, b.lower(), t.key))
    return out


def _candidates(
    src: Table,
    col: Column,
    dst: Table,
    keys: dict[str, str],
    naming: SchemaNaming,
    threshold: float = THRESHOLD,
) -> list[InferredRelationship]:
    out: list[InferredRelationship] = []
    for key_name, how in keys.items():
        target = dst.column(key_name)
        if target is None or _kind(target) != _kind(col):
            continue
        evidence, score = _name_evidence(
            naming.column(src.key, col.name),
            naming.table(dst.key).core,
            naming.column(dst.key, target.name),
            dst.name,
        )
        if score == 0:
            continue
        evidence.append(how)
        score += _W["declared_key" if how.endswith("primary key") else "unique_key"]
        values = _value_evidence(col, target)
        if values is None:
            continue  # the values contradict the names
        if values:
            evidence.append(values[0])
            score += values[1]
        if score >= threshold:
            cardinality = "one-to-one" if _unique(src, col) else "many-to-one"
            out.append(
                InferredRelationship(
                    src.key,
                    (col.name,),
                    dst.key,
                    (target.name,),
                    round(min(score, 1.0), 2),
                    tuple(evidence),
                    cardinality,
                )
            )
    return out


def _name_evidence(
    col: ColumnNaming, dst: Sequence[str], target: ColumnNaming, dst_name: str
) -> tuple[list[str], float]:
    """What the two names say, read as written and without their table codes: (evidence,
    score) of the stronger reading; score 0 when they say nothing. `dst` is the referenced
    table's name without its namespace prefix."""
    found = [_read_evidence(col, words, dst, target, dst_name) for words in col.readings]
    return max(found, key=lambda f: f[1])


def _read_evidence(
    col: ColumnNaming,
    words: tuple[str, ...],
    dst: Sequence[str],
    target: ColumnNaming,
    dst_name: str,
) -> tuple[list[str], float]:
    evidence: list[str] = []
    score = 0.0
    own = "".join(words)
    # a bare `id` or `code` is in every table: sharing it says nothing
    same = own not in KEY_SUFFIXES and own in {"".join(w) for w in target.readings}
    if same:
        evidence.append("same name")
        score += _W["same_name"]
    stem = key_stem(words) or glued_stem(words, dst)
    match = name_match(stem, dst) if stem else None
    if not same and match and spelled_key(words, target, dst):
        # `empDeptId` → `dptId` of tblDepartment: both the table's key, spelled by two codes
        same = True
        evidence.append("same name (the table's key, by its code)")
        score += _W["same_name"]
    if stem and match and (match[1] or len(stem) >= MIN_ABBREVIATION or same):
        how, whole = match
        evidence.append(
            f"{col.name} {'is named after' if how == 'named' else 'abbreviates'} "
            f"{dst_name}" + ("" if whole else " (its last words)")
        )
        score += _W["named_after" if how == "named" else "abbreviates"] - (0 if whole else 0.1)
    if not same and stem and stem in {key_stem(w) for w in target.readings}:
        evidence.append(f"{col.name} and {target.name} share '{stem}'")  # `custRef` ↔ `custCode`
        score += _W["same_stem"]
    if not evidence and (role := _role(words, dst, target)):
        # `winnerTeamId`, `homeTeamId` → `teamId` of teams: the key's name after a role word
        evidence.append(f"{col.name} is {target.name} of {dst_name} in the role '{role}'")
        score += _W["same_name"] + _W["named_after"] - _W["role"]
    return evidence, score


def _role(words: tuple[str, ...], dst: Sequence[str], target: ColumnNaming) -> str | None:
    """The words before the referenced key's whole name, when the rest of a key's name is
    that name and names the table as a whole (`home` of `home_team_id` → `team_id` of teams)."""
    for cut in range(1, len(words) - 1):
        tail = words[cut:]
        stem = key_stem(tail)
        match = name_match(stem, dst) if stem else None
        if tail in target.readings and match and match[1]:
            return " ".join(words[:cut])
    return None


def _value_evidence(col: Column, target: Column) -> tuple[str, float] | tuple[()] | None:
    """(evidence, weight); () when the values cannot tell; None when they contradict."""
    if col.samples and target.samples:
        ref = {_norm(s) for s in target.samples}
        share = sum(_norm(s) in ref for s in col.samples) / len(col.samples)
        complete = target.distinct_count is not None and target.distinct_count <= len(ref)
        pct = f"{share:.0%} of sampled values found"
        if share == 1.0:
            return pct, _W["values_included"]
        if share >= _MOSTLY:
            return pct, _W["values_mostly"]
        return None if complete else ()
    low, high = _range(col)
    key_low, key_high = _range(target)
    if low is not None and high is not None and key_low is not None and key_high is not None:
        if key_low <= low and high <= key_high:
            if (col.distinct_count or 0) <= (target.distinct_count or 0):
                return "values within the key's range", _W["range_within"]
        return None
    return ()


def _range(col: Column) -> tuple[float | None, float | None]:
    """The column's MIN and MAX; for whole numbers stored as text, those of its samples."""
    if col.min_value is None and (ints := _integers(col.samples)):
        return min(ints), max(ints)
    return col.min_value, col.max_value


def _key_columns(table: Table, naming: SchemaNaming | None = None) -> dict[str, str]:
    """Lower-case name → why it is the table's key: declared, or unique and named like a key."""
    declared = [c.lower() for c in table.primary_key] or [
        c.name.lower() for c in table.columns if c.primary_key
    ]
    if len(declared) == 1:
        return {declared[0]: f"{table.name}'s primary key"}
    out = {}
    for col in table.columns:
        if (
            _kind(col)
            and _unique(table, col)
            and (
                _own_name(table, col, naming) or key_stem(_column_naming(table, col, naming).words)
            )
        ):
            out[col.name.lower()] = f"unique in {table.name}"
    return out


def inferred_key(table: Table, naming: SchemaNaming | None = None) -> str | None:
    """The column that identifies a row of a table declaring no primary key: the one column
    unique in the sampled population and named like its own key (`id`, `customer_id`, `custNo`).
    None when the table declares a key, or when none or several columns qualify (no guess)."""
    if table.primary_key or any(c.primary_key for c in table.columns):
        return None
    # only a name of its own table: a unique `business_id` in a one-row-per-business table is a
    # reference to another table, and grouping by it would split the rows by that reference
    named = [
        c for c in table.columns if _kind(c) and _unique(table, c) and _own_name(table, c, naming)
    ]
    cores = {c.name: _column_naming(table, c, naming).words for c in named}
    # `store_id` over a unique `store_name`: the one with a key suffix identifies the row
    keyish = [c for c in named if cores[c.name][-1] in KEY_SUFFIXES or key_stem(cores[c.name])]
    # `workshop_id` over a unique `number` in workshop: a key that names its table says whose it is;
    # then an id over a unique `number` or code: an id is made to identify a row, while a number
    # the rows happen not to repeat is often something the business writes down
    stemmed = [c for c in keyish if key_stem(cores[c.name])]
    ids = [c for c in keyish if cores[c.name][-1] == "id" or c.name.lower().endswith("id")]
    for found in (stemmed, ids, keyish, named):
        if found:
            return found[0].name if len(found) == 1 else None
    return None


def _column_naming(table: Table, col: Column, naming: SchemaNaming | None) -> ColumnNaming:
    """The column's name read in its table (its table code known)."""
    if naming is not None:
        return naming.column(table.key, col.name)
    read = {c.name: c for c in read_columns(table, read_table(table.name).core)}
    return read.get(col.name) or ColumnNaming(col.name, tuple(segments(col.name)))


def _table_core(table: Table, naming: SchemaNaming | None) -> tuple[str, ...]:
    return naming.table(table.key).core if naming is not None else read_table(table.name).core


def _own_name(table: Table, col: Column, naming: SchemaNaming | None = None) -> bool:
    """`id`, `customer_id`, `cust_code`, `region_name`, `lockId`, `c_cratekey` in their own table."""
    read = _column_naming(table, col, naming)
    if len(read.words) == 1 and read.words[0] in KEY_SUFFIXES:
        return True
    core = _table_core(table, naming)
    for words in (read.words, read.segments):  # `teamRosterId` of teamRoster, its code kept
        stem = key_stem(words) or glued_stem(words, core) or "".join(words[:-1])
        if stem and name_match(stem, core) in (("named", True), ("abbreviated", True)):
            return True
    return False


def _unique(table: Table, col: Column) -> bool:
    """Distinct on (nearly) every row: row counts may be estimates, distinct counts are taken
    over at most the first `_POPULATION` rows (see datasources/introspection.py)."""
    rows = min(table.row_count or 0, _POPULATION)
    return bool(col.distinct_count and rows and col.distinct_count >= _UNIQUE_SHARE * rows)


def holds_every_row_once(table: Table, col: Column) -> bool:
    """A different non-null value on every row of a table profiled whole: counting its distinct
    values counts the table's rows, however often a join repeats them."""
    rows = table.row_count or 0
    return bool(rows and rows <= _POPULATION and col.distinct_count == rows)


def _kind(col: Column) -> str | None:
    """integer | text — the only types a key has; None for anything else. A text column whose
    sampled values are all whole numbers is an integer (SQLite stores numbers as text often)."""
    t = col.type.upper()
    if "INT" in t and "INTERVAL" not in t and "POINT" not in t:
        return "integer"
    if col.is_text and not col.is_temporal:
        return "integer" if _integers(col.samples) is not None else "text"
    return None


def _integers(samples: Sequence[str]) -> list[int] | None:
    """The sampled values as whole numbers; None when there are none or one is not."""
    values = [s.strip() for s in samples]
    if not values or not all(v.isdigit() and len(v) < 19 for v in values):
        return None
    return [int(v) for v in values]


def _one_direction(rels: list[InferredRelationship]) -> list[InferredRelationship]:
    """Keep the stronger direction of a column pair found both ways (two keys, one-to-one)."""
    seen: set[frozenset[tuple[str, tuple[str, ...]]]] = set()
    out = []
    for r in rels:
        pair = frozenset({(r.src, r.src_columns), (r.dst, r.dst_columns)})
        if pair not in seen:
            seen.add(pair)
            out.append(r)
    return out


def _norm(value: str) -> str:
    return str(value).strip().lower()
