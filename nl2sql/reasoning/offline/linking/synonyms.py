"""A noun the schema does not use, read as the table or column a WordNet synonym names.

"How many clients …" over a `customer` table, "automobiles" over `car`, "wages" over `pay`:
when a content word matched no table, column or value, its most frequent WordNet senses
(`words/wordnet.py`) are looked up, and a synonym that is itself the name (or the head, short
or qualified form) of a table or column links the word to it. Both words must hold the shared
sense among their most frequent ones, so a rare sense ("figure" for a name) never links; the
link is weaker than a name (`SCORE`), recorded as the "synonym" form (a weak link in the
planner's evidence) and named in the reasoning like any other link.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.catalog.index import Element, SchemaIndex
from nl2sql.reasoning.offline.linking.mentions import Linking, Mention
from nl2sql.reasoning.offline.linking.phrases import another_word
from nl2sql.reasoning.offline.words import wordnet
from nl2sql.reasoning.offline.words.text import (
    FRAME,
    Token,
    canon,
    noun_forms,
    noun_lemmas,
    parts_of_speech,
    split_identifier,
)

#: how much of the synonym's own link strength a word borrows
SCORE = 0.8
#: the senses of each word considered: WordNet orders them by frequency in its corpus
SENSES = 2
#: how much of a synonym's strength a broader or narrower word keeps, and how many steps up
#: WordNet's hierarchy it may be ("plane": heavier-than-air craft, then aircraft)
BROADER = 0.85
BROADER_STEPS = 2
#: how far below the top of WordNet's hierarchy a broader word must be to stand for a narrower
#: one: "animal" (6 steps) and "aircraft" (9) do, "status" (4) and "person" (3) are too general
SPECIFIC = 5
#: the forms of an element a synonym may stand for (never a value, a unit or a modifier)
_FORMS = frozenset({"name", "original", "qualified", "short", "head", "glued", "term"})


def synonym_mentions(
    tokens: list[Token], idx: SchemaIndex, rest: list[Token], used: set[int], out: Linking
) -> None:
    """Link each unused word of `rest` that a synonym of it names (see the module's text); a
    synonym before a mention that it qualifies ("auto dealers": `car.dealer`) makes the
    two one mention of the qualified element."""
    for tok in rest:
        if tok.index in used or tok.kind != "word" or tok.low in FRAME or not tok.low.isalpha():
            continue
        merged = _qualified(tokens, idx, tok, out)
        elements = [] if merged else synonym_elements(idx, tok.low) or (
            [] if _verb_here(tokens, tok, out) else broader_elements(idx, tok.low))
        if elements:
            out.mentions.append(Mention(tok.index, tok.index + 1, tok.text, elements))
        if merged or elements:
            used.add(tok.index)


def _qualified(tokens: list[Token], idx: SchemaIndex, tok: Token, out: Linking) -> bool:
    """Replace the mention right after `tok` by one mention of both when a synonym of `tok`
    followed by the mention's words is a phrase of the index; whether it did."""
    after = next((m for m in out.mentions if m.start == tok.index + 1), None)
    if after is None:
        return False
    tail = tuple(t.canon for t in tokens[after.start : after.end] if t.kind == "word")
    found: dict[str, Element] = {}
    for words in _synonyms(tok.low):
        for e in idx.phrases.get(tuple(canon(w) for w in words) + tail, []):
            if e.form in _FORMS and e.ref not in found:
                found[e.ref] = _weaker(e)
    if not found:
        return False
    out.mentions[out.mentions.index(after)] = Mention(
        tok.index, after.end, " ".join(t.text for t in tokens[tok.index : after.end]),
        _ordered(idx, found))
    return True


def synonym_elements(idx: SchemaIndex, word: str) -> list[Element]:
    """The tables and columns a WordNet synonym of the noun `word` names, weaker than a name.

    None when a word of the same sense that is no frequent synonym of `word` names another
    element: "bill" shares its sense {bill, invoice, account} with "invoice" often and with
    "account" rarely, so over an `invoice` and an `account` table it could mean either."""
    found: dict[str, Element] = {}
    rivals: set[str] = set()
    for lemma in noun_lemmas(word) or ():
        for synset in wordnet.senses(lemma, "n", SENSES):
            for words in synset:
                other = " ".join(words)
                if other == lemma:
                    continue
                named = [e for e in idx.phrases.get(tuple(canon(w) for w in words), [])
                         if e.form in _FORMS and not another_word(idx, e, words[-1])]
                if not named:
                    continue
                if wordnet.share_sense(lemma, other, "n", SENSES):
                    for e in named:
                        found.setdefault(e.ref, _weaker(e))
                else:
                    rivals.update(e.ref for e in named)
    if rivals - found.keys():
        return []
    return _ordered(idx, found)


def _verb_here(tokens: list[Token], tok: Token, out: Linking) -> bool:
    """ "Which supplier makes …": a word that can be a verb, right after its subject (a
    mention or a relative pronoun), is one; no broader noun of "make" is meant."""
    if "VERB" not in parts_of_speech(tok.low) or tok.index == 0:
        return False
    prev = tokens[tok.index - 1]
    return prev.low in ("who", "that", "which") or any(m.end == tok.index for m in out.mentions)


def broader_elements(idx: SchemaIndex, word: str) -> list[Element]:
    """The one table or column a noun without synonym in the schema is a kind of, or the one
    table whose head noun is a kind of it, by WordNet's hypernyms ("planes" over `aircraft`,
    "donations" over `gift`, "visitors" over `guests`); weaker than a synonym and recorded as
    the "broader" form, which the planner reads as a guess (under `min_confidence`: the reading
    is offered, not answered). None when the nearest such words name more than one element (an
    `animal` and a `creature` table, one WordNet kind)."""
    lemmas = noun_lemmas(word) or ()
    if _schema_word(idx, canon(word)):
        return []  # the schema's own word in another role ("scrap" of `scrap_qty`)
    found: dict[str, Element] = {}
    for step in range(1, BROADER_STEPS + 1):
        for lemma in lemmas:
            for words, at, height in wordnet.broader(lemma, 1, BROADER_STEPS):
                if at != step or height < SPECIFIC:
                    continue  # "priority" is a kind of status: too general a word to mean it
                for e in idx.phrases.get(tuple(canon(w) for w in words), []):
                    if e.form in _FORMS and not another_word(idx, e, words[-1]):
                        found.setdefault(e.ref, _weaker(e, BROADER, "broader"))
        if found:
            break
    if not found:
        found = {e.ref: e for e in _narrower_tables(idx, set(lemmas))}
    refs = {e.table if e.column is None else e.ref for e in found.values()}
    return _ordered(idx, found) if len(refs) == 1 else []


def _schema_word(idx: SchemaIndex, word: str) -> bool:
    return any(word in phrase for phrase in idx.phrases)


def _narrower_tables(idx: SchemaIndex, lemmas: set[str]) -> list[Element]:
    """The tables whose head noun is, in its most frequent sense, a kind of one of `lemmas`."""
    out = []
    for table in idx.tables:
        head = split_identifier(idx.naming.table(table).core_name)[-1:]  # the word, no stem
        for noun in noun_forms(head[0]) if head else ():
            if any(words in {(w,) for w in lemmas} and at == 1 and height >= SPECIFIC
                   for words, at, height in wordnet.broader(noun, 1, 1)):
                out.append(Element(table, None, round(SCORE * BROADER, 3), "broader"))
                break
    return out


def _synonyms(word: str) -> list[tuple[str, ...]]:
    """The words (each a tuple of words) sharing one of the most frequent senses of the noun
    `word` among their own most frequent senses, most frequent sense first."""
    out: list[tuple[str, ...]] = []
    for lemma in noun_lemmas(word) or ():
        for synset in wordnet.senses(lemma, "n", SENSES):
            for words in synset:
                other = " ".join(words)
                if other != lemma and words not in out and wordnet.share_sense(
                        lemma, other, "n", SENSES):
                    out.append(words)
    return out


def _weaker(e: Element, share: float = 1.0, form: str = "synonym") -> Element:
    return Element(e.table, e.column, round(e.score * SCORE * share, 3), form, e.metric)


def _ordered(idx: SchemaIndex, found: dict[str, Element]) -> list[Element]:
    return sorted(found.values(), key=lambda e: (-e.score, idx.order[e.table], e.column or ""))
