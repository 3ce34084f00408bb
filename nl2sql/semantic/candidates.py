"""The references `nl2sql describe` checks in the data, found from names and profiles alone.

* the references `schema/relationships.py` infers from names and types, down to a lower score
  than the engine uses alone (CANDIDATE_SCORE);
* a column named like another table's key or after that table (`Owner` → pet_owners.Id), which
  only the data can confirm;
* two tables whose own keys hold the same many values and whose names share a word (one-to-one;
  `shared_keys`);
* a column named with the plural of a table (`num_visits`) counts its rows: no reference.
Each candidate is one-to-one only when its column is its table's own key or unique over
SHARED_KEYS rows (a few distinct values are chance). No query runs here (`describe.py` checks).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from nl2sql.schema.key_names import split_words
from nl2sql.schema.models import Column, SchemaSnapshot, Table
from nl2sql.schema.naming import ColumnNaming, SchemaNaming, read_naming
from nl2sql.schema.relationships import InferredRelationship, infer_relationships
from nl2sql.semantic.check import join_kind

#: Candidates from this score up are checked in the data (the engine alone needs THRESHOLD):
#: a shared name and a unique key (0.3 + 0.15) are worth a query, not a guess.
CANDIDATE_SCORE = 0.45

#: Two tables whose own keys hold the same values are one-to-one from this many values up: two
#: tables numbered 1..n of the same size by chance are common for a handful of rows, not past it.
SHARED_KEYS = 50


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
