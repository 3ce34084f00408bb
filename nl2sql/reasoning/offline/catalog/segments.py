"""More ways a question may name an identifier than its words as split: glued, without its
unit, or by the noun its words modify.

- glued: `user_name` is "username", `zip_code` "zipcode", `first_name` "firstname" — the
  identifier's words written as one (the linker glues question words the same way, so
  "sign-ups" names `signup` and "order ID" names `orderid`);
- without a unit: `distance_km` is the distance, `weight_kg` the weight, `priceUsd` the price
  (`words/units.py` says what a unit is);
- by its modifier: `genre_description` and `genre_code` describe a genre, so "which genres"
  names the genre's label column (name, title, label, description, then type, code, number, id) —
  only where no table or column is called so, and as a weak reading: when several tables carry
  such a column the words stay ambiguous between them.
"""

from __future__ import annotations

from collections.abc import Iterable

from nl2sql.reasoning.offline.words.text import STOP, canon, split_identifier
from nl2sql.reasoning.offline.words.units import without_unit

#: the words that make a column describe the noun before them, most label-like first
_DESCRIPTORS = tuple(
    canon(w) for w in ("name", "title", "label", "description", "type", "code", "number", "id")
)


def glued_form(name: str) -> tuple[str, ...] | None:
    """The identifier's words written as one word (`user_name` -> ("usernam",)), canonical; None
    for a one-word identifier."""
    words = split_identifier(name)
    return (canon("".join(words)),) if len(words) >= 2 else None


def glued_words(words: Iterable[str]) -> tuple[str, ...]:
    """Question words written as one ("sign", "ups" -> ("signup",)), canonical."""
    return (canon("".join(w.lower() for w in words)),)


def unit_free_words(name: str) -> tuple[str, ...] | None:
    """The canonical words of an identifier without the unit at its end (`distance_km` ->
    ("distanc",)); None when it ends in no unit."""
    rest = without_unit(split_identifier(name))
    return tuple(canon(w) for w in rest if w not in STOP) if rest else None


def modifier_columns(
    col_words: dict[tuple[str, str], tuple[str, ...]],
) -> dict[tuple[str, ...], list[tuple[str, str]]]:
    """Noun phrase -> the (table, column) of each table that describes it, that table's most
    label-like such column (`genre_description` over `genre_code`)."""
    best: dict[tuple[str, ...], dict[str, tuple[int, str]]] = {}
    for (table, column), words in col_words.items():
        if len(words) < 2 or words[-1] not in _DESCRIPTORS:
            continue
        rank = _DESCRIPTORS.index(words[-1])
        per_table = best.setdefault(words[:-1], {})
        if table not in per_table or rank < per_table[table][0]:
            per_table[table] = (rank, column)
    return {
        phrase: [(table, column) for table, (_, column) in per_table.items()]
        for phrase, per_table in best.items()
    }
