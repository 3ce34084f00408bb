"""A question word the schema writes abbreviated: "meters" of `MTR`, "readings" of `rdg_kwh`,
"tariff" of `trf_cd`, "installed" of `inst_dt`.

Coded schemas cut words short or drop their vowels. When a content word of the question matched
nothing, each word of the schema's identifiers that is no English word (lemminflect's dictionary
knows no part of speech of it) is tried as its abbreviation: it starts with the word's letter and
is a prefix of the word (`inst`) or a subsequence of its consonants (`mtr` of "meter"), or,
in two letters, its first and last consonants (`wt` of "weight"). A word links to what the
longest identifier word abbreviating it names, when only one is that long (`ptnt` rather than
`pt` for "patient") — with the question word before or after it where the two are one phrase
(`mtr_id` for "meter id") — more weakly than a name (form "abbreviation": a weak link in the
planner's evidence).
"""

from __future__ import annotations

import re
from functools import lru_cache

from nl2sql.reasoning.offline.catalog.index import Element, SchemaIndex
from nl2sql.reasoning.offline.catalog.naming import column_name
from nl2sql.reasoning.offline.catalog.segments import abbreviates, consonants_kept
from nl2sql.reasoning.offline.linking.mentions import Linking, Mention
from nl2sql.reasoning.offline.words.text import (
    FRAME,
    STOP,
    Token,
    canon,
    is_noun,
    noun_lemmas,
    parts_of_speech,
    split_identifier,
    verb_lemma,
)

#: how much of the abbreviated element's link strength the question word borrows
SCORE = 0.8
#: the forms an abbreviation may stand in (never a value, a unit or a modifier)
_FORMS = frozenset({"name", "original", "qualified", "short", "head", "part"})


def coded_mentions(
    tokens: list[Token], idx: SchemaIndex, rest: list[Token], used: set[int], out: Linking
) -> None:
    """Link each unused word of `rest` that one coded identifier word abbreviates."""
    codes = coded_words(idx)
    if not codes:
        return
    coded: dict[int, str] = {}
    starts = {m.start for m in out.mentions}
    for tok in rest:
        if tok.index in used or tok.kind != "word" or not tok.low.isalpha() or (
            tok.low in FRAME and not _coordinated(tokens, tok, starts)
        ):
            continue
        short_ok = is_noun(tok.low) and verb_lemma(tok.low) in (None, tok.low)
        found = {c for c in codes if (len(c) > 2 or short_ok)  # "spent" is no `ST`
                 and any(abbreviates(c, w) for w in _forms(tok.low))}
        longest = [c for c in found if len(c) == max(map(len, found))]
        if len(longest) > 1:  # `dnr` rather than `don` for "donors": more of its consonants
            most = max(consonants_kept(c, tok.low) for c in longest)
            longest = [c for c in longest if consonants_kept(c, tok.low) == most]
        if len(longest) == 1:  # `ptnt` rather than `pt` for "patients": more of the word
            coded[tok.index] = longest[0]
    for i in sorted(coded):
        if i in used:
            continue
        span, elements = _phrase(tokens, idx, tokens[i], coded, used)
        if elements:
            out.mentions.append(Mention(span[0].index, span[-1].index + 1,
                                        " ".join(t.text for t in span), elements))
            used.update(t.index for t in span)


def _coordinated(tokens: list[Token], tok: Token, starts: set[int]) -> bool:
    """ "first and last names": a frame word ("first") coordinated before a mention is its
    fellow modifier, a word of the schema like it."""
    i = tok.index
    return i + 2 < len(tokens) and tokens[i + 1].low in ("and", "or", ",") and i + 2 in starts


def coded_words(idx: SchemaIndex) -> frozenset[str]:
    """The words of the schema's names that are no English word (`mtr`, `rdg`, `stdg`)."""
    if idx.coded is None:
        names = [idx.naming.table(key).core_name for key in idx.tables] + [
            column_name(idx.naming, key, col.name)
            for key, table in idx.tables.items() for col in table.columns
        ]
        idx.coded = frozenset(
            canon(w) for name in names for w in split_identifier(name)
            if len(w) >= 2 and w.isalpha() and (not parts_of_speech(w) or _short_code(name, w))
        )
    return idx.coded


def _short_code(name: str, word: str) -> bool:
    """A short word that is English but written as a code among codes (`PAT_NM`, `T_PAT`:
    "pat" of patient): three or four capitals in an upper-case name another of whose words is no
    English word (`NM`, the prefix `T`)."""
    written = [w.lower() for w in re.split(r"[^A-Za-z]+", name) if w]  # `DT`, before read
    return (3 <= len(word) <= 4 and name.isupper()
            and any(w != word and not parts_of_speech(w) for w in written))


@lru_cache(maxsize=65536)
def _forms(word: str) -> set[str]:
    """The word and its base forms ("readings": reading; "installed": install)."""
    return {word, *noun_lemmas(word), verb_lemma(word) or word}


def _phrase(
    tokens: list[Token], idx: SchemaIndex, tok: Token, coded: dict[int, str], used: set[int]
) -> tuple[list[Token], list[Element]]:
    """The longest phrase of the index that the code read for `tok` makes with the word after
    or before it, itself coded or not ("meter id": `mtr_id`, "standing charge": `stdg_chg`),
    else the code alone; its elements, weaker."""
    def free(i: int) -> Token | None:
        t = tokens[i] if 0 <= i < len(tokens) else None
        return t if t is not None and t.kind == "word" and t.index not in used and (
            t.low not in STOP) else None

    def word(t: Token) -> str:
        return coded.get(t.index, t.canon)

    nxt, prev = free(tok.index + 1), free(tok.index - 1)
    options = [
        ([tok, nxt], (word(tok), word(nxt))) if nxt else None,
        ([prev, tok], (word(prev), word(tok))) if prev else None,
        ([tok], (word(tok),)),
    ]
    for option in options:
        if option is None:
            continue
        span, key = option
        elements = [e for e in idx.phrases.get(key, []) if e.form in _FORMS]
        tables = {e.table for e in elements if e.column is None}
        if len(tables) > 1:
            return [tok], []  # `PLT` and `PLTS` for "plates": which one is a guess
        if tables:  # "tariff" names `TRF`, not the key `MTR.trf_cd` that refers to it
            refs = {(f.src, c) for f in idx.edges + idx.inferred if f.dst in tables
                    for c in f.src_cols}
            elements = [e for e in elements if (e.table, e.column) not in refs]
        if elements:
            return span, [Element(e.table, e.column, round(e.score * SCORE, 3), "abbreviation",
                                  e.metric) for e in elements]
    return [tok], []
