"""How a schema writes its identifiers: their segments, a table's namespace prefix, a column's
table code.

Business schemas write a table as `tblParcelLocker`, `t_crates` or `dlv_docks` — behind a
leading segment that names no table — and a column as `lockName`, `crtDepotId`, `c_depotkey`
or `CRT_WEIGHT` — behind a code of its own table. `read_naming(snapshot)` reads both once per
snapshot; whoever matches words against questions or other names uses the segments without
them (`core`), and the identifiers themselves are kept as written for SQL.

* A table's **namespace prefix** is its first segment when more segments follow and it is no
  English word (lemminflect knows no part of speech for it) that is short (three letters or
  fewer, or no vowel: `tbl`, `t`, `vw`) or begins other tables' names too (`dlv_docks`,
  `dlv_bays`); or when every table of the source begins with it (it tells none apart).
  `bus_lanes` keeps `bus`, an English word.
* A column's **table code** is its first segment when more follow and it abbreviates its own
  table — the table's first letters (`lock` of locker), its initials (`cos` of
  crate_on_shelf), a consonant skeleton (`crt` of crate, `prd` of product): any
  subsequence of the table's glued words that starts with its first letter — and at least two
  columns and half of the table's columns begin with it; or, no English word, it begins two
  thirds of them (three at least) without abbreviating the name. One column alone is never
  coded: `pay_rate` of a table `payload` starts like its table by chance. A code that is a
  word of the table's own name (`dock_name` in dock) is marked `own` unless every column
  carries it (then it is the table's convention, read as any code): the name reads as well
  with it as without it.

Word knowledge comes from lemminflect's dictionary (and inflect's singular forms), not lists.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from nl2sql.inflection import inflect_engine
from nl2sql.schema.models import SchemaSnapshot, Table

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[^\W\d_])(?=[0-9])")
# A letter or digit of any script: identifiers may be Cyrillic, CJK, accented...
_NOT_WORD = re.compile(r"[\W_]+")
_SHORT = 3  # a foreign segment this short is a code, not a name (`tbl`, `t`)
_VOWELS = frozenset("aeiouy")


def segments(name: str) -> list[str]:
    """The lower-case segments of an identifier: snake_case, camelCase, UPPER_SNAKE, kebab,
    spaces, digits apart from letters; letters of any script. A name with no letter or digit
    (an emoji) is one segment as written.

    >>> segments("tblCrates_crtID"), segments("c_loaddate"), segments("ADDRESS_LINE2")
    (['tbl', 'crates', 'crt', 'id'], ['c', 'loaddate'], ['address', 'line', '2'])
    """
    parts = _NOT_WORD.split(_CAMEL.sub(" ", name))
    words = [p.lower() for p in parts if p]
    return words or ([name.strip().lower()] if name.strip() else [])


@lru_cache(maxsize=65536)
def is_english_word(segment: str) -> bool:
    """lemminflect's dictionary knows the segment as a word of some part of speech."""
    from lemminflect import getAllLemmas  # type: ignore[import-untyped]

    return bool(getAllLemmas(segment))


#: a glued segment shorter than this is left as it is (`zipcode` is the shortest worth reading)
_MIN_GLUED = 6
_SEGMENTER_LOCK = threading.Lock()


@lru_cache(maxsize=65536)
def unglued(segment: str) -> tuple[str, ...]:
    """The English words a segment glues together (`orderdate` -> ("order", "date"),
    `numcitedby` -> ("num", "cited", "by")), by symspellpy's word segmentation over its
    English word frequencies; the segment alone when it is a word itself, shorter than six
    letters, not all letters, or when a piece is a single letter or no word lemminflect knows
    (`custkey` would be "cu st key": kept glued). `known` pieces (abbreviations a reader
    spells out, such as "num") count as words.

    >>> unglued("orderdate"), unglued("homepage"), unglued("custkey")
    (('order', 'date'), ('homepage',), ('custkey',))
    """
    if len(segment) < _MIN_GLUED or not segment.isalpha() or is_english_word(segment):
        return (segment,)
    pieces = tuple(_segmenter().word_segmentation(segment).corrected_string.split())
    if len(pieces) < 2 or "".join(pieces) != segment:
        return (segment,)
    if any(len(p) < 2 or not (is_english_word(p) or p in _FUNCTION_WORDS or p in _KNOWN)
           for p in pieces):
        return (segment,)
    return pieces


#: pieces lemminflect has no part of speech for but that are words of English identifiers
_FUNCTION_WORDS = frozenset("of in on at to by for per via and or the".split())
_KNOWN = frozenset("id num no qty amt nbr".split())


@lru_cache(maxsize=1)
def _segmenter() -> Any:
    """symspellpy's word segmentation over its English unigram frequencies, at edit distance 0.

    At distance 0 the segmentation only looks words up exactly, so the dictionary is read into
    the speller's word table alone: `load_dictionary` would also build the index of prefix
    deletes that fuzzy look-ups use (about 1.5 s of CPU and 300,000 entries per process, none
    of them read here). The segmentation itself is symspellpy's, unchanged.
    """
    from importlib.resources import files

    from symspellpy import SymSpell  # type: ignore[import-untyped]
    from symspellpy.suggest_item import SuggestItem  # type: ignore[import-untyped]

    class ExactSpeller(SymSpell):  # type: ignore[misc]
        def load_words(self, text: str) -> None:
            """`term count` lines into the word table (what load_dictionary keeps at distance 0)."""
            for line in text.splitlines():
                term, _, count = line.partition(" ")
                if term and count.strip().isdigit():
                    self._words[term] = int(count)
            self._max_length = max(map(len, self._words), default=0)

        def lookup(self, phrase: str, verbosity: Any, max_edit_distance: int | None = None,
                   **_: Any) -> list[Any]:
            count = self._words.get(phrase)
            return [SuggestItem(phrase, 0, count)] if count is not None else []

    with _SEGMENTER_LOCK:
        speller = ExactSpeller(max_dictionary_edit_distance=0, prefix_length=7)
        speller.load_words(
            (files("symspellpy") / "frequency_dictionary_en_82_765.txt").read_text("utf-8"))
        return speller


def abbreviates(code: str, words: list[str] | tuple[str, ...]) -> bool:
    """Whether `code` is a shortening of the glued words: a subsequence of their letters that
    starts with the first one and is shorter than them (`lock`, `cos`, `crt`, `dl`, `c`).

    >>> abbreviates("crt", ["crate"]), abbreviates("cos", ["crate", "on", "shelf"])
    (True, True)
    >>> abbreviates("rte", ["crate"]), abbreviates("crate", ["crate"])
    (False, False)
    """
    glued = "".join(words)
    if not code or not glued or code[0] != glued[0] or len(code) >= len(glued):
        return False
    rest = iter(glued[1:])
    return all(ch in rest for ch in code[1:])


@lru_cache(maxsize=65536)
def singular(word: str) -> str:
    """inflect's singular of a plural noun, else the word."""
    return inflect_engine().singular_noun(word) or word


@dataclass(frozen=True)
class TableNaming:
    """A table's name read: its segments and the namespace prefix (`tbl`, or None)."""

    name: str
    segments: tuple[str, ...]
    prefix: str | None = None
    shared: bool = False  # every table of the source carries the prefix

    @property
    def core(self) -> tuple[str, ...]:
        """The segments that name the table (without its namespace prefix)."""
        return self.segments[1:] if self.prefix else self.segments

    @property
    def core_name(self) -> str:
        return "_".join(self.core)


@dataclass(frozen=True)
class ColumnNaming:
    """A column's name read: its segments and its table code (`lock`, or None)."""

    name: str
    segments: tuple[str, ...]
    code: str | None = None
    own: bool = False  # the code is a word of the table's own name (`dock_name` in dock)
    table: tuple[str, ...] = ()  # the segments of the table's name the code abbreviates

    @property
    def core(self) -> tuple[str, ...]:
        """The segments that name the column (without its table code)."""
        return self.segments[1:] if self.code else self.segments

    @property
    def core_name(self) -> str:
        return "_".join(self.core)

    @property
    def words(self) -> tuple[str, ...]:
        """The one reading of the name: without an abbreviating code, with a word of the table's
        own name (`crate_id` of spare_crate_parts keeps "crate")."""
        return self.segments if self.own else self.core

    @property
    def readings(self) -> tuple[tuple[str, ...], ...]:
        """Every reading worth matching: as written, without the code, and with the code read
        as the table's name it abbreviates (`lockId` of tblLocker: "locker id")."""
        spelled = self.table + self.core if self.code and not self.own else self.segments
        return tuple(dict.fromkeys((self.segments, self.core, spelled)))


@dataclass
class SchemaNaming:
    """The naming reading of one snapshot's tables and columns (keys as `Table.key`)."""

    tables: dict[str, TableNaming] = field(default_factory=dict)
    columns: dict[tuple[str, str], ColumnNaming] = field(default_factory=dict)

    def table(self, key: str) -> TableNaming:
        return self.tables.get(key) or TableNaming(key, tuple(segments(key)))

    def column(self, table: str, name: str) -> ColumnNaming:
        return self.columns.get((table, name.lower())) or ColumnNaming(name, tuple(segments(name)))


def read_naming(snapshot: SchemaSnapshot) -> SchemaNaming:
    """The naming reading of `snapshot`'s tables and columns (cheap: the word look-ups are
    cached; the offline index keeps the reading of its snapshot)."""
    naming = SchemaNaming()
    firsts = Counter(
        segs[0] for segs in (segments(t.name) for t in snapshot.tables) if _has_rest(segs)
    )
    for table in snapshot.tables:
        naming.tables[table.key] = read_table(table.name, firsts, len(snapshot.tables))
        core = naming.tables[table.key].core
        for col in read_columns(table, core):
            naming.columns[(table.key, col.name.lower())] = col
    return naming


def read_table(name: str, firsts: Counter[str] | None = None, tables: int = 1) -> TableNaming:
    """A table name read alone (`firsts` counts the first segments of the source's names).

    >>> read_table("tblParcelLocker").core, read_table("bus_lanes").core
    (('parcel', 'locker'), ('bus', 'lanes'))
    """
    segs = tuple(segments(name))
    if not _has_rest(segs):
        return TableNaming(name, segs)
    first, shared = segs[0], (firsts or Counter())[segs[0]]
    everywhere = tables >= 2 and shared == tables
    foreign = first.isalpha() and not is_english_word(first)
    short = len(first) <= _SHORT or not _VOWELS & set(first)
    if everywhere or foreign and (short or shared >= 2):
        return TableNaming(name, segs, first, everywhere)
    return TableNaming(name, segs)


def read_columns(table: Table, core: tuple[str, ...]) -> list[ColumnNaming]:
    """The columns of `table` read against its name's `core` segments."""
    split = [(c.name, tuple(segments(c.name))) for c in table.columns]
    firsts = Counter(segs[0] for _, segs in split if _has_rest(segs))
    codes = {first: _code_kind(first, n, len(split), core) for first, n in firsts.items()}
    out = []
    for name, segs in split:
        kind = codes.get(segs[0]) if _has_rest(segs) else None
        out.append(ColumnNaming(name, segs, segs[0] if kind else None, kind == "own", core))
    return out


def _code_kind(first: str, count: int, columns: int, core: tuple[str, ...]) -> str | None:
    """own | abbreviation | foreign when `first`, beginning `count` of `columns` column names,
    is a code of the table named `core`; None when it is a word of the column's own name."""
    if not core or not first.isalpha():
        return None
    own = first in core or singular(first) in {singular(w) for w in core}
    if (own or abbreviates(first, core)) and count >= 2 and 2 * count >= columns:
        return "own" if own and count < columns else "abbreviation"
    if not own and not is_english_word(first) and count >= 3 and 3 * count >= 2 * columns:
        return "foreign"
    return None


def _has_rest(segs: list[str] | tuple[str, ...]) -> bool:
    """More segments follow the first, one of them with a letter."""
    return len(segs) >= 2 and any(not s.isdigit() for s in segs[1:])
