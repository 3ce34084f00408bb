"""How a key's name reads: its stem and suffix (`custRef` → "cust" + "ref"), and whether the
stem names or abbreviates a table (`cust` of tblCustomers, `prd` of products, `deptcode`).

The name rules of relationship inference (`relationships.py`), which also serve the offline
engine's index and `nl2sql describe`. Word forms come from `inflect`, English words from the
dictionary `schema/naming.py` reads; no word lists.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from nl2sql.inflection import inflect_engine
from nl2sql.schema.naming import (
    ColumnNaming,
    abbreviates,
    is_english_word,
    read_table,
    segments,
)

#: Words that end a key's name: `customer_id`, `cust_code`, `order_no`, `item_number`, `custRef`.
KEY_SUFFIXES = ("id", "key", "code", "no", "nr", "num", "number", "ref")
MIN_ABBREVIATION = 3  # `cus` abbreviates customers; one or two letters only with the same name
_GLUED_SUFFIX = 3  # a key suffix this long may be glued to its stem (`custkey`, `deptcode`)


def name_match(stem: str, table: str | Sequence[str]) -> tuple[str, bool] | None:
    """How a key's stem names a table: ("named" | "abbreviated", whole name?) or None.

    `table` is a name (read alone: a namespace prefix such as `tbl` is left out) or the segments
    of one without its prefix; a match on the name's last words only (`plant` of
    `factory_plant`) is weaker than on all.

    >>> name_match("cust", "tblCustomers"), name_match("plant", "factory_plant")
    (('abbreviated', True), ('named', False))
    """
    core = list(read_table(table).core if isinstance(table, str) else table)
    for i in range(len(core)):
        words = core[i:]
        glued = "".join(words[:-1])
        if any(stem == glued + form for form in _inflections(words[-1])):
            return "named", i == 0
    for i in range(len(core)):
        if _abbreviates(stem, core[i:]):
            return "abbreviated", i == 0
    return None


def _abbreviates(stem: str, words: list[str]) -> bool:
    """`cust` of customers, `w` of warehouse, `wz` of warehouse_zone — not `w` of warehouse_zone;
    a stem that is no English word also by its consonants (`cst` of customers, `prd` of products)."""
    initials = "".join(w[0] for w in words)
    if len(words) > 1 and stem == initials:
        return True
    glued = "".join(words)
    if glued.startswith(stem) and (len(words) == 1 or len(stem) > len(words[0])):
        return True
    return (
        len(words) == 1
        and len(stem) >= MIN_ABBREVIATION
        and not is_english_word(stem)
        and abbreviates(stem, words)
    )


def spelled_key(words: Sequence[str], target: ColumnNaming, dst: Sequence[str]) -> bool:
    """Whether a key's name and the referenced key's name are both "<the table> <suffix>", each
    naming or abbreviating the table in its own way (`deptId`, `dptId` of department)."""
    if len(words) < 2 or words[-1] not in KEY_SUFFIXES:
        return False
    for reading in target.readings:
        stem = key_stem(reading)
        if len(reading) >= 2 and reading[-1] == words[-1] and stem and name_match(stem, dst):
            return True
    return False


def key_stem(words: Sequence[str]) -> str | None:
    """The part of a key's name (its segments) before its suffix: `depotId` → "depot",
    `bid` → "b"."""
    if len(words) >= 2 and words[-1] in KEY_SUFFIXES:
        return "".join(words[:-1])
    if len(words) == 1 and words[0].endswith("id") and len(words[0]) > 2:
        return words[0][:-2]  # `depotid`: only `id` is safe to unglue
    return None


def glued_stem(words: Sequence[str], table: Sequence[str]) -> str | None:
    """A one-word name glued to a longer key suffix (`custkey`, `deptcode`), ungued only when
    the rest names or abbreviates the `table` it is matched with (`monkey` is no key)."""
    if len(words) != 1:
        return None
    for suffix in KEY_SUFFIXES:
        rest = words[0][: -len(suffix)]
        if len(suffix) >= _GLUED_SUFFIX and words[0].endswith(suffix) and len(rest) >= 2:
            if name_match(rest, table) is not None:
                return rest
    return None


def split_words(name: str) -> list[str]:
    """Lower-case words of an identifier (`naming.segments`): snake_case, camelCase, kebab and
    spaces.

    >>> split_words("tblCustomers_custID")
    ['tbl', 'customers', 'cust', 'id']
    """
    return segments(name)


@lru_cache(maxsize=4096)
def _inflections(word: str) -> frozenset[str]:
    singular = inflect_engine().singular_noun(word) or word  # False when the word is not a plural
    return frozenset({word, singular, inflect_engine().plural_noun(singular)})
