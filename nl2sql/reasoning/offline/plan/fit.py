"""Does the planned answer fit the question? Checks run on a built query, before it is answered.

A plan can be valid SQL over the right tables and still answer another question: the rows of one
table where the question asked "which <other table>", no number where it asked "how many <rows>",
a ranking of rows a join repeats, a column of one table read as the property of another ("the
name of the author" answered with a book's name). Each check names what does not fit and
raises `Unclear`, so the engine refuses instead of stating a wrong answer as certain.
The checks read the question's structure (wh-words, "how many", "<property> of <entity>") and the
schema graph only; they hold no words of any particular database.
"""

from __future__ import annotations

from nl2sql.inflection import is_plural
from nl2sql.reasoning.offline.catalog.flags import flag_values
from nl2sql.reasoning.offline.linking.linker import Linking, Mention
from nl2sql.reasoning.offline.plan.joins import JoinTree
from nl2sql.reasoning.offline.shapes.resolve import Resolver
from nl2sql.reasoning.offline.shapes.spec import Agg, Col, Part, Query, Target, Unclear
from nl2sql.reasoning.offline.words import cues as C
from nl2sql.reasoning.offline.words.scan import Scan
from nl2sql.reasoning.offline.words.text import verb_lemma

_WH = {"which", "what"}
_OWNER_FILLER = {"the", "a", "an", "all", "each", "every", "its", "their"}


def check_fit(
    s: Scan, linking: Linking, res: Resolver, q: Query, tree: JoinTree | None, named: set[int]
) -> None:
    """Raise Unclear when the plan of `q` (over `tree`) does not answer the question asked."""
    mentions = sorted(linking.mentions, key=lambda m: m.start)
    _which_entity(s, mentions, res, q)
    _asked_kind(s, res, q)
    _but_not(s, linking)
    _superlative_kept(s, q, named)
    _worst(s)
    _how_many_rows(s, mentions, res, q)
    _how_many_one_number(s, q)
    _echoes_the_question(q)
    _aggregate_word_in_a_name(s, q, named)
    _asked_aggregate(s, q, named)
    _summed_flag(s, q, res)
    _ranked_repeated_rows(q, tree)
    _property_of_other_entity(s, mentions, res, q)


def _targets(q: Query) -> list[Target]:
    return [t for t, _ in q.select] + [t for t, _ in q.order] + [c.target for c in q.having]


def _table_of(t: Target) -> str:
    if isinstance(t, Col):
        return t.table
    if isinstance(t, Part):
        return t.col.table
    return t.col.table if t.col is not None else t.table


def _mention_at(mentions: list[Mention], i: int) -> Mention | None:
    return next((m for m in mentions if m.start == i), None)


def _which_entity(s: Scan, mentions: list[Mention], res: Resolver, q: Query) -> None:
    """ "Which books have …" asks for books: the answer must show something of them."""
    if q.set_op is not None or q.shape not in ("listing", "ranking", "aggregate"):
        return
    for tok in s.tokens:
        m = _mention_at(mentions, tok.index + 1) if tok.low in _WH else None
        entity = res.table(m) if m is not None else None
        if m is None or entity is None or (q.star and q.root == entity):
            continue
        if not any(_table_of(t) == entity for t, _ in q.select):
            raise Unclear(
                f"'{tok.text} {m.text}' asks for {entity} rows, but the plan shows none of their "
                "columns; could not tell how they relate to the rest of the question"
            )


def _kind(res: Resolver, t: Target) -> str:
    """What a shown target holds: "date", "number", "id", "text" or "bool"."""
    if isinstance(t, Part):
        return "date"
    if isinstance(t, Agg):
        if t.func in ("min", "max") and t.col is not None:
            return _kind(res, t.col)
        return "number"
    words = res.idx.col_words.get((t.table, t.column), ())
    return "id" if words and words[-1] == "id" else res.idx.kind(t.table, t.column)


def _asked_kind(s: Scan, res: Resolver, q: Query) -> None:
    """ "When …?" is answered by a date, "who …?" by a name: a plan showing only a name for
    "when did Biscuit arrive", or only an amount or a key for "who donated", answers
    something else."""
    if not s.tokens or q.set_op is not None or not q.select:
        return
    first = s.tokens[0].low
    kinds = {_kind(res, t) for t, _ in q.select}
    shown = ", ".join(t.ref if isinstance(t, Col) else "an aggregate" for t, _ in q.select)
    if first == "when" and "date" not in kinds and not _years(res, q):
        raise Unclear(f"'when' asks for a date, but the plan shows {shown}")
    if first in ("who", "whom", "whose") and not kinds & {"text", "bool"}:
        raise Unclear(f"'{s.tokens[0].text}' asks for someone, but the plan shows {shown}")


def _but_not(s: Scan, linking: Linking) -> None:
    """ "adopters who have applied but never had a request approved": the verb before "but"
    says the rows have some requests, which a relation verb alone does not state; the plan
    would keep adopters who never applied."""
    tokens = s.tokens
    for i, tok in enumerate(tokens[:-1]):
        negated = any(t.low in ("never", "not", "no") for t in tokens[i + 1 : i + 3])
        if tok.low != "but" or not negated:
            continue
        verbs = [t for t in linking.lexical if t.index < i and verb_lemma(t.low)]
        if verbs:
            raise Unclear(f"'{verbs[-1].text} but {tokens[i + 1].text}' also says they did "
                          f"{verb_lemma(verbs[-1].low)}, which the plan cannot state")


def _superlative_kept(s: Scan, q: Query, named: set[int]) -> None:
    """ "the number of the lot holding the most seeds": a superlative ranks; a plan that neither
    orders, limits nor takes a maximum or minimum has dropped it (here, for a count of lots)."""
    sup = C.superlative(s.tokens, named)
    if sup is None or q.set_op is not None or q.order or q.limit is not None or q.having:
        return
    if any(isinstance(t, Agg) and t.func in ("min", "max") for t in _targets(q)):
        return
    if any(c.values and isinstance(c.values[0], Query) for c in q.where):
        return  # the extreme is inside a condition ("born in the year of the oldest …")
    word = s.tokens[sup[1]].text
    raise Unclear(f"'{word}' ranks, but the plan ranks nothing")


def _worst(s: Scan) -> None:
    """ "the worst varroa count", "the worst delay": whether a higher or a lower value is worse
    depends on what is measured, which the engine cannot tell; it does not guess."""
    worst = next((t for t in s.tokens if t.low == "worst"), None)
    if worst is not None:
        raise Unclear(f"'{worst.text}' does not say whether a higher or a lower value is worse")


def _years(res: Resolver, q: Query) -> bool:
    """A year held as a number (`founded_year`, `Year`) answers "when" too."""
    return any(isinstance(t, Col) and "year" in res.idx.col_words.get((t.table, t.column), ())
               for t, _ in q.select)


def _how_many_rows(s: Scan, mentions: list[Mention], res: Resolver, q: Query) -> None:
    """ "how many <rows>" is answered by a count; a plan without one answers something else."""
    if any(isinstance(t, Agg) for t, _ in q.select) or q.set_op is not None:
        return
    for a, b in zip(s.tokens, s.tokens[1:], strict=False):
        if (a.low, b.low) != ("how", "many"):
            continue
        m = next((m for m in mentions if b.index < m.start <= b.index + 2), None)
        if m is not None and res.table(m) is not None:
            raise Unclear(f"'how many {m.text}' asks for a count, but the plan shows none")


def _how_many_one_number(s: Scan, q: Query) -> None:
    """ "How many tickets are open?" asks for one number: a count per group of a column the
    question names as a predicate ("open", "active") answers with a table of counts. Only a group
    cue ("each", "per", "by", "for every") asks for one count per group."""
    tokens = s.tokens
    if len(tokens) < 2 or (tokens[0].low, tokens[1].low) != ("how", "many") or not q.group:
        return
    if q.set_op is not None or C.group_cues(tokens):
        return
    raise Unclear(
        "'how many' asks for one number, but the plan counts per group; "
        "could not tell which rows the question counts"
    )


def _echoes_the_question(q: Query) -> None:
    """ "Who works in the Alder office?" read as the offices named Alder: every column
    shown is fixed to the value the question names, so the answer only repeats it; the rows
    asked for (who, which other table) were not found."""
    if not q.select or q.set_op is not None or q.group or q.having:
        return
    fixed = {
        c.target
        for c in q.where
        if c.op in ("=", "in") and not c.negated and isinstance(c.target, Col)
    }
    if all(isinstance(t, Col) and t in fixed for t, _ in q.select):
        shown = ", ".join(t.ref for t, _ in q.select if isinstance(t, Col))
        raise Unclear(
            f"the plan shows only {shown}, which the question's own value fixes; "
            "could not tell which rows the question asks for"
        )


def _asked_aggregate(s: Scan, q: Query, named: set[int]) -> None:
    """ "the total / average …" asks for an aggregate; a plan without any lists raw values."""
    cue = C.agg_cue(s.tokens, named)
    if cue is None or cue[0] not in ("sum", "avg") or q.in_subquery is not None:
        return
    nested = any(c.values and isinstance(c.values[0], Query) for c in q.where)
    if nested:
        return
    aggregates = [t for t in _targets(q) if isinstance(t, Agg)]
    word = s.tokens[cue[1]].text
    if not aggregates:
        raise Unclear(f"'{word}' asks for an aggregate, but the plan computes none")
    if cue[0] == "avg" and not any(t.func == "avg" for t in aggregates):
        # "on average, how many parcels does a shipment have": a count of all rows is not it
        raise Unclear(f"'{word}' asks for an average, but the plan computes none")


def _summed_flag(s: Scan, q: Query, res: Resolver) -> None:
    """ "How much did we refund?" summed over a yes/no column (`PAY_IS_REFUND`): the sum of a
    flag counts its true rows, which answers "how many" ("how many active customers"), not an
    amount."""
    words = [t.low for t in s.tokens]
    if any(a == "how" and b == "many" for a, b in zip(words, words[1:], strict=False)):
        return
    for t in _targets(q):
        if isinstance(t, Agg) and t.func == "sum" and t.col is not None and t.metric is None \
                and flag_values(res.idx, t.col.table, t.col.column) is not None:
            raise Unclear(f"{t.col.ref} is a yes/no column: its sum counts rows, not an amount")


def _aggregate_word_in_a_name(s: Scan, q: Query, named: set[int]) -> None:
    """ "What is the total amount of all orders?" over a column `total_amount`: the word names
    the column, and may ask for its sum too. Every row's value listed, with no condition, no
    limit and no group, answers only the first reading; the sum is as likely."""
    cue = C.agg_cue(s.tokens, set())
    if cue is None or cue[1] not in named or cue[0] not in ("sum", "avg"):
        return
    if q.where or q.limit is not None or q.group or q.having or q.anti or q.in_subquery:
        return
    if q.set_op is not None or any(isinstance(t, Agg) for t in _targets(q)):
        return
    if C.group_cues(s.tokens):
        return  # "the total amount of each order": one value per row is asked
    nxt = s.tokens[cue[1] + 1] if cue[1] + 1 < len(s.tokens) else None
    if nxt is not None and nxt.kind == "word" and is_plural(nxt.low):
        return  # "the total amounts of the orders": several values, one per row
    word = s.tokens[cue[1]].text
    raise Unclear(
        f"'{word}' is part of a column's name and may also ask for an aggregate of it; "
        "could not tell whether to list each row's value or aggregate them"
    )


def _ranked_repeated_rows(q: Query, tree: JoinTree | None) -> None:
    """The top N rows by a value of a table each of them has many rows of ("top 2 airlines by
    their flights") repeat them; which value ranks them (maximum, total, count) is not said.
    The single top row (LIMIT 1: "the player who received the biggest prize") is well defined."""
    if tree is None or q.limit is None or q.limit < 2 or q.group or not q.order:
        return
    repeated: set[str] = set()
    for step in tree.steps:
        if step.fan_out or step.parent in repeated:
            repeated.add(step.table)
    for target, _ in q.order:
        if not isinstance(target, Agg) and _table_of(target) in repeated:
            raise Unclear(
                f"ranking {q.root} rows by {_table_of(target)} values, of which each has "
                "several: say which to rank by (the maximum, the total, the count …)"
            )


def _property_of_other_entity(s: Scan, mentions: list[Mention], res: Resolver, q: Query) -> None:
    """ "the <column> of <entity>": a column shown of another table than the entity named (the
    entity left out of the plan), or averaged over another table's rows (per row or per entity?)
    answers another question."""
    shown: list[tuple[Col, Col | Agg]] = [(t, t) for t, _ in q.select if isinstance(t, Col)]
    shown += [(t.col, t) for t, _ in q.select if isinstance(t, Agg) and t.func == "avg" and t.col]
    for col, target in shown:
        for m in mentions:
            if not any(e.ref == col.ref for e in m.candidates):
                continue
            owner = _owner(s, mentions, res, m)
            if owner is None or owner == col.table:
                continue
            if isinstance(target, Agg) or owner not in q.tables():
                raise Unclear(
                    f"'{m.text}' of {owner} was read as {col.ref}, a column of another table; "
                    "could not tell whether it belongs to the same rows"
                )


def _owner(s: Scan, mentions: list[Mention], res: Resolver, m: Mention) -> str | None:
    """The table named right after "<mention> of (the)"."""
    i = m.end
    if i >= len(s.tokens) or s.tokens[i].low != "of":
        return None
    i += 1
    while i < len(s.tokens) and s.tokens[i].low in _OWNER_FILLER:
        i += 1
    owner = _mention_at(mentions, i)
    return res.table(owner) if owner is not None else None
