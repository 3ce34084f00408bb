"""A verb that says a measure the schema holds as a number column: "how much does she weigh"
(`weight_kg`), "who earns the most" (`salary`), "how many points did he score" (`points`),
"how much have we spent on repairs" (`repair_cost`).

The link comes from WordNet's definitions (`words/wordnet.definitions`), not from a table of
verbs: the verb's most frequent sense is defined with the column's head noun ("weigh": "have a
certain weight"; "earn": "earn as salary or wages"; "score": "gain points in a game"), or one
of the column noun's two most frequent senses is defined with the verb ("cost": "the total
spent for goods or services"; "fare": "the sum charged for riding"). Only a word used as a verb
that no table, column, value, synonym or relation explained is read so, only number columns
that are neither keys nor yes/no flags are linked, and the link is as weak as a measure word's
(`SCORE`). A verb among the words of a number column the question names says that column
again ("which fire burned the most acres": `acres_burn_qty`).
"""

from __future__ import annotations

from nl2sql.reasoning.offline.catalog.flags import flag_values
from nl2sql.reasoning.offline.catalog.index import Element, SchemaIndex
from nl2sql.reasoning.offline.linking.lexical import DETERMINERS
from nl2sql.reasoning.offline.linking.mentions import Linking, Mention
from nl2sql.reasoning.offline.linking.phrases import AUXILIARIES
from nl2sql.reasoning.offline.words import wordnet
from nl2sql.reasoning.offline.words.text import (
    FRAME,
    STOP,
    Token,
    canon,
    inflections,
    noun_lemmas,
    split_identifier,
    verb_lemma,
)
from nl2sql.reasoning.offline.words.units import without_unit

#: the strength of the link (that of a measure word: "cost" for `price`)
SCORE = 0.6
#: the verb forms a noun's definition may use ("spent", "charged", "sold")
_VERB_TAGS = ("VB", "VBD", "VBN", "VBZ", "VBG")


def measure_verb_mentions(
    tokens: list[Token], idx: SchemaIndex, rest: list[Token], used: set[int], out: Linking
) -> None:
    """Link each unused verb of `rest` whose definition names a number column, or that a number
    column's noun is defined with (see the module's text)."""
    for tok in rest:
        if tok.index in used or tok.kind != "word" or tok.low in FRAME or tok.low in STOP:
            continue
        lemma = verb_lemma(tok.low)
        if not lemma or not _as_verb(tokens, tok, lemma):
            continue
        if _said_by_a_column(idx, out, canon(lemma)):
            out.lexical.append(tok)  # "which fire burned the most acres": `acres_burn_qty`
            used.add(tok.index)
            continue
        elements = measure_columns(idx, lemma)
        named = {e.ref for m in out.mentions for e in m.candidates}
        if elements and any(e.ref in named for e in elements) and not _compared(tokens, tok):
            out.lexical.append(tok)  # "how many points did he score": the column is named
        elif elements:
            out.mentions.append(Mention(tok.index, tok.index + 1, tok.text, elements))
        if elements:
            used.add(tok.index)


def _said_by_a_column(idx: SchemaIndex, out: Linking, stem: str) -> bool:
    """Whether a number column the question names has the verb among its words (`burn` of
    `acres_burn_qty` for "burned"): the verb says that column again."""
    return any(e.column and idx.kinds.get((e.table, e.column)) == "number"
               and stem in idx.col_words.get((e.table, e.column), ())
               for m in out.mentions for e in m.candidates)


def measure_columns(idx: SchemaIndex, lemma: str) -> list[Element]:
    """The number columns the verb `lemma` says, strongest-first order of the schema."""
    defined = _content_words(wordnet.definitions(lemma, "v", 1))
    forms = {lemma, *(f for tag in _VERB_TAGS for f in inflections(lemma, tag))}
    found = []
    for (table, column), words in idx.col_words.items():
        if (idx.kinds.get((table, column)) != "number" or not words or words[-1] == "id"
                or column in idx.keys.get(table, ()) or flag_values(idx, table, column)):
            continue  # a key or a yes/no flag measures nothing
        head = _head_noun(column)
        if head is None:
            continue
        if canon(head) in defined or forms & _words_of(wordnet.definitions(head, "n", 2)):
            found.append(Element(table, column, SCORE, "measure"))
    return found


#: the words that open a comparison after a verb ("weighed less than 4000")
_COMPARING = frozenset("less more fewer over under above below between exactly at least".split())


def _compared(tokens: list[Token], tok: Token) -> bool:
    """Whether a comparison follows the verb: it compares the verb's own column then."""
    nxt = tokens[tok.index + 1] if tok.index + 1 < len(tokens) else None
    return nxt is not None and (nxt.kind == "number" or nxt.low in _COMPARING)


#: the words after which a verb's base form is a verb ("how much does it weigh", "to earn")
_BEFORE_A_VERB = AUXILIARIES | {"to"}


def _as_verb(tokens: list[Token], tok: Token, lemma: str) -> bool:
    """Whether the word is used as a verb: inflected ("weighs", "spent"), or its base form after
    an auxiliary and its subject ("does she earn"); not "a single one", "a form of A"."""
    if tok.low != lemma:
        return True
    before = [t.low for t in tokens[: tok.index] if t.kind == "word"]
    return bool(before) and before[-1] not in DETERMINERS and bool(_BEFORE_A_VERB & set(before))


def _head_noun(column: str) -> str | None:
    """The base form of the noun a column's name ends with, without its unit (`repairCost`:
    cost, `weight_kg`: weight); None when it ends in no word."""
    words = [w.lower() for w in without_unit(split_identifier(column)) or split_identifier(column)]
    last = words[-1] if words else ""
    return (noun_lemmas(last) or (last,))[0] if last.isalpha() and len(last) > 2 else None


def _words_of(texts: tuple[str, ...]) -> set[str]:
    return {w.strip(",.()").lower() for text in texts for w in text.split()}


def _content_words(texts: tuple[str, ...]) -> set[str]:
    """The canonical forms of a definition's content words."""
    return {canon(w) for w in _words_of(texts) if w.isalpha() and w not in STOP and len(w) > 2}
