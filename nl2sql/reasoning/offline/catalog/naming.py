"""Words of identifiers and what kind of data a column holds.

`words_of` reads an identifier as canonical words (`list_price` → "list pric"), expanding a
glued abbreviation of a table word (`CustID` of customers → "customer id"); `column_kind` says
whether a column is text, number, date or boolean — a TEXT column whose sampled values are all
numbers is a number (SQLite stores numbers as text often).
"""

from __future__ import annotations

import re

from nl2sql.reasoning.offline.words.text import STOP, canon, split_identifier
from nl2sql.schema.models import Column
from nl2sql.schema.naming import SchemaNaming, is_english_word

_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}")
DATE_WORDS = {"dat", "time", "timestamp", "day"}
_NULL_LIKE = {"", "null", "none", "na", "n/a", "nan", "-", "?"}


def words_of(name: str) -> tuple[str, ...]:
    """Normalized content words of an identifier or a label."""
    return tuple(canon(w) for w in split_identifier(name) if w not in STOP)


def column_name(naming: SchemaNaming, key: str, column: str) -> str:
    """The name a column's words are read from: without a code abbreviating its table
    (`lockName` of tblLocker reads "name"); a code that is a word of the table's own name
    (`dock_name` of dock) stays, the index adds the name without it as a short form."""
    read = naming.column(key, column)
    return read.core_name if read.code and not read.own else column


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
        named_like_date = bool(DATE_WORDS & set(words_of(col.name))) or col.name.lower().endswith(
            "_at"
        )
        iso = bool(col.samples) and all(_ISO_DAY.match(s) for s in col.samples)
        return "date" if named_like_date and (iso or not col.samples) or iso else "text"
    if col.is_numeric:
        return "number"
    return "other"


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


def derived_base(word: str) -> str | None:
    """The noun a derived noun is made from: "membership" -> member (its canon form)."""
    for suffix in ("ality", "ship", "hood"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return canon(word[: -len(suffix)])
    return None


def expand_abbreviations(
    words: tuple[str, ...], full: tuple[str, ...], name: str = ""
) -> tuple[str, ...]:
    """Column words that abbreviate a word of the table names around them: `CustID` of customers
    reads "customer id", `RegId` of regions "region id" (a unique prefix of 3+ letters) — not a
    word of `name` that is an English word already (`baked_on` beside bakers is no "baker")."""
    raw = [w for w in split_identifier(name) if w not in STOP]
    # an inflected English word ("baked": `bak`), not a code that is a word too (`prod`, `pat`)
    english = ({canon(w) for w in raw if canon(w) != w.lower() and is_english_word(w)}
               if len(raw) == len(words) else set())
    out = []
    for w in words:
        hits = {f for f in full if len(w) >= 3 and len(f) > len(w) and f.startswith(w)}
        out.append(hits.pop() if len(hits) == 1 and w not in full and w not in english else w)
    return tuple(out)


def normalize_value(text: str) -> str:
    """Case-, space- and inner-hyphen-insensitive form of a value, for matching question words
    to data: a question's "part-time" or "SUP-004" is tokenized as two words, the stored value
    is one.

    >>> normalize_value("  Part-Time ")
    'part time'
    >>> normalize_value("SUP-004")
    'sup 004'
    """
    return " ".join(_INNER_HYPHEN.sub(" ", str(text).lower()).split())


_INNER_HYPHEN = re.compile(r"(?<=[^\W_])-(?=[^\W_])")
