"""Schema linking: which question words name which tables, columns and stored values.

Rules, in order (each consumes its words):
1. Quoted text ('like this') is a value, taken literally.
2. Word sequences equal (case-insensitively) to a sample value of a text column are values,
   longest first — except a single word that is also the full name of a table or column.
3. A unit after a number or after "in" ("over 120 kph", "the distance in km") says how the
   number is measured and names nothing, unless a column is called so.
4. The remaining non-function words are matched to table/column phrase forms, longest first
   (names, human-readable names, `table column` qualified forms, short and head-noun forms,
   identifiers written glued: "username" names `user_name`; `phrases.py`).
5. Words still unexplained are looked up in the data (`PlanRequest.values`) on the text columns of
   the mentioned tables and their foreign-key neighbours; only an exact case-insensitive match
   links, and the value is emitted as stored.
5b. A noun still unexplained whose WordNet synonym names a table or column ("clients" for
   `customer`) links to it, more weakly than a name (`synonyms.py`); so does a word a coded
   name abbreviates ("meters" of `MTR`: `coded.py`).
6. Relation verbs and filler words of the generic lexicon ("owned", "information") are explained
   by the lexicon, as is a verb that ends the question after "we" ("… do we carry?"), and so is
   the verb of a date column where no date is asked ("which baker has baked the most batches":
   `lexical.event_verbs`); a verb between two entities the schema graph connects ("chefs who
   cooked at festivals") is explained by that path (`relations`); a word that tells apart two
   keys joining the same tables ("destination" of `destination_airport_id` beside
   `origin_airport_id`) is a role the join search reads (`roles`; the planner refuses a plan
   that joins without it); a verb WordNet defines by a number column's noun, or that noun by
   the verb, names that column ("weighs": `weight_kg`; `measure_verbs`); whatever is left is
   unexplained, and the planner refuses it.
"""

from __future__ import annotations

from nl2sql.reasoning.base import ValueLookup
from nl2sql.reasoning.llm.run_limits import checkpoint
from nl2sql.reasoning.offline.catalog.index import Element, SchemaIndex
from nl2sql.reasoning.offline.catalog.naming import normalize_value
from nl2sql.reasoning.offline.linking.coded import coded_mentions
from nl2sql.reasoning.offline.linking.lexical import (
    event_verbs,
    lexicon_explains,
    phrasal_object,
    said_of_the_owner,
)
from nl2sql.reasoning.offline.linking.lookup import close_values, lookup_words
from nl2sql.reasoning.offline.linking.measure_verbs import measure_verb_mentions
from nl2sql.reasoning.offline.linking.mentions import Linking, Mention, ValueMatch, looks_like_value
from nl2sql.reasoning.offline.linking.phrases import schema_mentions
from nl2sql.reasoning.offline.linking.relations import relation_verbs
from nl2sql.reasoning.offline.linking.synonyms import synonym_mentions
from nl2sql.reasoning.offline.words import wordnet
from nl2sql.reasoning.offline.words.cues import ADJ_MEASURES, adjective_of
from nl2sql.reasoning.offline.words.text import (
    FRAME,
    STOP,
    Token,
    canon,
    noun_lemmas,
    split_identifier,
    verb_lemma,
    without_possessive,
)
from nl2sql.reasoning.offline.words.units import is_currency_code, is_unit

__all__ = ["Linking", "Mention", "ValueMatch", "link", "link_words"]

#: how many questions' look-up-free linkings an index remembers
_REMEMBERED = 32


def link_words(tokens: list[Token], idx: SchemaIndex, consumed: set[int]) -> Linking:
    """`link` without value look-ups, remembered by the index for its last few questions: the
    answerability check and the decomposition rank every datasource by this same linking. The
    result is shared between its callers: read it, never change it."""
    key = (tuple(tokens), frozenset(consumed))
    found = idx.linked.get(key)
    if found is None:
        found = link(tokens, idx, consumed)
        if len(idx.linked) >= _REMEMBERED:
            idx.linked.pop(next(iter(idx.linked)), None)
        idx.linked[key] = found
    return found


def link(
    tokens: list[Token], idx: SchemaIndex, consumed: set[int], lookup: ValueLookup | None = None
) -> Linking:
    """Link the unconsumed tokens of a question to `idx` (values, then schema, then lookups)."""
    out = Linking()
    used = set(consumed)
    _quoted(tokens, idx, used, out)
    _sample_values(tokens, idx, used, out)
    _where(tokens, idx, used, out)
    _acronyms(tokens, idx, used, out)
    phrasal = [t for t in tokens if t.index not in used and t.low not in STOP
               and phrasal_object(tokens, idx, t)]
    out.lexical += phrasal
    used.update(t.index for t in phrasal)
    out.units = [t for t in tokens if t.index not in used and _measured_in(tokens, idx, t)]
    used.update(t.index for t in out.units)
    schema_mentions(tokens, idx, used, out)
    checkpoint()
    rest = [t for t in tokens if t.index not in used and t.kind == "word" and t.low not in STOP]
    if lookup is not None:
        lookup_words(tokens, idx, rest, used, out, lookup)
    synonym_mentions(tokens, idx, rest, used, out)
    coded_mentions(tokens, idx, rest, used, out)
    close_values(tokens, idx, rest, used, out, lookup)
    roles = role_words(idx)
    for t in rest:
        if t.index not in used and t.low not in FRAME and (role := _role_of(t, roles)):
            out.roles.append((t, role))
            out.lexical.append(t)
            used.add(t.index)
    out.lexical += [t for t in rest if t.index not in used and (
        lexicon_explains(tokens, t, out) or said_of_the_owner(tokens, t))]
    used.update(t.index for t in out.lexical)
    left = [t for t in rest if t.index not in used and t.low not in FRAME]
    for rel in relation_verbs(tokens, idx, out, left):
        out.lexical.append(rel.word)
        out.relations.append(rel)
        used.add(rel.word.index)
    measure_verb_mentions(tokens, idx, rest, used, out)
    for m, table in event_verbs(tokens, idx, out):
        at = out.mentions.index(m)
        if table is None:
            del out.mentions[at]
            out.lexical.append(tokens[m.start])
        else:
            out.mentions[at] = table  # "never baked": the batches, not their date
    out.unexplained = [t for t in rest if t.index not in used and t.low not in FRAME
                       and not _graded_adverb(tokens, t)]
    if tokens and tokens[0].low == "where" and 0 not in used:
        out.unexplained.insert(0, tokens[0])  # "where …?" with no place column to answer it
    out.value_like = [t for t in out.unexplained if looks_like_value(tokens, t)]
    out.values.sort(key=lambda v: v.start)
    return out


def _measured_in(tokens: list[Token], idx: SchemaIndex, tok: Token) -> bool:
    """A unit right after a number ("120 kph") or after "in" ("in km", "in USD") — unless
    a column is called so ("more than 3 points" of a `points` column), or a capitalized word
    after "in" may be a place or a code ("in Miles City", "in CA": only a currency code reads as
    a unit there); the unit at the end of a column's name (`priceUsd`) is no name of the column."""
    prev = tokens[tok.index - 1] if tok.index > 0 else None
    place = tok.text[:1].isupper() and not is_currency_code(tok.text)
    return (
        prev is not None
        and (prev.kind == "number" or (prev.low == "in" and not place))
        and tok.kind == "word"
        and not _strong_schema_word(idx, tok)
        and is_unit(tok.text)
    )


def _where(tokens: list[Token], idx: SchemaIndex, used: set[int], out: Linking) -> None:
    """ "Where is X from?" asks for a place column (location, city, country, address …)."""
    places = idx.phrases.get((canon("place"),))
    if tokens and tokens[0].low == "where" and places and 0 not in used:
        out.mentions.append(Mention(0, 1, tokens[0].text, list(places)))
        used.add(0)


def _acronyms(tokens: list[Token], idx: SchemaIndex, used: set[int], out: Linking) -> None:
    """ "kilowatt hours" names a column called `kwh`: the initials of 2–4 consecutive words."""
    for size in (4, 3, 2):
        for i in range(len(tokens) - size + 1):
            span = tokens[i : i + size]
            if any(t.kind != "word" or t.index in used for t in span):
                continue
            initials = "".join(t.low[0] for t in span)
            found = [
                e
                for e in idx.phrases.get((initials,), [])
                if e.form == "name" and e.column and e.column.lower() == initials
            ]
            if found:
                out.mentions.append(Mention(i, i + size, " ".join(t.text for t in span), found))
                used.update(t.index for t in span)


def _quoted(tokens: list[Token], idx: SchemaIndex, used: set[int], out: Linking) -> None:
    for tok in tokens:
        if tok.kind == "quoted" and tok.index not in used:
            options = list(idx.values.get(normalize_value(tok.text), []))
            out.values.append(ValueMatch(tok.index, tok.index + 1, tok.text, options, "quoted"))
            used.add(tok.index)


def _strong_schema_word(idx: SchemaIndex, tok: Token, literal: bool = False) -> bool:
    """Whether the word names a table or column outright; `literal`: as that name spells it
    (or its plural), so a stored value "open" is still read as the value where only a column
    `opened_on` shares its stem ("tickets that are open")."""
    strong = [e for e in idx.phrases.get((tok.canon,), []) if e.score >= 0.85]
    if not literal:
        return bool(strong)
    forms = {tok.low, *noun_lemmas(tok.low)}

    def spelled(e: Element) -> set[str]:
        words = [w.lower() for w in split_identifier(e.column or e.table)]
        return {f for w in words for f in (w, *noun_lemmas(w))}

    return any(forms & spelled(e) for e in strong)


def _before_its_column(tokens: list[Token], idx: SchemaIndex, tok: Token) -> bool:
    """ "a day ticket" over `ticket_type` holding 'day', "a day pass" over `passes.passKind`: a
    frame word stored in a column and written before a word naming that column or its table
    is its value."""
    nxt = tokens[tok.index + 1] if tok.index + 1 < len(tokens) else None
    stored = {(t, c) for t, c, _ in idx.values.get(tok.low, ())}
    tables = {t for t, _ in stored}
    return nxt is not None and any(
        (e.table, e.column) in stored or (e.column is None and e.table in tables)
        for e in idx.phrases.get((nxt.canon,), ()))


def _sample_values(tokens: list[Token], idx: SchemaIndex, used: set[int], out: Linking) -> None:
    i = 0
    while i < len(tokens):
        checkpoint()
        hit = None
        for size in range(6, 0, -1):
            span = tokens[i : i + size]
            if len(span) < size or any(
                t.index in used or t.kind not in ("word", "number") for t in span
            ):
                continue
            if (
                size == 1
                and not _bare_letter(tokens, span[0])
                and not _in_capitals(span[0])
                and (
                    span[0].low in STOP
                    or (span[0].low in FRAME and not _before_its_column(tokens, idx, span[0]))
                    or _strong_schema_word(idx, span[0], literal=True)
                )
            ):
                continue
            text = normalize_value(" ".join(t.text for t in span))
            forms = [text, without_possessive(text)]  # "each rabbit's name"
            if size == 1 and text.endswith("s"):
                forms.append(text[:-1])
            options = next((idx.values[f] for f in forms if idx.values.get(f)), None)
            if options:
                hit = ValueMatch(
                    i, i + size, " ".join(t.text for t in span), list(options), "sample"
                )
                break
        if hit is None:
            i += 1
            continue
        out.values.append(hit)
        used.update(range(hit.start, hit.end))
        i = hit.end


def _bare_letter(tokens: list[Token], tok: Token) -> bool:
    """A capital letter mid-sentence that no noun follows ("shift B or D"): a value, not
    the article "A" (an article always comes before the noun it introduces)."""
    if tok.index == 0 or len(tok.text) != 1 or not tok.text.isupper():
        return False
    nxt = tokens[tok.index + 1] if tok.index + 1 < len(tokens) else None
    return nxt is None or nxt.kind == "punct" or nxt.low in ("or", "and", "nor")


def _in_capitals(tok: Token) -> bool:
    """ "staff in HR", "clients that are VIP": a word written in capitals after the first one is
    looked up among the stored values even where it also names a column (a function word in
    capitals, "the IT department", is a literal already: `text.tokenize`)."""
    return tok.index > 0 and len(tok.text) >= 2 and tok.text.isalpha() and tok.text.isupper()


# Words that never name a table or column, whatever the schema ("not" must not read `note`).


def _graded_adverb(tokens: list[Token], tok: Token) -> bool:
    """ "most recently", "least frequently": the adverb of a superlative's adjective is the
    superlative (`cues.superlative` reads it), no schema word."""
    prev = tokens[tok.index - 1].low if tok.index > 0 else ""
    return prev in ("most", "least") and adjective_of(tok.low) in ADJ_MEASURES


def _role_of(tok: Token, roles: frozenset[str]) -> str | None:
    """The role word `tok` says: itself, or for a verb a noun WordNet derives from it
    ("won": `winner`)."""
    if not roles:
        return None
    if tok.canon in roles:
        return tok.canon
    lemma = verb_lemma(tok.low)
    for words in wordnet.derived(lemma, "v", "n") if lemma else ():
        if len(words) == 1 and canon(words[0]) in roles:
            return canon(words[0])
    return None


def role_words(idx: SchemaIndex) -> frozenset[str]:
    """The words that tell apart two keys joining the same two tables (`origin_airport_id`
    and `destination_airport_id`: "origin", "destination"), canonical."""
    by_pair: dict[tuple[str, str], list[frozenset[str]]] = {}
    for e in idx.edges + idx.inferred:
        words = frozenset(w for c in e.src_cols for w in idx.col_words.get((e.src, c), ()))
        by_pair.setdefault((e.src, e.dst), []).append(words)
    out: set[str] = set()
    for keys in by_pair.values():
        if len(keys) > 1:
            shared = frozenset.intersection(*keys)
            out.update(w for words in keys for w in words - shared)
    return frozenset(out)
