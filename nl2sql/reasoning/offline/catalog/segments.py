"""More ways a question may name an identifier than its words as split: glued, without its
unit, or by the noun its words modify.

- glued: `user_name` is "username", `zip_code` "zipcode", `first_name` "firstname" — the
  identifier's words written as one. The reverse, question words glued to name a one-word
  identifier ("sign-ups" for `signup`), was measured and left out: on the classical set it made
  five questions answerable, four of them wrongly (a count of rows where a count column's sum
  was asked, a label where an id was asked: readings the link itself cannot fix);
- without a unit: `distance_km` is the distance, `weight_kg` the weight, `priceUsd` the price
  (`words/units.py` says what a unit is);
- a table named by a verb (`deploy`) by the nouns of its events ("deployments");
- a table by its modifier: `maintenance_logs` are the maintenance jobs, `T_FIRE_INCDT` the fires,
  `dive_logs` the dives — where nothing else is called so, weakly;
- by its modifier: `genre_description` and `genre_code` describe a genre, so "which genres"
  names the genre's label column (name, title, label, description, then type, code, number, id) —
  only where no table or column is called so, and as a weak reading: when several tables carry
  such a column the words stay ambiguous between them.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.words.text import STOP, canon, split_identifier
from nl2sql.reasoning.offline.words.units import without_unit

#: the words that make a column describe the noun before them, most label-like first
_DESCRIPTORS = tuple(
    canon(w) for w in ("name", "title", "label", "description", "type", "code", "number", "id")
)
_LABEL_LIKE = _DESCRIPTORS.index(canon("type"))  # the descriptors up to here label the noun
#: the shortest abbreviation read as any prefix or consonant subsequence (two letters read as
#: a word's first and last consonants only)
SHORTEST = 3
_VOWELS = frozenset("aeiou")
_LONG_CODE = 5


def is_descriptor(text: str) -> bool:
    """Whether a phrase is one generic word that describes whatever noun it follows ("names",
    "code", "ids"): it says what is shown, not whose."""
    words = text.split()
    return len(words) == 1 and canon(words[0]) in _DESCRIPTORS


def glued_form(name: str) -> tuple[str, ...] | None:
    """The identifier's words written as one word (`user_name` -> ("usernam",)), canonical; None
    for a one-word identifier."""
    words = split_identifier(name)
    return (canon("".join(words)),) if len(words) >= 2 else None


def unit_free_words(name: str) -> tuple[str, ...] | None:
    """The canonical words of an identifier without the unit at its end (`distance_km` ->
    ("distanc",)); None when it ends in no unit."""
    rest = without_unit(split_identifier(name))
    return tuple(canon(w) for w in rest if w not in STOP) if rest else None


def modifier_columns(
    col_words: dict[tuple[str, str], tuple[str, ...]],
) -> dict[tuple[str, ...], list[tuple[str, str]]]:
    """Noun phrase -> the (table, column) of each table that describes it, that table's most
    label-like such column (`genre_description` over `genre_code`); a table that has only a
    code, number or id for the noun is left out when another table labels it."""
    best: dict[tuple[str, ...], dict[str, tuple[int, str]]] = {}
    for (table, column), words in col_words.items():
        if len(words) < 2 or words[-1] not in _DESCRIPTORS:
            continue
        rank = _DESCRIPTORS.index(words[-1])
        per_table = best.setdefault(words[:-1], {})
        if table not in per_table or rank < per_table[table][0]:
            per_table[table] = (rank, column)
    out = {}
    for phrase, per_table in best.items():
        # a table with a label for the noun describes it; one with only its code refers to it
        labelled = [t for t, (rank, _) in per_table.items() if rank <= _LABEL_LIKE]
        tables = labelled or list(per_table)
        out[phrase] = [(table, per_table[table][1]) for table in tables]
    return out


def modifier_tables(
    table_words: dict[str, tuple[str, ...]], col_words: dict[tuple[str, str], tuple[str, ...]]
) -> dict[tuple[str, ...], str]:
    """The first word of a two-word table name -> that table, where no other table's name begins
    with it and no column keys it as an entity of its own: "the dives" of `dive_logs`, "fires" of
    `fire_incidents` (not "products" of `product_categories` beside a `product_id`)."""
    keyed = {words[:-1] for words in col_words.values() if len(words) == 2 and words[-1] == "id"}
    found: dict[tuple[str, ...], list[str]] = {}
    for table, words in table_words.items():
        if len(words) == 2 and words[0] not in STOP and words[0] != words[1]:
            found.setdefault(words[:1], []).append(table)
    return {phrase: tables[0] for phrase, tables in found.items()
            if len(tables) == 1 and phrase not in keyed}


def own_keyed_word(name: str, columns: list[str]) -> str | None:
    """The one word a table is named by, when one of its columns is that word's id (`T_DEPLOY`
    with `DEPLOY_ID`, `bookings` with `bookingId`): a table of things of its own, not one
    relating two others (`writes`); None otherwise."""
    words = split_identifier(name)
    if len(words) != 1:
        return None
    key = (canon(words[0]), "id")
    return words[0] if any(tuple(map(canon, split_identifier(c))) == key for c in columns) \
        else None


def event_nouns(name: str, columns: list[str]) -> list[str]:
    """The nouns WordNet derives from a table named by a verb alone and keyed by its own id
    (`T_DEPLOY` with `DEPLOY_ID`: "deployment"; `enroll`: "enrollment"), not those of its
    doers ("enrollee" is a kind of person): its rows are those events."""
    from nl2sql.reasoning.offline.words import wordnet
    from nl2sql.reasoning.offline.words.text import parts_of_speech

    word = own_keyed_word(name, columns)
    if word is None or parts_of_speech(word) != {"VERB"}:
        return []
    nouns = [n[0] for n in wordnet.derived(word, "v", "n") if len(n) == 1]
    return [n for n in nouns
            if not any(kind == ("person",) for kind, *_ in wordnet.broader(n, 2, 6))]


def consonants_kept(code: str, word: str) -> int:
    """How many of the word's consonants the code writes, in order (`dnr` of "donor": 3,
    `don`: 2): the longest common subsequence of the two."""
    consonants = [ch for ch in word if ch not in _VOWELS]
    row = [0] * (len(consonants) + 1)
    for ch in code:
        prev = row[:]
        for j, c in enumerate(consonants, 1):
            row[j] = prev[j - 1] + 1 if ch == c else max(prev[j], row[j - 1])
    return row[-1]


def abbreviates(code: str, word: str) -> bool:
    """Whether `code` abbreviates `word`: its prefix, or a subsequence of its consonants, with
    the word's first letter (`inst` of "install", `mtr` of "meter", `stdg` of "standing"), or
    from five letters on any subsequence ending on its last consonant (`withdrn`); two letters
    only as the word's first and last consonants (`wt` of "weight", `nm` of "name")."""
    if len(code) < 2 or len(word) <= len(code) or code[0] != word[0]:
        return False
    if len(code) < SHORTEST:
        last = next((ch for ch in reversed(word) if ch not in _VOWELS), "")
        return len(word) > 3 and code[1] == last
    if word.startswith(code):
        return True
    consonants = iter(ch for i, ch in enumerate(word) if i == 0 or ch not in _VOWELS)
    if all(ch in consonants for ch in code):
        return True
    # a longer code keeping a vowel (`withdrn` of "withdrawn"): the word's letters in order,
    # ending on its last consonant
    letters = iter(word)
    last = next((ch for ch in reversed(word) if ch not in _VOWELS), "")
    return len(code) >= _LONG_CODE and code[-1] == last and all(ch in letters for ch in code)
