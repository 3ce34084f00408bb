"""The per-snapshot index the engine links questions against; built once per snapshot.

It holds the phrase forms of every table and column (normalized word tuples → elements with a
strength), the sample values of text columns, each table's label columns and date columns, and the
foreign-key edges. `cache.IndexCache` keeps the indexes of recent snapshots, so planning a question
costs dictionary look-ups; `naming.py` reads identifiers into words and columns into kinds,
`labels.py` chooses each table's label columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from nl2sql.reasoning.offline.catalog.labels import label_columns
from nl2sql.reasoning.offline.catalog.naming import (
    DATE_WORDS,
    column_kind,
    column_name,
    derived_base,
    expand_abbreviations,
    normalize_value,
    words_of,
)
from nl2sql.reasoning.offline.catalog.segments import (
    event_nouns,
    glued_form,
    modifier_columns,
    modifier_tables,
    unit_free_words,
)
from nl2sql.reasoning.offline.words.lexicon import MEASURE_WORDS, PLACE_NOUNS
from nl2sql.reasoning.offline.words.text import canon, split_identifier
from nl2sql.schema.key_names import KEY_SUFFIXES, split_words
from nl2sql.schema.models import Cardinality, Column, SchemaSnapshot, Table, many_ends
from nl2sql.schema.naming import SchemaNaming, is_english_word, read_naming
from nl2sql.schema.relationships import holds_every_row_once, infer_relationships, inferred_key

_MAX_VALUE_WORDS = 6
_GENERIC_SUFFIXES = {"data", "info", "information", "detail", "list", "table", "record", "master",
                     "dim", "fact"}


@dataclass(frozen=True)
class Element:
    """A table (column=None) or a column that a phrase names, with the phrase's strength."""

    table: str
    column: str | None
    score: float
    form: str  # name | original | qualified | short | head | term | metric
    metric: str | None = None  # a metric of the semantic layer over `table` (column is None)

    @property
    def ref(self) -> str:
        if self.metric is not None:
            return f"{self.table}:{self.metric}"
        return self.table if self.column is None else f"{self.table}.{self.column}"


@dataclass(frozen=True)
class FKEdge:
    src: str
    src_cols: tuple[str, ...]
    dst: str
    dst_cols: tuple[str, ...]
    # (position of src in the snapshot, position of the FK): declaration order
    rank: tuple[int, int]
    inferred: str = ""  # for an edge no key declares: the evidence it was inferred from
    # `src` to `dst`, as a layer's relationship says; an inferred edge (whose one-to-one is only
    # "nearly unique" in the sampled rows) stays many-to-one
    cardinality: Cardinality = "many-to-one"

    def fans_out(self, leaving: str) -> bool:
        """Whether joining along the edge from the table `leaving` may repeat its rows."""
        many_src, many_dst = many_ends(self.cardinality)
        return many_src if leaving == self.dst else many_dst


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
    inferred: list[FKEdge] = field(default_factory=list)  # used only where `edges` do not connect
    max_phrase: int = 1
    naming: SchemaNaming = field(default_factory=SchemaNaming)  # prefixes and table codes
    _inferred_keys: dict[str, list[str]] = field(default_factory=dict, repr=False)
    # the look-up-free linkings of the last questions (linker.link_words), by tokens and taken
    linked: dict[Any, Any] = field(default_factory=dict, init=False, repr=False, compare=False)
    # the words of its names that are no English word (linking/coded.py), found on first use
    coded: frozenset[str] | None = field(default=None, init=False, repr=False, compare=False)

    def column(self, table: str, name: str) -> Column | None:
        return self.tables[table].column(name) if table in self.tables else None

    def kind(self, table: str, column: str) -> str:
        return self.kinds.get((table, column), "other")

    def date_columns(self, table: str) -> list[str]:
        return [c.name for c in self.tables[table].columns if self.kind(table, c.name) == "date"]

    def text_columns(self, table: str) -> list[str]:
        return [c.name for c in self.tables[table].columns if self.kind(table, c.name) == "text"]

    def pk(self, table: str) -> list[str]:
        """The declared primary key; else the column inferred to identify a row (unique, named
        like the table's key), so counting entities and grouping "each X" work without keys."""
        t = self.tables[table]
        declared = list(t.primary_key) or [c.name for c in t.columns if c.primary_key]
        if declared:
            return declared
        if table not in self._inferred_keys:
            key = inferred_key(t, self.naming)
            self._inferred_keys[table] = [key] if key else []
        return self._inferred_keys[table]


    def row_key(self, table: str) -> str | None:
        """The column that counts each row of `table` once through joins that repeat it: the
        one-column primary key (declared or inferred), else a column holding a different
        non-null value on every row, key-named ones first; None for a composite key or none."""
        pk = self.pk(table)
        if pk:
            return pk[0] if len(pk) == 1 else None
        t = self.tables[table]
        unique = [c for c in t.columns
                  if self.kind(table, c.name) in ("number", "text") and holds_every_row_once(t, c)]
        unique.sort(key=lambda c: split_words(c.name)[-1] not in KEY_SUFFIXES)
        return unique[0].name if unique else None


def build_index(snapshot: SchemaSnapshot) -> SchemaIndex:
    """Index every table and column of `snapshot` (names, samples, labels, foreign keys)."""
    idx = SchemaIndex(snapshot=snapshot, naming=read_naming(snapshot))
    for pos, table in enumerate(snapshot.tables):
        idx.tables[table.key] = table
        idx.order[table.key] = pos
    for table in snapshot.tables:
        _index_table(idx, table)
    _index_modifiers(idx)
    for forms in idx.phrases.values():
        forms[:] = _decided(forms)
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
            # an analyst's term replaces the name it repeats, so it decides (see _decided)
            if element.score > old.score or (element.form == "term" and old.form != "term"):
                bucket[i] = element
            return
    bucket.append(element)


def _decided(forms: list[Element]) -> list[Element]:
    """The elements a phrase names once the analyst's terms have spoken: a term naming a column
    leaves no other column for its words ('amount' in two tables, taught as `payments.amount`),
    a term naming a table no other table."""
    terms = [e for e in forms if e.form == "term"]
    if not terms:
        return forms
    kinds = {e.column is None for e in terms}
    return [e for e in forms if e.form == "term" or (e.column is None) not in kinds]


def _index_table(idx: SchemaIndex, table: Table) -> None:
    key = table.key
    naming = idx.naming.table(key)
    name = naming.core_name  # `tblParcelLocker` is named as parcel_locker is
    tw = words_of(name)
    idx.table_words[key] = tw
    # "has_copy" reads "copy", weaker; a prefix only some tables carry (`vw_`) may be a word
    whole = len(tw) == len(split_identifier(name)) and (not naming.prefix or naming.shared)
    _add(idx, tw, Element(key, None, 1.0 if whole else 0.9, "name"))
    if naming.prefix:
        _add(idx, words_of(table.name), Element(key, None, 1.0, "name"))
    _add(idx, glued_form(name) or (), Element(key, None, 0.95, "glued"))  # "username"
    if table.original_name:
        _add(idx, words_of(table.original_name), Element(key, None, 1.0, "original"))
    if len(tw) >= 2:
        _add(idx, tw[-1:], Element(key, None, 0.7, "head"))
    for noun in event_nouns(naming.core_name, [c.name for c in table.columns]):  # "deployments"
        _add(idx, (canon(noun),), Element(key, None, 0.85, "head"))
    if len(tw) >= 2 and tw[-1] in _GENERIC_SUFFIXES:
        _add(idx, tw[:-1], Element(key, None, 0.8, "short"))  # "books_data" is about books
    fk_cols = {c.lower() for fk in table.foreign_keys for c in fk.columns}
    pk_cols = {c.lower() for c in table.primary_key} | {
        c.name.lower() for c in table.columns if c.primary_key
    }
    idx.keys[key] = {c.name for c in table.columns if c.name.lower() in fk_cols | pk_cols}
    # words of this table's name and of the tables it references, for abbreviations (`CustID`)
    full = tw + tuple(w for fk in table.foreign_keys for w in _table_words(idx, fk.ref_table))
    hidden = {c.lower() for c in table.semantic.hidden} if table.semantic else set()
    for col in table.columns:
        if col.name.lower() not in hidden:  # a hidden column cannot be named, so never shown
            _index_column(idx, key, tw, col, full)
        else:
            idx.kinds[(key, col.name)] = column_kind(col)
            idx.col_words[(key, col.name)] = words_of(column_name(idx.naming, key, col.name))
    idx.labels[key] = label_columns(idx, key, tw)
    if table.semantic is not None:
        _index_semantic(idx, table)


def _table_words(idx: SchemaIndex, ref: str) -> tuple[str, ...]:
    """The words of a referenced table's name (without its namespace prefix)."""
    found = idx.snapshot.table(ref)
    return words_of(idx.naming.table(found.key).core_name if found else ref.split(".")[-1])


def _index_column(
    idx: SchemaIndex, key: str, tw: tuple[str, ...], col: Column, full: tuple[str, ...] = ()
) -> None:
    name = column_name(idx.naming, key, col.name)
    cw = words_of(name)
    expanded = expand_abbreviations(cw, full, name)
    idx.col_words[(key, col.name)] = expanded
    idx.kinds[(key, col.name)] = column_kind(col)
    for words in dict.fromkeys((cw, expanded)):
        _index_forms(idx, key, tw, col, words)
    naming = idx.naming.column(key, col.name)
    core = words_of(naming.core_name)
    if naming.own and core and core[-1] != "id":
        # `docks_dock_depth` of docks, where most columns say "docks": as `dock_depth` is, weaker
        _index_forms(idx, key, tw, col, core, cap=0.85)
    code = naming.code
    if name != col.name and code and is_english_word(code):
        # a code that is a word too (`ship_date` of shipments) may be said: "the ship date"
        _add(idx, words_of(col.name), Element(key, col.name, 0.9, "name"))
    unit_free = unit_free_words(name)
    # `weight_kg` is named as the weight is; `tripKm` of tblTrips is not "the trips"
    if unit_free and unit_free not in (tw, tw[-1:]):
        _index_forms(idx, key, tw, col, unit_free)
    _add(idx, glued_form(name) or (), Element(key, col.name, 0.95, "glued"))  # "zipcode"
    last = split_identifier(name)[-1]
    if len(cw) == 2 and col.distinct_count in (1, 2) and not is_english_word(last):
        _add(idx, cw[:1], Element(key, col.name, 0.85, "short"))  # "generic" of `GENERIC_FLG`
    if col.original_name:
        _add(idx, words_of(col.original_name), Element(key, col.name, 1.0, "original"))
    is_id = bool(cw) and cw[-1] == "id"
    own_key = col.primary_key or col.name in idx.tables[key].primary_key
    if is_id and len(cw) > 1 and (own_key or expanded[:-1] == tw or expanded[:-1] == tw[-1:]):
        _add(idx, ("id",), Element(key, col.name, 0.6, "head"))  # "the id of the book"
    if idx.kinds[(key, col.name)] == "number":
        for word, nouns in MEASURE_WORDS.items():
            if set(nouns) & set(expanded) and word not in expanded:
                _add(idx, (word,), Element(key, col.name, 0.6, "measure"))  # "cost" -> price
    if idx.kinds[(key, col.name)] == "text":
        if set(expanded) & _PLACES and (_PLACE,) != expanded:
            _add(idx, (_PLACE,), Element(key, col.name, 0.6, "place"))  # "each place", "where"
        _index_samples(idx, key, col)
    base = derived_base(expanded[0]) if len(cw) == 1 else None
    if base:
        _add(idx, (base,), Element(key, col.name, 0.6, "head"))  # "membership" -> "member"


_PLACES = {canon(w) for w in PLACE_NOUNS}
QUANTITY_WORDS = {canon(w) for w in ("quantity", "amount", "count")}  # of what the words before say
_PLACE = canon("place")


def _index_forms(
    idx: SchemaIndex,
    key: str,
    tw: tuple[str, ...],
    col: Column,
    cw: tuple[str, ...],
    cap: float = 1.0,
) -> None:
    """The phrase forms of a column named `cw` (its strongest at most `cap`)."""

    def add(form: tuple[str, ...], element: Element) -> None:
        _add(idx, form, replace(element, score=min(element.score, cap)))

    add(cw, Element(key, col.name, 1.0, "name"))
    is_id = bool(cw) and cw[-1] == "id"
    if tw and cw[: len(tw)] == tw and len(cw) > len(tw) and not is_id:
        add(cw[len(tw) :], Element(key, col.name, 0.85, "short"))
    elif tw and cw[:1] != tw[-1:]:
        add(tw + cw, Element(key, col.name, 1.0, "qualified"))
        add(tw[-1:] + cw, Element(key, col.name, 0.95, "qualified"))
    if len(cw) >= 2 and not is_id:
        add(cw[-1:], Element(key, col.name, 0.6, "head"))
    if len(cw) == 2 and not is_id:
        add(cw[::-1], Element(key, col.name, 0.65, "part"))  # "staff number" ↔ number_of_staff
    for size in range(2, len(cw)):
        for start in (0, len(cw) - size):
            # "net price" names `net_price_eur`
            add(cw[start : start + size], Element(key, col.name, 0.7, "part"))
    if len(cw) >= 2 and cw[:-1] not in (tw[:1], tw[-1:]) and (cw[-1] in DATE_WORDS | {"at", "on"} or (
            cw[-1] in QUANTITY_WORDS and idx.kinds.get((key, col.name)) == "number")):
        # "opened" names `opened_date`, "the most scrap" `scrap_qty`, "20 docks" `dock_count`
        add(cw[:-1], Element(key, col.name, 0.75, "short"))
        if len(cw) >= 3 and cw[-1] in QUANTITY_WORDS:  # "the most acres" of `ACRES_BURN_QTY`
            add(cw[:1], Element(key, col.name, 0.6, "part"))
    # "score" names `scoreOutOf10`, "cost" `costPerKgEur`: the words from "out"/"per" on scale it
    scale = next((i for i, w in enumerate(cw) if i and w in ("out", "per") and i < len(cw) - 1), 0)
    if scale:
        add(cw[:scale], Element(key, col.name, 0.75, "short"))


def _index_modifiers(idx: SchemaIndex) -> None:
    """ "which genres" names `genre_description`: a noun that only modifies column names reads as
    the label-like column of each table that has one (a weak reading; several stay ambiguous)."""
    shown = {
        pair: words
        for pair, words in idx.col_words.items()
        if any(e.column == pair[1] for e in idx.phrases.get(words, []) if e.table == pair[0])
    }
    for phrase, columns in modifier_columns(shown).items():
        if phrase not in idx.phrases:
            for table, column in columns:
                _add(idx, phrase, Element(table, column, 0.7, "modifier"))
    for phrase, table in modifier_tables(idx.table_words, idx.col_words).items():
        if not any(e.score >= 0.8 for e in idx.phrases.get(phrase, ())):
            _add(idx, phrase, Element(table, None, 0.7, "head"))


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


def _index_semantic(idx: SchemaIndex, table: Table) -> None:
    """The analyst's layer (nl2sql/semantic): terms name tables, columns and stored values, and
    metric names their metric, as strongly as the names themselves, and terms decide between
    same-named rivals; vocabularies are values like samples; declared labels
    replace the guessed ones."""
    assert table.semantic is not None
    key, semantic = table.key, table.semantic
    for term in semantic.terms:
        if term.column in semantic.hidden:
            continue  # a word for a hidden column names nothing that may be shown
        words = words_of(term.term)
        if term.value is not None and term.column is not None:
            bucket = idx.values.setdefault(normalize_value(term.term), [])
            if not any(t == key and c == term.column for t, c, _ in bucket):
                bucket.append((key, term.column, term.value))
        elif term.order is None:
            _add(idx, words, Element(key, term.column, 1.0, "term"))
    for metric in semantic.metrics:  # "revenue", "total_revenue", "avgBasket": its name's words
        _add(idx, words_of(metric.name), Element(key, None, 1.0, "metric", metric.name))
    for column, values in semantic.values.items():
        if column not in semantic.hidden:
            col = idx.tables[key].column(column)
            if col is not None:
                _index_samples(idx, key, col.model_copy(update={"samples": values}))
    if semantic.labels:
        idx.labels[key] = [c for c in semantic.labels if c not in semantic.hidden]
    elif semantic.hidden:
        idx.labels[key] = [c for c in idx.labels[key] if c not in semantic.hidden]


def _index_edges(idx: SchemaIndex) -> None:
    for pos, table in enumerate(idx.snapshot.tables):
        for k, fk in enumerate(table.foreign_keys):
            ref = idx.snapshot.table(fk.ref_table)
            if ref is None or not fk.columns or len(fk.columns) != len(fk.ref_columns):
                continue
            idx.edges.append(
                FKEdge(
                    table.key,
                    tuple(fk.columns),
                    ref.key,
                    tuple(fk.ref_columns),
                    (pos, k),
                    cardinality=fk.cardinality,
                )
            )
    # after the declared ones, strongest first: the rank keeps declared edges ahead in ties
    base = len(idx.snapshot.tables)
    for k, rel in enumerate(infer_relationships(idx.snapshot, naming=idx.naming)):
        evidence = ", ".join(rel.evidence)
        idx.inferred.append(
            FKEdge(rel.src, rel.src_columns, rel.dst, rel.dst_columns, (base, k), evidence)
        )
