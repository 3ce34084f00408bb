"""Verbs no column names, read as the relationship the schema graph holds between two entities.

"chefs who cooked at festivals", "shops that stock brands", "patients who consulted
clinics": no table, column or stored value is called "cooked", "stock" or "consulted", yet the
question is plain. A word is read as such a relation verb when

- lemminflect's dictionary knows it as a verb form (no word list of our own),
- the nearest entity before it (a mention of a table, or a column right before the verb: "the
  cost charged by each courier") and the nearest entity after it (a table mention or a stored
  value), each within a few words of the verb and with no clause break
  between, belong to two different tables, and
- the schema graph connects those tables directly (a declared or inferred key) or through one
  bridge table (an association table between them).

The join the planner then builds between the two tables is what the verb says; the word is
explained, and the path is shown in the reasoning as the evidence. A verb between words of one
table, or between tables the graph does not connect closely, stays unexplained and is refused.
"""

from __future__ import annotations

from collections import deque

from nl2sql.reasoning.offline.catalog.index import FKEdge, SchemaIndex
from nl2sql.reasoning.offline.linking.mentions import Linking, Relation
from nl2sql.reasoning.offline.words.cues import AGG_WORDS
from nl2sql.reasoning.offline.words.text import Token, is_noun, is_past_participle, verb_lemma

#: words allowed between a verb and the entity after it ("cooked at the annual")
_REACH = 4
#: words allowed between the subject and its verb ("chefs trained by masters from the
#: north and cooked")
_CLAUSE = 12
#: what comes right before a bare verb that is also a noun: a relative pronoun or an auxiliary
_VERB_LEADS = frozenset("who that which do does did to can could will would".split())
#: what opens a question whose object comes before its subject and verb
_WH_OPENERS = frozenset("how which what".split())
#: a bridge table at most: a longer path is no longer what one verb says
_MAX_HOPS = 2


def relation_verbs(
    tokens: list[Token], idx: SchemaIndex, linking: Linking, words: list[Token]
) -> list[Relation]:
    """The relations that explain some of `words` (question words nothing else explains)."""
    found = []
    for tok in words:
        if not _verb_here(tokens, linking, tok):
            continue
        after = _entity_after(tokens, linking, tok.index)
        before = _entities_before(tokens, linking, tok.index)
        if not after and _fronted_object(tokens, tok.index) and len(before) > 1:
            # "how many loans has each branch handled?": the subject is the entity right before
            # the verb, its object the one the wh-word put first
            subject = max(before)
            after = [table for end, table in before if end < subject[0] and table != subject[1]]
            before = [subject]
        if not before or max(before)[1] in after:
            continue  # "the journal named …": a verb between an entity and its own value
        paths = [
            (len(p[1]), tok.index - end, p)
            for end, table in before
            for b in after
            if b != table and (p := _path(idx, table, b)) is not None
        ]
        if paths:
            _, gap, (path, edges) = min(paths, key=lambda x: x[:2])
            found.append(Relation(tok, path, edges, guessed=gap != tok.index - max(before)[0]))
    return found


def _verb_here(tokens: list[Token], linking: Linking, tok: Token) -> bool:
    """A verb form; a bare form that is also a noun ("offer", "part") only right after its
    subject or after a relative pronoun or auxiliary ("shops that stock", "who stock")."""
    lemma = verb_lemma(tok.low)
    if lemma is None:
        return False
    if tok.low != lemma or not is_noun(tok.low):
        return True
    prev = tokens[tok.index - 1] if tok.index else None
    if prev is not None and prev.low in _VERB_LEADS:
        return True
    subject = next((m for m in linking.mentions if m.tables() and m.end == tok.index), None)
    nxt = tokens[tok.index + 1] if tok.index + 1 < len(tokens) else None
    # "the total parcel weight handled by …": a noun compound, whose head a participle follows
    compound = (nxt is not None and is_past_participle(nxt.low)) or (
        subject is not None and subject.start > 0 and tokens[subject.start - 1].low in AGG_WORDS)
    return subject is not None and not compound


def _fronted_object(tokens: list[Token], at: int) -> bool:
    """The verb at `at` ends a one-clause question that opens with its object ("how many loans
    …", "which books … borrowed?"): nothing but punctuation follows it, and no "and", "or" or
    comma starts another clause before it ("which users …, and how many reviews have they
    posted?" is two questions)."""
    return (bool(tokens) and tokens[0].low in _WH_OPENERS
            and all(t.kind == "punct" for t in tokens[at + 1 :])
            and not any(t.kind == "punct" or t.low in ("and", "or") for t in tokens[1:at]))


def _clear(tokens: list[Token], start: int, end: int, reach: int) -> bool:
    """At most `reach` words between `start` and `end`, and no clause break (a comma)."""
    gap = tokens[start:end]
    return len(gap) <= reach and all(t.kind != "punct" for t in gap)


def _entities_before(tokens: list[Token], linking: Linking, at: int) -> list[tuple[int, str]]:
    """(end, table) of the entities named earlier in the clause: the verb's subject is the one
    the schema relates most closely to the entity after it ("chefs trained by masters
    and cooked at festivals": chefs)."""
    found = [
        (m.end, m.tables()[0].table)
        for m in linking.mentions
        if m.end <= at and m.tables() and _clear(tokens, m.end, at, _CLAUSE)
    ]
    # "the distance driven by each driver": a column right before the verb is its rows' table
    found += [(m.end, m.columns()[0].table) for m in linking.mentions
              if m.end == at and not m.tables() and m.columns()]
    return found


def _entity_after(tokens: list[Token], linking: Linking, at: int) -> list[str]:
    spans: list[tuple[int, list[str]]] = [
        (m.start, [e.table for e in m.tables()[:1]]) for m in linking.mentions
    ]
    spans += [(v.start, list(dict.fromkeys(t for t, _, _ in v.options))) for v in linking.values]
    near = [(s, ts) for s, ts in spans if s > at and ts and _clear(tokens, at + 1, s, _REACH)]
    return min(near)[1] if near else []


def _path(idx: SchemaIndex, a: str, b: str) -> tuple[tuple[str, ...], tuple[FKEdge, ...]] | None:
    """The shortest path from table `a` to table `b` of at most `_MAX_HOPS` keys, declared keys
    first (the inferred ones only when the declared ones do not connect them)."""
    for edges in (idx.edges, idx.edges + idx.inferred):
        found = _shortest(edges, a, b)
        if found is not None:
            return found
    return None


def _shortest(
    edges: list[FKEdge], a: str, b: str
) -> tuple[tuple[str, ...], tuple[FKEdge, ...]] | None:
    queue: deque[tuple[tuple[str, ...], tuple[FKEdge, ...]]] = deque([((a,), ())])
    while queue:
        path, used = queue.popleft()
        if path[-1] == b:
            return path, used
        if len(used) == _MAX_HOPS:
            continue
        for edge in edges:
            if edge.src == edge.dst:
                continue
            nxt = edge.dst if edge.src == path[-1] else edge.src if edge.dst == path[-1] else None
            if nxt is not None and nxt not in path:
                queue.append(((*path, nxt), (*used, edge)))
    return None
