"""The two terms of a ranking: what ranks (the measure) and what is ranked (the entity).

"top 5 products by price" ranks products by the price after "by"; "the most prizes" counts the
prize rows; "the highest quarter payout" ranks by the payout (a noun compound ends with its
head); "the tallest goalkeeper" ranks by the height column the adjective names.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.catalog.index import QUANTITY_WORDS
from nl2sql.reasoning.offline.linking.linker import Mention
from nl2sql.reasoning.offline.shapes.conditions import adjacent_after
from nl2sql.reasoning.offline.shapes.spec import Agg, Col, Unclear
from nl2sql.reasoning.offline.shapes.state import Analysis
from nl2sql.reasoning.offline.words import cues as C
from nl2sql.reasoning.offline.words.cues import Superlative
from nl2sql.reasoning.offline.words.text import (
    Token,
    canon,
    is_past_participle,
    split_identifier,
    verb_lemma,
)
from nl2sql.reasoning.offline.words.wordnet import share_sense


def rank_measure(a: Analysis, sup: Superlative | None) -> tuple[Col | Agg | None, Mention | None]:
    """The measure after "by" ("top 5 products by price") or after the superlative."""
    tokens = a.question.tokens
    for _, end, word in C.group_cues(tokens):
        if word != "by":
            continue
        m = adjacent_after(a.question.mentions, tokens, end, a.used, within=2)
        found = _measure_of(a, m) if m is not None else None
        if found is not None:
            return found, m
    if sup is not None and sup[2] is None and tokens[sup[1]].low not in ("top", "bottom"):
        paid = _participle_measure(a, sup[1] + 1)
        if paid is not None:
            return paid, None
        m = _compound_head(a, a.next_mention(sup[1] + 1, within=3))
        counted = m is not None and _counted_noun(a, sup, m)
        found = counted or (_measure_of(a, m) if m is not None else None)
        if isinstance(found, Agg) and found.col is None and _spent_on(tokens, sup[1]):
            # "spent the most on bookings": an amount spent on them, not how many there are
            if m is not None:
                a.used.discard(m.start)
            return None, None
        if isinstance(found, Agg) and found.col is None and tokens[sup[1]].low not in _COUNTING:
            # "the highest paid employee": "highest" does not count the rows it describes
            if m is not None and m.start == _next_word(a, sup[1]):
                a.used.discard(m.start)
                return None, None
        if found is not None:
            return found, m
        verb = _verb_before(a, sup[1])
        if verb is not None:
            return verb
    if sup is not None and sup[2] is not None and sup[2] != ("@count",):
        # "the longest duration": the adjective's measure, said again by its column's name
        m = a.next_mention(sup[1] + 1, within=1)
        col = a.res.column(m, ("number", "date")) if m is not None and a.res.table(m) is None \
            else None
        says = col is not None and (
            set(sup[2]) & set(a.question.idx.col_words.get((col.table, col.column), ()))
            or ("@date" in sup[2] and a.question.idx.kind(col.table, col.column) == "date"))
        if col is not None and m is not None and says:
            a.used.add(m.start)
            return col, m
    return None, None


_COUNTING = frozenset("most fewest least".split())


def _spent_on(tokens: list[Token], i: int) -> bool:
    """ "the most on", "the least for": what follows the preposition receives an amount."""
    return (tokens[i].low in ("most", "least") and i + 1 < len(tokens)
            and tokens[i + 1].low in ("on", "for", "from", "in"))


def _verb_before(a: Analysis, i: int) -> tuple[Col, Mention] | None:
    """ "which athlete weighs the most", "who earns the least": a measure verb right before a
    superlative that ends the question ranks by its column."""
    tokens = a.question.tokens
    if tokens[i].low not in _COUNTING or any(t.kind != "punct" for t in tokens[i + 1:]):
        return None
    before = i - 1 if i > 0 and tokens[i - 1].low == "the" else i
    m = next((m for m in a.question.mentions if m.end == before and m.start not in a.used
              and all(e.form == "measure" for e in m.candidates)), None)
    col = a.res.column(m, ("number",)) if m is not None else None
    if col is None or m is None:
        return None
    a.used.add(m.start)
    return col, m


def _next_word(a: Analysis, i: int) -> int:
    """The index of the first word after i that is not an unlinked participle."""
    j = i + 1
    tokens, linked = a.question.tokens, {m.start for m in a.question.mentions}
    while j < len(tokens) and j not in linked and is_past_participle(tokens[j].low):
        j += 1
    return j


def _participle_measure(a: Analysis, i: int) -> Col | None:
    """ "the highest paid employee": the number column of the table after the participle that
    the participle's noun names ("pay": a salary column, through WordNet's senses)."""
    tokens, mentions = a.question.tokens, a.question.mentions
    if i >= len(tokens) or any(m.start <= i < m.end for m in mentions):
        return None
    lemma = verb_lemma(tokens[i].low) if is_past_participle(tokens[i].low) else None
    after = next((m for m in mentions if m.start == i + 1), None)
    table = a.res.table(after) if after is not None else None
    if lemma is None or table is None:
        return None
    idx = a.question.idx
    named = [
        c.name
        for c in idx.tables[table].columns
        if idx.kind(table, c.name) == "number"
        and any(
            w.lower() == lemma or share_sense(lemma, w.lower(), "n")
            for w in split_identifier(c.name)
        )
    ]
    return Col(table, named[0]) if len(named) == 1 else None


def _counted_noun(a: Analysis, sup: Superlative, m: Mention) -> Agg | None:
    """ "the most prizes": a noun after most/fewest that only loosely names a column counts
    the rows of that column's table."""
    tokens = a.question.tokens
    if tokens[sup[1]].low not in ("most", "fewest", "least") or a.res.table(m):
        return None
    if m.start != _next_word(a, sup[1]):
        return None  # "spends the most on wages": the noun is what is spent, not counted
    if m.candidates[0].score >= 0.85 or not tokens[m.end - 1].low.endswith("s"):
        return None
    words = a.question.idx.col_words.get((m.candidates[0].table, m.candidates[0].column or ""))
    if words and words[-1] in QUANTITY_WORDS:
        return None  # "burned the most acres" of `acres_burn_qty`: the quantity, not its rows
    a.used.add(m.start)
    a.absorbed.add(m.start)
    return Agg("count", m.candidates[0].table)


def _compound_head(a: Analysis, m: Mention | None) -> Mention | None:
    """English noun compounds end with their head: "the highest quarter payout" ranks by the
    payout; a measurable column named right after `m` is read instead, `m` only modifies it."""
    while m is not None:
        if m.end - m.start == 1 and is_past_participle(a.question.tokens[m.start].low):
            return m  # "the most experienced claims adjuster": a participle modifies no noun
        end = m.end
        after = (n for n in a.question.mentions if n.start == end and n.start not in a.used)
        nxt = next(after, None)
        try:
            if nxt is None or a.res.column(nxt, ("number", "date")) is None:
                return m
        except Unclear:
            return m
        a.used.add(m.start)
        a.absorbed.add(m.start)
        m = nxt
    return m


def _measure_of(a: Analysis, m: Mention) -> Col | Agg | None:
    """The measure a mention names: the rows of the table it names at least as strongly as
    any column ("the most orders" counts orders, never sorts by `order_date`, a column "order"
    only abbreviates), else its number or date column."""
    table = a.res.table(m)
    if table is not None:
        a.used.add(m.start)
        return Agg("count", table)
    col = a.res.column(m, ("number", "date"))
    if col is not None:
        a.used.add(m.start)
        return col
    return None


def ranked_entity(
    a: Analysis, limit_i: int | None, sup: Superlative | None, measure_m: Mention | None
) -> Mention:
    """What is ranked: the words after "top N" / "which N", the table named right after the
    superlative ("the youngest member"), else the first table named, else the first mention."""
    if limit_i is not None:
        m = a.next_mention(limit_i + 1, within=3, exclude=measure_m)
        if m is not None:
            return m
    free = [m for m in a.question.mentions if m.start not in a.used and m is not measure_m]
    if sup is not None and sup[2] == ("@count",):  # "the most common genre"
        after = a.next_mention(sup[1] + 2, within=1, exclude=measure_m)
        if after is not None:
            return after
    if sup is not None:
        after = a.next_mention(sup[1] + 1, within=1, exclude=measure_m)
        if after is not None and a.res.table(after):
            # "the most experienced claims adjuster": a compound of tables ends with its head
            head = next((n for n in free if n.start == after.end and a.res.table(n)), None)
            return head or after
    tables = [m for m in free if a.res.table(m)]
    if tables or free:
        return (tables or free)[0]
    raise Unclear("could not tell what to rank")


def adjective_measure(a: Analysis, sup: Superlative | None, entity: Col | str) -> Col | Agg | None:
    """The measure an adjective names: "most expensive" → a price column of the entity."""
    if sup is None or sup[2] is None:
        return None
    table = entity.table if isinstance(entity, Col) else entity
    if sup[2] == ("@count",):
        return Agg("count", table)
    if sup[2] == ("@date",):
        # "the last employee hired": the date column a word names ("hired": hire_date) ranks
        for m in a.question.mentions:
            dates = a.question.idx.date_columns(table)
            named = [e for e in m.columns() if e.table == table and e.column in dates]
            # a date a verb names ranks ("the last employee hired", "hired first"); one a noun
            # names before the superlative is what is asked ("the delivery date of the most
            # recent delivery")
            ranks = m.start > sup[1] or is_past_participle(a.question.tokens[m.start].low)
            if (m.start not in a.used and ranks and len({e.column for e in named}) == 1
                    and named[0].column):
                a.used.add(m.start)
                return Col(table, named[0].column)
        for t in dict.fromkeys([table] + a.res.context):
            dates = a.question.idx.date_columns(t)
            if dates:
                return Col(t, dates[0])
        return None
    # "the tallest goalkeeper": the height may live in the row the goalkeeper references
    found = a.res.measure_column(sup[2], [table])
    if found is None and "age" in sup[2]:
        found = _birth_date(a, table)
    return found


_BIRTH = frozenset(canon(w) for w in ("birth", "birthday", "born"))


def _birth_date(a: Analysis, table: str) -> Col | None:
    """ "The oldest player" with no age column: the one date column of `table` that holds a
    birth date, ranked the other way round (the oldest was born first: `Analysis.inverse`)."""
    idx = a.question.idx
    born = [c for c in idx.date_columns(table) if _BIRTH & set(idx.col_words[(table, c)])]
    if len(born) != 1:
        return None
    a.inverse = True
    a.notes.append(f"age read from the birth date {table}.{born[0]}: the oldest was born first")
    return Col(table, born[0])
