"""Words: tokenization, a light stemmer, identifier splitting and number words.

Everything here is a pure function of its input. Question words and schema identifiers go through
the same `stem` and `canon`, so matching only needs the two sides to be normalized alike — the
stemmer is consistent rather than linguistically exact ("placed" and "place" both read "plac").
lemminflect (and its dictionaries) load on first use, not at import; synonyms come from WordNet
(`wordnet.py`), read where a word names nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from nl2sql.inflection import inflect_engine
from nl2sql.schema.naming import segments, unglued

_TOKEN = re.compile(
    r"(?P<quoted>(?:(?<=^)|(?<=[\s(,:=]))(?:'(?P<q1>[^']+)'|\"(?P<q2>[^\"]+)\"|“(?P<q3>[^”]+)”)"
    r"(?=[\s).,?!;:]|$))"
    r"|(?P<date>\d{4}-\d{2}-\d{2})"
    r"|(?P<number>\d+(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"|(?P<op>>=|<=|!=|<>|[<>=])"
    r"|(?P<word>[^\W\d_][^\W_]*(?:['’][^\W\d_]+)?)"
    r"|(?P<punct>[,;])"
)

# Function words: they carry the shape of a question, never its subject.
STOP = frozenset(
    """a an the of in on at to for from by with and or is are was were be been being do does did
    have has had it its this that these those there their they them we our us you your i me my he
    she his her as if than then so such into onto which what who whom whose when where why how
    please can could would should will shall may might must also only just all any some each every
    per about s also there's what's whats one ones anything something everything nothing across
    among amongst either but""".split()
)

# Words of the question's frame (verbs of asking, shape cues): never a schema subject on their own.
FRAME = frozenset(
    """many much number count counts total sum average avg mean maximum max minimum min top bottom
    highest lowest largest smallest biggest greatest most least fewest best worst list show give tell
    find get display return name names compare compared versus vs along well both either respectively
    different distinct unique ordered sorted ranked descending ascending desc asc order sort
    alphabetical alphabetically
    greater less more fewer over above under below exceeding exceeds between equal equals exactly
    least most than first last group grouped broken down separately overall altogether
    placed made exist exists existing recorded registered listed stored available currently
    not no never none nor neither except excluding without non year years month months quarter quarters day days week weeks
    yearly monthly quarterly daily common frequent popular expensive cheap cheapest priciest recent
    oldest youngest newest latest earliest heaviest lightest tallest longest shortest""".split()
)


@lru_cache(maxsize=65536)
def _lemmas(word: str) -> Mapping[str, tuple[str, ...]]:
    """lemminflect's lemmas of `word` by part of speech (its dictionary loads on the first call),
    read-only: one look-up per word and process (lemminflect deep-copies its entry each time)."""
    from lemminflect import getAllLemmas  # type: ignore[import-untyped]

    return MappingProxyType(getAllLemmas(word))


def parts_of_speech(word: str) -> frozenset[str]:
    """The parts of speech lemminflect knows `word` as ("NOUN", "VERB", "ADJ"); empty when it
    knows no such English word."""
    return frozenset(_lemmas(word))


def noun_lemmas(word: str) -> tuple[str, ...]:
    """lemminflect's noun lemmas of `word` ("miles" -> ("mile",)); () when it is no noun."""
    return _lemmas(word).get("NOUN", ())


@lru_cache(maxsize=65536)
def is_superlative(word: str) -> bool:
    """A superlative to lemminflect's dictionary ("highest", "best", "worst" of an adjective or
    adverb), or "most" / "least"."""
    w = word.lower()
    if w in ("most", "least"):
        return True
    found = _lemmas(w)
    return any(w in inflections(lemma, tag)
               for part, tag in (("ADJ", "JJS"), ("ADV", "RBS"))
               for lemma in found.get(part, ()) if lemma != w)


def inflections(lemma: str, tag: str) -> tuple[str, ...]:
    """lemminflect's forms of `lemma` for a Penn tag ("JJS", "VBN"); () when it knows none."""
    from lemminflect import getInflection

    forms: Any = getInflection(lemma, tag)
    return tuple(forms or ())


def _suffix_stem(w: str) -> str:
    """The suffix rules of `stem` alone (no dictionary)."""
    if len(w) <= 3:
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith(("sses", "shes", "ches", "xes", "zes", "uses")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if w.endswith("ing") and len(w) >= 6:
        w = w[:-3]
    elif w.endswith("ied") and len(w) >= 5:
        w = w[:-3] + "y"
    elif w.endswith("ed") and len(w) >= 5:
        w = w[:-2]
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    # "cancelled"/"cancel", "fill"/"filled": merge a final double consonant on both sides.
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeious":
        w = w[:-1]
    return w


def noun_forms(word: str) -> frozenset[str]:
    """The word, its noun lemmas and its irregular singular ("people": people, person)."""
    w = word.lower()
    single = _irregular_noun(w)
    return frozenset({w, *noun_lemmas(w), *([single] if single else [])})


@lru_cache(maxsize=65536)
def _irregular_noun(w: str) -> str | None:
    """The singular of an irregular plural ("children", "people", "criteria"), from lemminflect's
    dictionary, else inflect's rules when lemminflect knows the result as a noun; None when the
    suffix rules already reach it."""
    lemmas = noun_lemmas(w)
    if w in lemmas and len(lemmas) > 1:
        return None  # a noun in its own right too ("data", "media"): kept as written
    known = [x for x in lemmas if x != w]
    if not known and lemmas:  # a noun that is its own lemma ("people"): inflect's irregulars
        single = inflect_engine().singular_noun(w)
        known = [single] if single and noun_lemmas(single) else []
    if known and _suffix_stem(known[0]) != _suffix_stem(w):
        return str(known[0])
    return None


@lru_cache(maxsize=65536)
def verb_lemma(word: str) -> str | None:
    """The base of `word` read as a verb ("presented" -> "present", "offer" -> "offer"), from
    lemminflect's dictionary; None when the word is no verb form."""
    lemmas = _lemmas(word.lower()).get("VERB", ())
    return str(lemmas[0]) if lemmas else None


def is_noun(word: str) -> bool:
    """lemminflect's dictionary knows `word` as a noun ("offer", "part", "stop")."""
    return bool(_lemmas(word.lower()).get("NOUN"))


@lru_cache(maxsize=65536)
def irregular_verb(w: str) -> str | None:
    """The base of an irregular verb form ("sold" -> "sell", "born" -> "bear"), from lemminflect's
    dictionary; None for a base form, a regular form or a word that is no verb."""
    lemmas = _lemmas(w).get("VERB", ())
    if not lemmas or w in lemmas or w.endswith("ed"):
        return None
    return str(lemmas[0]) if _suffix_stem(lemmas[0]) != _suffix_stem(w) else None


# Abbreviations common in column names, expanded before stemming.
ABBREVIATIONS = {
    "qty": "quantity",
    "amt": "amount",
    "num": "number",
    "nbr": "number",
    "no": "number",
    "dt": "date",
    "desc": "description",
    "cust": "customer",
    "prod": "product",
    "addr": "address",
    "dept": "department",
    "emp": "employee",
    "mgr": "manager",
    "acct": "account",
    "cnt": "count",
    "yr": "year",
    "pct": "percent",
    "tel": "phone",
    "dob": "birthday",
    "cat": "category",
    "avg": "average",
    "qtr": "quarter",
    "mo": "month",
    "loc": "location",
    "org": "organization",
}
# Single letters that abbreviate a word only before "name" ("f_name", "l_name", "m_name").
_GLUED_INITIAL = re.compile(r"^[flm]name$")
_NAME_INITIALS = {"f": "first", "l": "last", "m": "middle"}

_NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "hundred": 100,
    "dozen": 12,
    "once": 1,
    "twice": 2,
    "thrice": 3,
}


def stem(word: str) -> str:
    """A consistent light stem: plural, -ed, -ing and final -e removed, final double letter merged;
    irregular plurals and verb forms read as their base first ("children", "sold")."""
    w = word.lower().replace("’", "'").split("'")[0]
    base = _irregular_noun(w) or irregular_verb(w)
    return _suffix_stem(base if base else w)


def without_possessive(text: str) -> str:
    """`rabbit's` -> `rabbit`, `owners'` -> `owners`; other text as it is."""
    return _POSSESSIVE.sub("", text)


_POSSESSIVE = re.compile(r"['’]s?$")


def canon(word: str) -> str:
    """The form a question word and an identifier's word are matched in: its stem (synonyms
    are read from WordNet where a word names nothing: `linking/synonyms.py`)."""
    return stem(word)


def split_identifier(name: str) -> list[str]:
    """Split `list_price`, `ListPrice`, `loan-items 2`, `сумма_итого` into lower-case words,
    abbreviations expanded: the segments of `nl2sql.schema.naming` (letters of any script; a name
    with no letter or digit at all, an emoji, is one word as written), read as words."""
    words = [w for seg in segments(name) for w in unglued(seg)]
    if not words:
        return []
    # an initial glued to "name" ("xname" for x in f, l, m): first / last / middle name
    words = [x for w in words for x in ([w[0], "name"] if _GLUED_INITIAL.match(w) else [w])]
    words = [
        _NAME_INITIALS.get(w, w) if nxt == "name" else w
        for w, nxt in zip(words, words[1:] + [""], strict=True)
    ]
    return " ".join(ABBREVIATIONS.get(w, w) for w in words).split()


def number_word(word: str) -> int | None:
    """`five` -> 5; None for anything else."""
    return _NUMBER_WORDS.get(word.lower())


@dataclass(frozen=True)
class Token:
    """One question token; `kind` is word, number, date, quoted, op or punct (a comma)."""

    index: int
    text: str  # as written (without quotes for a quoted literal)
    kind: str
    start: int
    end: int
    joined: bool = False  # a hyphen glues it to the next token, no space: "check-in", "SUP-004"

    @property
    def low(self) -> str:
        return self.text.lower()

    @property
    def stem(self) -> str:
        return stem(self.text) if self.kind == "word" else self.low

    @property
    def canon(self) -> str:
        return canon(self.text) if self.kind == "word" else self.low

    @property
    def number(self) -> float | int | None:
        """The numeric value of a number token or a number word."""
        if self.kind == "number":
            raw = self.text.replace(",", "")
            return float(raw) if "." in raw else int(raw)
        if self.kind == "word":
            return number_word(self.text)
        return None


def tokenize(text: str) -> list[Token]:
    """Split a question into tokens; quoted literals keep their inner text and case."""
    tokens: list[Token] = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup or "word"
        if m.group("quoted") is not None:
            kind, value = "quoted", m.group("q1") or m.group("q2") or m.group("q3") or ""
        else:
            kind = next(
                k for k in ("date", "number", "op", "word", "punct") if m.group(k) is not None
            )
            value = m.group(kind)
            if kind == "word" and _acronym(value, text):
                kind = "quoted"
        joined = text[m.end() : m.end() + 1] == "-" and text[m.end() + 1 : m.end() + 2].isalnum()
        if kind == "word" and (split := _negation(value)):
            verb, cut = split  # "don't" is "do not", as the Penn Treebank splits it
            tokens.append(Token(len(tokens), verb, kind, m.start(), m.start() + cut))
            tokens.append(Token(len(tokens), "not", kind, m.start() + cut, m.end(), joined))
            continue
        if (kind == "word" and value.lower() == "longer" and tokens and tokens[-1].low == "no"
                and not text[m.end():].lstrip().lower().startswith("than")):
            # "no longer active" is "not active" (not "no longer than 5 minutes")
            first = tokens.pop()
            tokens.append(Token(len(tokens), "not", kind, first.start, m.end(), joined))
            continue
        tokens.append(Token(len(tokens), value, kind, m.start(), m.end(), joined))
    return tokens


#: the stems of n't that are not the verb as written ("won't" is "will not")
_NEGATED_STEMS = {"wo": "will", "ca": "can", "sha": "shall"}


def _negation(word: str) -> tuple[str, int] | None:
    """A verb contracted with "not" ("don't", "haven’t", "can't", "cannot"): the verb and where
    "not" starts in the word; None for any other word."""
    low = word.lower().replace("’", "'")
    if low == "cannot":
        return word[:3], 3
    if len(low) > 3 and low.endswith("n't"):
        stem = word[:-3]
        return _NEGATED_STEMS.get(stem.lower(), stem), len(stem)
    return None


def _acronym(word: str, text: str) -> bool:
    """A function word written in capitals inside a mixed-case question is a name, not the
    function word: "the IT department", "customers in the US". Only when WordNet knows the word
    as a noun (IT, US, OR), so that capitals for emphasis ("ALL", "ONLY", "NOT") stay words."""
    if len(word) < 2 or not word.isupper() or word.lower() not in STOP:
        return False
    if not any(c.islower() for c in text):
        return False
    from nl2sql.reasoning.offline.words import wordnet

    return bool(wordnet.senses(word.lower(), "n", 1))


def is_content(token: Token) -> bool:
    """A word that may name a table, a column or a value (not a function or frame word)."""
    return token.kind == "word" and token.low not in STOP and token.low not in FRAME


@lru_cache(maxsize=65536)
def is_past_participle(word: str) -> bool:
    """A past participle distinct from its verb's base ("sold", "placed", not "cost"), by
    lemminflect's dictionary of verb forms."""
    w = word.lower()
    verbs = _lemmas(w).get("VERB", ())
    return w not in verbs and any(w in inflections(v, "VBN") for v in verbs)
