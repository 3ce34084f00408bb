"""Rule 4 of the linker: question words matched to the phrase forms of tables and columns.

The longest run of words that is a phrase of the index wins (names, human-readable names,
`table column` qualified forms, short and head-noun forms, identifiers written glued:
"username" names `user_name`), with what English needs around it: a hyphenated compound read
by its glued form ("check-ins" of `checkin`), modifiers coordinated before one head noun ("first
and last names"), a verb after its subject kept out of the subject's phrase ("restaurants opened
in 2019", "did the Pricing page get"), a word naming the element of its own word rather than of
its stem ("screens", not `screenings`), a request verb ("List …") naming nothing.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.catalog.flags import flag_values
from nl2sql.reasoning.offline.catalog.index import Element, SchemaIndex
from nl2sql.reasoning.offline.catalog.naming import column_name
from nl2sql.reasoning.offline.catalog.segments import own_keyed_word
from nl2sql.reasoning.offline.linking.lexical import DETERMINERS
from nl2sql.reasoning.offline.linking.mentions import Linking, Mention
from nl2sql.reasoning.offline.words import wordnet
from nl2sql.reasoning.offline.words.cues import order_cue
from nl2sql.reasoning.offline.words.text import (
    FRAME,
    STOP,
    Token,
    canon,
    irregular_verb,
    is_superlative,
    noun_forms,
    noun_lemmas,
    parts_of_speech,
    split_identifier,
    verb_lemma,
)

NEVER_LINK = frozenset("not no never none nor neither without except excluding".split())


_REQUESTS = frozenset("list show give find display return get tell count name sort order".split())


def _request_verb(tokens: list[Token], tok: Token) -> bool:
    """ "List …", "… ? Show …": a request verb opening a sentence names nothing in the schema."""
    if tok.low in ("order", "sort", "rank") and (cue := order_cue(tokens)) and cue[0] == tok.index:
        return True  # "… and order them by name": the verb of a sort request, not a table
    if tok.low not in _REQUESTS:
        return False
    prev = tokens[tok.index - 1] if tok.index > 0 else None
    return prev is None or prev.kind == "punct" or tok.text[:1].isupper()


def schema_mentions(
    tokens: list[Token], idx: SchemaIndex, used: set[int], out: Linking
) -> None:
    """Link the unused words of `tokens` that name tables and columns (see the module's text)."""
    _compounds(tokens, idx, used, out)
    seq = [
        t
        for t in tokens
        if t.kind == "word"
        and t.low not in STOP
        and t.low not in NEVER_LINK
        and not _request_verb(tokens, t)
    ]
    i = 0
    while i < len(seq):
        size = _longest_phrase(tokens, seq, i, idx, used)
        if not size:
            i += 1
            continue
        span = seq[i : i + size]
        elements = _elements(idx, span, _main_verb(tokens, span), _graded(tokens, span[0]))
        text = " ".join(t.text for t in span)
        out.mentions.append(Mention(span[0].index, span[-1].index + 1, text, list(elements)))
        used.update(t.index for t in span)
        _shared_head(tokens, idx, span, used, out)
        i += size


def _compounds(tokens: list[Token], idx: SchemaIndex, used: set[int], out: Linking) -> None:
    """A hyphenated compound whose parts name nothing together ("check-ins", "e-mail", "sign-up
    date") names what its glued form names: `checkin`, `email`, `signup_date`."""
    i = 0
    while i < len(tokens):
        j = i
        while tokens[j].joined and j + 1 < len(tokens) and tokens[j + 1].kind == "word":
            j += 1
        run = tokens[i : j + 1]
        i = j + 1
        if len(run) < 2 or any(t.kind != "word" or t.index in used for t in run):
            continue
        if _elements(idx, [t for t in run if t.low not in STOP]):
            continue  # "part-time": the words themselves are a phrase of the schema
        glued = canon("".join(t.text for t in run))
        nxt = tokens[j + 1] if j + 1 < len(tokens) else None
        for span, key in (
            ([*run, nxt], (glued, nxt.canon)) if nxt is not None and nxt.kind == "word"
            and nxt.index not in used and nxt.low not in STOP else ([], ()),
            (run, (glued,)),
        ):
            elements = idx.phrases.get(key, []) if span else []
            if elements:
                out.mentions.append(Mention(span[0].index, span[-1].index + 1,
                                            " ".join(t.text for t in span), list(elements)))
                used.update(t.index for t in span)
                break


_COORDINATORS = frozenset({"and", "or", ","})


def _shared_head(
    tokens: list[Token], idx: SchemaIndex, span: list[Token], used: set[int], out: Linking
) -> None:
    """Modifiers coordinated before one head noun name a column each ("first and last names",
    "home, work and mobile phone"): each modifier with the span's head noun is a phrase of the
    schema, which the modifier alone is not (it may be a frame word: "first")."""
    if len(span) < 2:
        return
    head, i = span[-1], span[0].index
    while i >= 2 and tokens[i - 1].low in _COORDINATORS:
        mod = tokens[i - 2]
        if mod.kind != "word" or mod.index in used or mod.low in STOP:
            return
        elements = _elements(idx, [mod, head])
        if not elements:
            return
        out.mentions.append(Mention(mod.index, mod.index + 1, f"{mod.text} {head.text}",
                                    list(elements)))
        used.add(mod.index)
        i = mod.index


def _longest_phrase(
    tokens: list[Token], seq: list[Token], i: int, idx: SchemaIndex, used: set[int]
) -> int:
    for size in range(min(idx.max_phrase, 4), 0, -1):
        span = seq[i : i + size]
        if len(span) < size or any(t.index in used for t in span) or not _contiguous(tokens, span):
            continue
        if size > 1 and _main_verb(tokens, span[-1:]):
            continue  # "did each vehicle make": the subject's noun and the verb are no phrase
        if size > 2 and any(is_verb_form(t) and _names_table(idx, span[:k])
                            for k, t in enumerate(span[1:-1], 1)):
            continue  # "participants completed the trial": a subject, then its verb's phrase
        if size > 1 and is_verb_form(span[-1]) and _names_table(idx, span[:-1]) and _elements(
            idx, span[-1:], verb=True
        ):
            continue  # "restaurants opened in 2019": a subject and its verb (it names the date)
        if _elements(idx, span, _main_verb(tokens, span), _graded(tokens, span[0])):
            return size
    return 0


def _graded(tokens: list[Token], tok: Token) -> bool:
    """A word right after a superlative ("the highest paid", "the most visited"): graded by
    an amount, so a verb form there names no date ("paid" is no `pay_date`)."""
    if tok.index == 0:
        return False
    prev = tokens[tok.index - 1]
    return prev.kind == "word" and is_superlative(prev.low)


def _same_word(idx: SchemaIndex, tok: Token, elements: list[Element]) -> list[Element]:
    """Of elements whose last word shares the stem of `tok`, those that are its word: "screens"
    names `screens`, not `screenings` too (the stem of both is "screen")."""
    if len(elements) < 2:
        return elements
    kept = [e for e in elements if not another_word(idx, e, tok.low)]
    return kept or elements


def another_word(idx: SchemaIndex, e: Element, word: str) -> bool:
    """Whether the last word of `e`'s name only shares the stem of `word` and is another word
    ("screenings" for "screens", "role" for "roll"; "people" is "person")."""
    name = (column_name(idx.naming, e.table, e.column) if e.column
            else idx.naming.table(e.table).core_name)
    words = split_identifier(name)
    last = words[-1] if words else ""
    return canon(last) == canon(word) and not noun_forms(last) & noun_forms(word)


def _names_table(idx: SchemaIndex, span: list[Token]) -> bool:
    return any(e.column is None for e in _elements(idx, span))


def _elements(
    idx: SchemaIndex, span: list[Token], verb: bool = False, graded: bool = False
) -> list[Element]:
    """The schema elements a span names. A lone frame word ("list", "number", "show") names only
    an element called exactly so, never one it is merely a part of (`price_list`); a verb
    (`verb`, or a past form) names only what a verb can."""
    elements = _same_word(idx, span[-1], idx.phrases.get(tuple(t.canon for t in span), []))
    if len(span) == 1 and (verb or is_verb_form(span[0])):
        # "boats were made" does not name a `make` column; "opened" may name `opened_date` and
        # "priced between 10 and 20" the price, "the most experienced" `YearsExperience`: a
        # verb names a measure or a date, never a label — or the rows of a table it names alone
        return [
            e
            for e in elements
            if (e.column is None and _named_by_verb(idx, e.table, span[0].low))
            or e.column
            and (
                e.form == "measure"
                or (idx.kind(e.table, e.column) == "date" and not graded)
                or (idx.kind(e.table, e.column) == "number"
                    and (e.form in ("name", "original") or (graded and e.form == "head")))
                # "invoices that are paid": a participle names the yes/no column called so
                or (e.form in ("name", "original", "short")
                    and flag_values(idx, e.table, e.column))
            )
        ]
    if len(span) == 1 and span[0].low in FRAME:
        return [e for e in elements if e.score >= 0.85]
    return elements


def _named_by_verb(idx: SchemaIndex, table: str, word: str) -> bool:
    """A table of events named by a verb alone or by the noun WordNet derives from it, keyed by
    its own id (`T_DEPLOY` by `DEPLOY_ID`, `bookings` by `bookingId`): "deployed", "booked" name
    its rows — not a table relating two others (`writes`)."""
    own = own_keyed_word(idx.naming.table(table).core_name,
                         [c.name for c in idx.tables[table].columns])
    if own is None:
        return False
    if parts_of_speech(own) == {"VERB"}:
        return True
    lemma = verb_lemma(word)
    nouns = {n[0] for n in wordnet.derived(lemma, "v", "n") if len(n) == 1} if lemma else set()
    return bool(nouns & {own.lower(), *noun_lemmas(own.lower())})


#: the auxiliaries before a clause's subject and main verb ("did each customer place")
AUXILIARIES = frozenset("do does did will would can could should shall may might must".split())
_SUBJECT_WORDS = 4  # "did each of the customers place": the subject between is short


def _main_verb(tokens: list[Token], span: list[Token]) -> bool:
    """The one word after "did <subject>" in a question ("how many orders did each customer
    place"): the clause's main verb, whatever noun it is spelled like."""
    if len(span) != 1 or "VERB" not in parts_of_speech(span[0].low):
        return False
    i = span[0].index
    if i == 0 or tokens[i - 1].low in DETERMINERS or tokens[i - 1].low in AUXILIARIES:
        return False  # "did each customer": the subject's own words
    if _verb_ends_clause(tokens, i + 1):
        return False  # "did the Pricing page get?": the verb is the next word
    for j in range(i - 1, max(-1, i - _SUBJECT_WORDS - 2), -1):
        tok = tokens[j]
        if tok.kind != "word":
            return False
        if tok.low in AUXILIARIES:
            return _subject(tokens[j + 1 : i])
    return False


def _verb_ends_clause(tokens: list[Token], i: int) -> bool:
    """Whether tokens[i] is a verb that ends its clause (the question's end, a comma or a
    function word follows)."""
    if i >= len(tokens) or tokens[i].kind != "word" or tokens[i].low in STOP:
        return False
    after = tokens[i + 1] if i + 1 < len(tokens) else None
    ends = after is None or after.kind == "punct" or after.low in STOP
    return ends and "VERB" in parts_of_speech(tokens[i].low)


def _subject(words: list[Token]) -> bool:
    """Whether the words between an auxiliary and a verb are its subject: a noun phrase
    ("each customer", "the store"), not a negation or another verb ("did not lose", "do have")."""
    if not words or any(t.low in NEVER_LINK for t in words):
        return False
    first = words[0].low
    return first in DETERMINERS or "NOUN" in parts_of_speech(first)


def is_verb_form(tok: Token) -> bool:
    """A past form ("produced", "made") — a verb of the question rather than a noun of it."""
    low = tok.low
    return (irregular_verb(low) is not None) or (
        len(low) > 4 and low.endswith("ed") and not low.endswith("eed")
    )


def _contiguous(tokens: list[Token], span: list[Token]) -> bool:
    """Words of a phrase may be separated by "of" / "the" only ("date of birth"), and a verb
    from its object by a possessive ("completed their trial" names `completed_trial`)."""
    for a, b in zip(span, span[1:], strict=False):
        between = {"of", "the", *(_POSSESSIVES if a is span[0] and may_be_verb(a) else ())}
        if any(t.kind != "word" or t.low not in between for t in tokens[a.index + 1 : b.index]):
            return False
    return True


_POSSESSIVES = frozenset("their its his her our my your".split())


def may_be_verb(tok: Token) -> bool:
    """A past form, or a word lemminflect knows as a verb ("complete", "completed")."""
    return is_verb_form(tok) or "VERB" in parts_of_speech(tok.low)
