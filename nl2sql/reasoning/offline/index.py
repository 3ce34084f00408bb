"""The per-snapshot index the engine links questions against; built once per snapshot.

It holds the phrase forms of every table and column (normalized word tuples → elements with a
strength), the sample values of text columns, each table's label columns and date columns, and the
foreign-key edges. `IndexCache` keeps the indexes of recent snapshots, keyed by datasource id,
structural fingerprint and a digest of the samples, so planning a question costs dictionary look-ups.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from nl2sql.reasoning.offline.lexicon import MEASURE_WORDS
from nl2sql.reasoning.offline.text import STOP, canon, split_identifier
from nl2sql.schema.models import Column, SchemaSnapshot, Table

_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}")
_DATE_WORDS = {"dat", "time", "timestamp", "day"}
_LABEL_WORDS = ("nam", "titl", "label")
_MAX_VALUE_WORDS = 6
_GENERIC_SUFFIXES = {
    "data",
    "info",
    "information",
    "detail",
    "list",
    "table",
    "record",
    "master",
    "dim",
    "fact",
}


@dataclass(frozen=True)
class Element:
    """A table (column=None) or a column that a phrase names, with the phrase's strength."""

    table: str
    column: str | None
    score: float
    form: str  # name | original | qualified | short | head

    @property
    def ref(self) -> str:
        return self.table if self.column is None else f"{self.table}.{self.column}"


@dataclass(frozen=True)
class FKEdge:
    src: str
    src_cols: tuple[str, ...]
    dst: str
    dst_cols: tuple[str, ...]
    rank: tuple[
        int, int
    ]  # (position of src in the snapshot, position of the FK): declaration order


def words_of(name: str) -> tuple[str, ...]:
    """Normalized content words of an identifier or a label."""
    return tuple(canon(w) for w in split_identifier(name) if w not in STOP)


def column_kind(col: Column) -> str:
    """text | number | date | bool | other — what the engine may do with a column."""
    t = col.type.upper()
    if "BOOL" in t:
        return "bool"
    if col.is_temporal:
        return "date"
    if col.is_text and _numeric_samples(col.samples):
        return "number"  # SQLite TEXT columns often hold numbers; compare them as numbers
    if col.is_text:
        named_like_date = bool(_DATE_WORDS & set(words_of(col.name))) or col.name.lower().endswith(
            "_at"
        )
        iso = bool(col.samples) and all(_ISO_DAY.match(s) for s in col.samples)
        return "date" if named_like_date and (iso or not col.samples) or iso else "text"
    if col.is_numeric:
        return "number"
    return "other"


_NULL_LIKE = {"", "null", "none", "na", "n/a", "nan", "-", "?"}


def _numeric_samples(samples: list[str]) -> bool:
    """True when the sampled values are numbers (null markers aside)."""
    values = [s.strip() for s in samples if s.strip().lower() not in _NULL_LIKE]
    if not values:
        return False
    try:
        for v in values:
            float(v.replace(",", ""))
    except ValueError:
        return False
    return True


@dataclass
class SchemaIndex:
    snapshot: SchemaSnapshot
    tables: dict[str, Table] = field(default_factory=dict)
    order: dict[str, int] = field(default_factory=dict)
    phrases: dict[tuple[str, ...], list[Element]] = field(default_factory=dict)
    values: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)
    kinds: dict[tuple[str, str], str] = field(default_factory=dict)
    col_words: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    table_words: dict[str, tuple[str, ...]] = field(default_factory=dict)
    labels: dict[str, list[str]] = field(default_factory=dict)
    keys: dict[str, set[str]] = field(default_factory=dict)  # PK and FK columns per table
    edges: list[FKEdge] = field(default_factory=list)
    max_phrase: int = 1

    def column(self, table: str, name: str) -> Column | None:
        return self.tables[table].column(name) if table in self.tables else None

    def kind(self, table: str, column: str) -> str:
        return self.kinds.get((table, column), "other")

    def date_columns(self, table: str) -> list[str]:
        return [c.name for c in self.tables[table].columns if self.kind(table, c.name) == "date"]

    def text_columns(self, table: str) -> list[str]:
        return [c.name for c in self.tables[table].columns if self.kind(table, c.name) == "text"]

    def pk(self, table: str) -> list[str]:
        t = self.tables[table]
        return list(t.primary_key) or [c.name for c in t.columns if c.primary_key]


def build_index(snapshot: SchemaSnapshot) -> SchemaIndex:
    """Index every table and column of `snapshot` (names, samples, labels, foreign keys)."""
    idx = SchemaIndex(snapshot=snapshot)
    for pos, table in enumerate(snapshot.tables):
        idx.tables[table.key] = table
        idx.order[table.key] = pos
    for table in snapshot.tables:
        _index_table(idx, table)
    for forms in idx.phrases.values():
        # Strongest first; declaration order breaks ties so look-ups are deterministic.
        forms.sort(key=lambda e: (-e.score, idx.order[e.table], e.column or ""))
    idx.max_phrase = max((len(k) for k in idx.phrases), default=1)
    _index_edges(idx)
    return idx


def _add(idx: SchemaIndex, form: tuple[str, ...], element: Element) -> None:
    if not form:
        return
    bucket = idx.phrases.setdefault(form, [])
    for i, old in enumerate(bucket):
        if old.ref == element.ref:
            if element.score > old.score:
                bucket[i] = element
            return
    bucket.append(element)


def _index_table(idx: SchemaIndex, table: Table) -> None:
    key = table.key
    tw = words_of(table.name)
    idx.table_words[key] = tw
    # "has_copy" without its function word reads "copy": weaker than a table named exactly so
    whole = len(tw) == len(split_identifier(table.name))
    _add(idx, tw, Element(key, None, 1.0 if whole else 0.9, "name"))
    if table.original_name:
        _add(idx, words_of(table.original_name), Element(key, None, 1.0, "original"))
    if len(tw) >= 2:
        _add(idx, tw[-1:], Element(key, None, 0.7, "head"))
    if len(tw) >= 2 and tw[-1] in _GENERIC_SUFFIXES:
        _add(idx, tw[:-1], Element(key, None, 0.8, "short"))  # "cars_data" is about cars
    fk_cols = {c.lower() for fk in table.foreign_keys for c in fk.columns}
    pk_cols = {c.lower() for c in table.primary_key} | {
        c.name.lower() for c in table.columns if c.primary_key
    }
    idx.keys[key] = {c.name for c in table.columns if c.name.lower() in fk_cols | pk_cols}
    # words of this table's name and of the tables it references, for abbreviations (`StuID`)
    full = tw + tuple(
        w
        for fk in table.foreign_keys
        for w in words_of(fk.ref_table.split(".")[-1])
    )
    for col in table.columns:
        _index_column(idx, key, tw, col, full)
    idx.labels[key] = _labels(idx, key, tw)


def _index_column(
    idx: SchemaIndex, key: str, tw: tuple[str, ...], col: Column, full: tuple[str, ...] = ()
) -> None:
    cw = words_of(col.name)
    expanded = expand_abbreviations(cw, full)
    idx.col_words[(key, col.name)] = expanded
    idx.kinds[(key, col.name)] = column_kind(col)
    for words in dict.fromkeys((cw, expanded)):
        _index_forms(idx, key, tw, col, words)
    if col.original_name:
        _add(idx, words_of(col.original_name), Element(key, col.name, 1.0, "original"))
    is_id = bool(cw) and cw[-1] == "id"
    own_key = col.primary_key or col.name in idx.tables[key].primary_key
    if is_id and len(cw) > 1 and (own_key or expanded[:-1] == tw or expanded[:-1] == tw[-1:]):
        _add(idx, ("id",), Element(key, col.name, 0.6, "head"))  # "the id of the pet"
    if idx.kinds[(key, col.name)] == "number":
        for word, nouns in MEASURE_WORDS.items():
            if set(nouns) & set(expanded) and word not in expanded:
                _add(idx, (word,), Element(key, col.name, 0.6, "measure"))  # "weigh" -> weight
    if idx.kinds[(key, col.name)] == "text":
        _index_samples(idx, key, col)


def expand_abbreviations(words: tuple[str, ...], full: tuple[str, ...]) -> tuple[str, ...]:
    """Column words that abbreviate a word of the table names around them: `StuID` of Student
    reads "student id", `ContId` of continents "continent id" (a unique prefix of 3+ letters)."""
    out = []
    for w in words:
        hits = {f for f in full if len(w) >= 3 and len(f) > len(w) and f.startswith(w)}
        out.append(hits.pop() if len(hits) == 1 and w not in full else w)
    return tuple(out)


def _index_forms(
    idx: SchemaIndex, key: str, tw: tuple[str, ...], col: Column, cw: tuple[str, ...]
) -> None:
    _add(idx, cw, Element(key, col.name, 1.0, "name"))
    is_id = bool(cw) and cw[-1] == "id"
    if tw and cw[: len(tw)] == tw and len(cw) > len(tw) and not is_id:
        _add(idx, cw[len(tw) :], Element(key, col.name, 0.85, "short"))
    elif tw and cw[:1] != tw[-1:]:
        _add(idx, tw + cw, Element(key, col.name, 1.0, "qualified"))
        _add(idx, tw[-1:] + cw, Element(key, col.name, 0.95, "qualified"))
    if len(cw) >= 2 and not is_id:
        _add(idx, cw[-1:], Element(key, col.name, 0.6, "head"))
    if len(cw) == 2 and not is_id:
        _add(
            idx, cw[::-1], Element(key, col.name, 0.65, "part")
        )  # "staff number" ↔ number_of_staff
    for size in range(2, len(cw)):
        for start in (0, len(cw) - size):
            # "net worth" names `net_worth_millions`
            _add(idx, cw[start : start + size], Element(key, col.name, 0.7, "part"))
    if len(cw) >= 2 and cw[-1] in _DATE_WORDS | {"at", "on"}:
        # "opened" names `opened_date`, "created" names `created_at`
        _add(idx, cw[:-1], Element(key, col.name, 0.75, "short"))


def _index_samples(idx: SchemaIndex, key: str, col: Column) -> None:
    for sample in col.samples:
        norm = normalize_value(sample)
        if not norm or len(norm) > 60 or len(norm.split()) > _MAX_VALUE_WORDS:
            continue
        if norm.replace(".", "").replace("-", "").isdigit():
            continue  # numbers in the question are read as numbers, not as text values
        bucket = idx.values.setdefault(norm, [])
        if not any(t == key and c == col.name for t, c, _ in bucket):
            bucket.append((key, col.name, sample))


def normalize_value(text: str) -> str:
    """Case- and space-insensitive form of a value, for matching question words to data."""
    return " ".join(str(text).lower().split())


def _labels(idx: SchemaIndex, key: str, tw: tuple[str, ...]) -> list[str]:
    """The columns that name a row of `key` (e.g. `book_title`, or `given_name` + `family_name`)."""
    table = idx.tables[key]
    texts = [
        c
        for c in table.columns
        if idx.kinds[(key, c.name)] == "text" and c.name not in idx.keys[key]
    ]
    same = [c.name for c in texts if idx.col_words[(key, c.name)] == tw]
    if same:
        return same[:1]
    for word in _LABEL_WORDS:
        exact = [
            c.name
            for c in texts
            if idx.col_words[(key, c.name)] in ((word,), tw + (word,), tw[-1:] + (word,))
        ]
        if exact:
            return exact[:1]
        named = [c.name for c in texts if word in idx.col_words[(key, c.name)]]
        if named:
            return named[:2]
    return []


def _index_edges(idx: SchemaIndex) -> None:
    for pos, table in enumerate(idx.snapshot.tables):
        for k, fk in enumerate(table.foreign_keys):
            ref = idx.snapshot.table(fk.ref_table)
            if ref is None or not fk.columns or len(fk.columns) != len(fk.ref_columns):
                continue
            idx.edges.append(
                FKEdge(table.key, tuple(fk.columns), ref.key, tuple(fk.ref_columns), (pos, k))
            )


class IndexCache:
    """Recent snapshot indexes, keyed by datasource id + fingerprint + samples digest."""

    def __init__(self, size: int = 16):
        self._size = size
        self._items: OrderedDict[tuple[str, str, str], SchemaIndex] = OrderedDict()
        self._lock = threading.Lock()  # sub-queries are planned in parallel threads

    def get(self, snapshot: SchemaSnapshot) -> SchemaIndex:
        """The index of `snapshot`, built on first use."""
        key = (snapshot.datasource_id, snapshot.fingerprint, _samples_digest(snapshot))
        with self._lock:
            return self._get(key, snapshot)

    def _get(self, key: tuple[str, str, str], snapshot: SchemaSnapshot) -> SchemaIndex:
        found = self._items.get(key)
        if found is None:
            found = build_index(snapshot)
            self._items[key] = found
            if len(self._items) > self._size:
                self._items.popitem(last=False)
        else:
            self._items.move_to_end(key)
        return found


def _samples_digest(snapshot: SchemaSnapshot) -> str:
    # The fingerprint ignores samples and descriptions; the index depends on both.
    h = hashlib.sha1()
    for t in snapshot.tables:
        h.update((t.original_name or "").encode())
        for c in t.columns:
            h.update(b"\x1f".join(s.encode() for s in c.samples))
            h.update((c.original_name or "").encode() + b"\x1e")
    return h.hexdigest()[:16]
