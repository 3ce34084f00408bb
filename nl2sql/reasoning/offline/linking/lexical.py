"""Question words the generic lexicon explains without the schema: relation verbs and filler
words of `words/lexicon.py` ("owned", "information"), and the noun or particle of a verb that
WordNet lists as one ("took place", "sent out").

It also says when a stored value is written as the noun of a phrase ("each rabbit"): it names
its table's rows, as the table's name would (`value_nouns`).

A relation verb needs a relation to stand for: written as a noun after a determiner ("the make
of each pet"), or in the passive at the end of a question about one entity ("how many shipments
have been delivered?"), it says something the schema must explain, and the lexicon does not.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.catalog.index import Element, SchemaIndex
from nl2sql.reasoning.offline.linking.mentions import Linking, Mention, ValueMatch
from nl2sql.reasoning.offline.words.lexicon import FILLER, RELATION_VERBS
from nl2sql.reasoning.offline.words.text import (
    Token,
    is_noun,
    is_past_participle,
    parts_of_speech,
    verb_lemma,
)


def lexicon_explains(tokens: list[Token], tok: Token, linking: Linking) -> bool:
    """A relation verb or filler word the lexicon explains here (`linking`: what the question's
    other words were linked to so far)."""
    return (is_lexical(tok) and not _used_as_noun(tokens, tok)
            and not _state_of_one_entity(tokens, tok, linking))


#: the forms of "be" that make a participle after them passive ("have been delivered")
_PASSIVE_AUXILIARIES = frozenset("be been being is are was were".split())


def is_lexical(tok: Token) -> bool:
    """A relation verb ("owned") or a filler word ("information") of the generic lexicon."""
    return tok.kind == "word" and (tok.canon in RELATION_VERBS or tok.low in FILLER)


def phrasal_object(tokens: list[Token], idx: SchemaIndex, tok: Token) -> bool:
    """The noun or particle of a verb phrase WordNet lists as one verb ("took place", "take
    part", "sent out"): part of the verb, no schema word — unless the two words are a phrase of
    the schema."""
    if tok.index == 0 or tok.kind != "word":
        return False
    prev = tokens[tok.index - 1]
    lemma = verb_lemma(prev.low) if prev.kind == "word" else None
    if lemma is None or lemma in _LIGHT_VERBS or (prev.canon, tok.canon) in idx.phrases:
        return False
    from nl2sql.reasoning.offline.words import wordnet

    pos = parts_of_speech(tok.low)
    if "ADV" in pos and wordnet.senses(f"{lemma} {tok.low}", "v", 1):
        return True  # a particle of a verb WordNet lists as one ("send out", "check out")
    if "ADJ" in pos or not is_noun(tok.low):
        return False  # "be active", "run late": a predicate, which conditions read
    return bool(wordnet.senses(f"{lemma} {tok.low}", "v", 1))


_LIGHT_VERBS = frozenset({"be", "have", "do", "get", "become"})  # "be active" is no phrasal verb
#: words that open a noun phrase ("the make of each pet", "each customer")
DETERMINERS = frozenset("the a an each every its their his her our your whose".split())


def value_nouns(tokens: list[Token], linking: Linking) -> list[ValueMatch]:
    """Stored values written as the noun of a phrase ("each rabbit", "all the cats"): they
    name the rows of their table, as the table's own name would."""
    return [v for v in linking.values if v.start > 0 and tokens[v.start - 1].low in DETERMINERS]


def _state_of_one_entity(tokens: list[Token], tok: Token, out: Linking) -> bool:
    """A relation verb in the passive that ends the question, about the one entity it names
    ("how many shipments have been delivered?"): no second entity for it to relate and no
    complement ("produced in 1980", "shared by two people") that says what it means, so it
    says which rows count — a condition the verb lexicon cannot supply."""
    prev = tokens[tok.index - 1] if tok.index > 0 else None
    if prev is None or prev.low not in _PASSIVE_AUXILIARIES or not is_past_participle(tok.low):
        return False
    if any(t.kind != "punct" for t in tokens[tok.index + 1:]):
        return False
    named = {m.candidates[0].table for m in out.mentions if m.candidates}
    named |= {table for v in out.values for table, *_ in v.options[:1]}
    return len(named) < 2


def _used_as_noun(tokens: list[Token], tok: Token) -> bool:
    """A relation verb written as a noun ("the make of each pet", "its release"): after a
    determiner, and not a participle ("the sold items" is still the verb), it names a thing the
    schema must explain; the verb lexicon does not."""
    prev = tokens[tok.index - 1] if tok.index > 0 else None
    return (prev is not None and prev.low in DETERMINERS and not tok.low.endswith("ed")
            and tok.low not in FILLER and is_noun(tok.low))


#: words that ask for or condition a date, beside which a participle's date column is the date
_DATE_ASKED = frozenset(
    """when date dates day days month months year years recent recently latest earliest first
    last newest oldest ago since before after between until""".split()
)


def event_verbs(
    tokens: list[Token], idx: SchemaIndex, out: Linking
) -> list[tuple[Mention, Mention | None]]:
    """The mentions of a date column named by its verb ("baked" of `bake_date` or `baked_on`,
    "certified" of `certifiedDate`) where the question neither asks a date nor conditions one,
    and the verb has what follows it ("which baker has baked the most batches", "divers
    certified Divemasters", "how many products has she baked"): the verb relates the rows, as a
    relation verb does, and names no date to show or group by (paired with None). Not a passive
    that ends the question ("how many orders were shipped?"), which says which rows count.
    Negated ("products that were never baked"), it stands for its table, the events that did
    not happen (paired with the mention of that table)."""
    from nl2sql.reasoning.offline.words.dates import find_dates

    if any(t.low in _DATE_ASKED for t in tokens) or find_dates(tokens):
        return []
    found: list[tuple[Mention, Mention | None]] = []
    for m in out.mentions:
        tok = tokens[m.start]
        lemma = verb_lemma(tok.low)
        if (m.end - m.start != 1 or not lemma or lemma == tok.low or not m.candidates
                or any(e.column is None or e.form not in ("short", "name")
                       or idx.kind(e.table, e.column) != "date" for e in m.candidates)):
            continue
        prev = tokens[m.start - 1] if m.start > 0 else None
        ends = all(t.kind == "punct" for t in tokens[m.end:])
        if _negated(tokens, m.start):
            found.append((m, Mention(m.start, m.end, m.text, list(dict.fromkeys(
                Element(e.table, None, 0.7, "head") for e in m.candidates)))))
        elif not (ends and prev is not None and prev.low in _PASSIVE_AUXILIARIES):
            found.append((m, None))
    return found


def _negated(tokens: list[Token], i: int) -> bool:
    """ "never been baked", "have not been serviced": a negation at most three words before."""
    return any(t.low in ("never", "not") for t in tokens[max(0, i - 3) : i])


def said_of_the_owner(tokens: list[Token], tok: Token) -> bool:
    """A verb that ends the question after "we" or "you", the owner of the data ("how many
    generic drugs do we carry?", "which products do you stock?"): what the rows are, with no
    second entity to relate and no condition — the lexicon explains it."""
    prev = tokens[tok.index - 1] if tok.index > 0 else None
    return (prev is not None and prev.low in ("we", "you") and verb_lemma(tok.low) is not None
            and all(t.kind == "punct" for t in tokens[tok.index + 1:]))
