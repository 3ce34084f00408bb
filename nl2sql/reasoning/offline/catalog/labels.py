"""The label columns of a table: the columns whose text names one of its rows (what "list the
books" shows): a column named like the table, then one called a name, title or label, then the
table's name glued to such a word (`authorname`), and failing those a text column that differs
on every row."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nl2sql.reasoning.offline.catalog.naming import column_name
from nl2sql.reasoning.offline.catalog.segments import abbreviates
from nl2sql.reasoning.offline.words import wordnet
from nl2sql.reasoning.offline.words.text import canon, split_identifier
from nl2sql.schema.key_names import name_match
from nl2sql.schema.models import Column, Table
from nl2sql.schema.naming import is_english_word
from nl2sql.schema.relationships import holds_every_row_once

if TYPE_CHECKING:
    from nl2sql.reasoning.offline.catalog.index import SchemaIndex

_LABEL_WORDS = ("name", "title", "label")


def label_columns(idx: SchemaIndex, key: str, tw: tuple[str, ...]) -> list[str]:
    """The columns that name a row of `key` (e.g. `book_title`, or `given_name` + `family_name`)."""
    table = idx.tables[key]
    texts = [
        c
        for c in table.columns
        if idx.kinds[(key, c.name)] == "text" and c.name not in idx.keys[key]
    ]
    # a column named like the table ("title" of titles, "brand" of car_brands) names its rows
    same = [c.name for c in texts if idx.col_words[(key, c.name)] in (tw, tw[-1:])]
    if same:
        return same[:1]
    for word in map(canon, _LABEL_WORDS):  # a title of the row's own beats another's name
        exact = [
            c.name
            for c in texts
            if idx.col_words[(key, c.name)] in ((word,), tw + (word,), tw[-1:] + (word,))
        ]
        if exact:
            return exact[:1]
    core = idx.naming.table(key).core
    for word in _LABEL_WORDS:
        named = [c.name for c in texts if _says(idx, key, c.name, word)]
        # `agency_name` of agents names an agency: a row's own name parts (`first_name`,
        # `family_name`) come first
        own = [c for c in named if not _names_another(idx, key, c, word, core)]
        # `full_name` beside `companyName`: the one that differs on every row names it
        whole = [c for c in own
                 if (col := table.column(c)) is not None and _names_every_row(table, col)]
        if len(own) > 1 and len(whole) == 1:
            return whole
        if len(whole) > 1 and any(_several_words(table.column(c)) for c in whole):
            # a common and a scientific name: each names the row alone, the first is shown (a
            # first and a last name, one word each, name it together)
            return whole[:1]
        if own or named:
            return (own or named)[:2]
    # `authorname` in author: the table's name glued to a label word
    glued = [c.name for c in texts if _glued_label(column_name(idx.naming, key, c.name), core)]
    if glued:
        return glued[:1]
    # no column is called a name: one whose text differs on every row (a plate, a code) names
    # each row as well as one can, better than its key
    return [c.name for c in texts if _names_every_row(table, c)][:1]


def says_a_label(idx: SchemaIndex, key: str, column: str) -> bool:
    """Whether a column of `key` is called a name, title or label (`UNIT_NM`, `room_title`)."""
    return any(_says(idx, key, column, word) for word in _LABEL_WORDS)


def row_names(idx: SchemaIndex, key: str) -> set[str]:
    """The columns that name a row of `key`: its key and its label columns."""
    return set(idx.pk(key)) | set(idx.labels.get(key, []))


def _names_every_row(table: Table, col: Column) -> bool:
    """A text column holding a different value on each of the table's (several) rows
    (`holds_every_row_once` reads a profile taken over the whole table)."""
    return (table.row_count or 0) > 1 and holds_every_row_once(table, col)


def _several_words(col: Column | None) -> bool:
    """Whether most sampled values of a text column are several words ("White Oak")."""
    samples = [str(v) for v in (col.samples if col is not None else [])]
    return bool(samples) and sum(" " in v.strip() for v in samples) * 2 > len(samples)


def _glued_label(column: str, table: tuple[str, ...]) -> bool:
    low = column.lower()
    return any(
        low.endswith(word) and name_match(low[: -len(word)], table) is not None
        for word in ("name", "title", "label")
        if len(low) > len(word)
    )


def _says(idx: SchemaIndex, key: str, column: str, label: str) -> bool:
    """Whether a column's name holds the word `label`, or is that word abbreviated as a coded
    schema writes it, behind nothing but the table's name or code (`cmpn_nm` of campaigns) or
    one modifier (`frst_nm`, `city_nm`: `_names_another` tells the row's own from another's)."""
    if canon(label) in idx.col_words[(key, column)]:
        return True
    words = [w.lower() for w in split_identifier(column_name(idx.naming, key, column))]
    if not words:
        return False
    *before, last = words
    core = idx.naming.table(key).core
    return (abbreviates(last, label) and not is_english_word(last) and (len(before) == 1 or all(
        w in core or any(abbreviates(w, c) for c in core) for w in before)))


def _names_another(idx: SchemaIndex, key: str, column: str, label: str,
                   core: tuple[str, ...]) -> bool:
    """Whether the words before the label word make the column another thing's name: a noun
    that is no adjective ("agency name", "gallery name") and forms no name of its own in WordNet
    ("family name", "company name" are WordNet lemmas; "full", "first", "legal" adjectives)."""
    words = [w.lower() for w in split_identifier(column_name(idx.naming, key, column))]
    modifiers = [w for w in words[:-1] if w not in core]
    if not modifiers or not wordnet.available():
        return False
    last = modifiers[-1]
    return not (wordnet.senses(last, "a", 1) or wordnet.senses(f"{last} {label}", "n", 1)
                or not wordnet.senses(last, "n", 1))
