"""Yes/no flag columns as conditions: "active customers", "products that are discontinued",
"clients who are not VIP".

A flag (`catalog/flags.py`) holds two values at most, each a spelling of true or false. A
mention of a flag used as a predicate — right before a table it describes ("active customers")
or after a form of "be" ("are active", "is not VIP") or "have a" ("have a sea view") — is the
condition `flag = <its stored true
value>`; with "not" before it, the stored false value (or `!=` the true one when only that is
stored). The flag must be a column of the table the words describe. Any other mention of a flag
(shown, grouped by) is left alone.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.catalog.flags import flag_values
from nl2sql.reasoning.offline.linking.linker import Mention
from nl2sql.reasoning.offline.linking.phrases import may_be_verb
from nl2sql.reasoning.offline.shapes.scopes import Scope, is_negation
from nl2sql.reasoning.offline.shapes.spec import Col, Cond, Query
from nl2sql.reasoning.offline.shapes.state import Analysis
from nl2sql.reasoning.offline.words.text import canon, noun_lemmas, split_identifier

_BE = frozenset("is are was were be been being 's".split())
# "rooms that have a sea view", "rooms with a sea view": a flag named as something they have
_HAVE = frozenset("have has had with".split())
_ARTICLES = frozenset("a an".split())
# the verbs a flag's name begins with ("is_loyalty_member", "has_sea_view")
_IS = frozenset("is has".split())
_RELATIVE = frozenset("who that which".split())
_DO = frozenset("do does did".split())
# words between "be" and the flag that keep it a predicate ("are currently active")
_BETWEEN = frozenset("currently still now also all both".split())


def flag_conditions(a: Analysis, q: Query, scope: Scope | None = None) -> list[Cond]:
    """Rule helper: one condition per flag mention used as a predicate (marked used); with a
    negation's `scope`, those of the rows an anti-join excludes ("no rooms with a sea view"),
    which `negation.reserve_negated_tables` kept aside."""
    out: list[Cond] = []
    for m in a.question.mentions:
        if scope is None and m.start in a.used or a.res.table(m) or not m.columns():
            continue
        if scope is not None and not (
            scope.start <= m.start < scope.end and m.start in a.absorbed):
            continue
        use = _predicate(a, m)
        if use is None:
            continue
        owner, negation = use
        col = _flag_column(a, m, owner or q.root)
        values = flag_values(a.question.idx, col.table, col.column) if col is not None else None
        if col is None or values is None or values == (None, None):
            continue
        true, false = values
        negated = negation is not None
        if negation is not None:
            a.negations_done.add(negation)
        if true is None:  # only false is stored: "active" means "not the false value"
            cond = Cond(col, "=" if negated else "!=", [false], text=m.text, pos=m.start)
        elif negated and false is not None:
            cond = Cond(col, "=", [false], text=f"not {m.text}", pos=m.start)
        else:
            cond = Cond(col, "=", [true], negated=negated, text=m.text, pos=m.start)
        a.used.add(m.start)
        a.res.add_context(col.table)
        a.notes.append(f"'{'not ' if negated else ''}{m.text}' read as the yes/no column {col.ref}")
        out.append(cond)
    return out


def _flag_column(a: Analysis, m: Mention, owner: str) -> Col | None:
    """The column of the strongest reading of `m` in the table it describes; None when that
    reading is not a column of it (a table, or another table's column)."""
    top = m.candidates[0].score
    best = [e for e in m.columns() if e.score >= top - 1e-6 and e.table == owner]
    return Col(owner, best[0].column) if len(best) == 1 and best[0].column else None


def _predicate(a: Analysis, m: Mention) -> tuple[str | None, int | None] | None:
    """How a mention is used: None when not as a predicate; else (the table it describes, when
    a noun names it, and the index of the negation before it)."""
    tokens, mentions = a.question.tokens, a.question.mentions
    nxt = next((x for x in mentions if x.start == m.end), None)
    described = a.res.table(nxt) if nxt is not None else None
    # words of the column's own name before the mention ("in stock" of in_stock)
    named = {w.lower() for e in m.columns() for w in split_identifier(e.column or "")}
    i, negation = m.start - 1, None
    while i >= 0 and (tokens[i].low in _BETWEEN | named or is_negation(tokens[i])):
        if is_negation(tokens[i]):
            negation = tokens[i].index
        i -= 1
    had = i >= 1 and tokens[i].low in _ARTICLES and tokens[i - 1].low in _HAVE
    # "are active", "is not VIP", "aren't discontinued", "have a sea view"
    contracted = negation is not None and tokens[negation].low[:-3] in _BE
    after_be = (i >= 0 and tokens[i].low in _BE) or contracted or had
    if had:
        i -= 1
    if i >= 1 and tokens[i].low == "been" and negation is None:
        # "rooms that have not been renovated": the negation is before the auxiliary
        j = i - 1
        if is_negation(tokens[j]):
            negation, j = tokens[j].index, j - 1
        if j >= 0 and tokens[j].low in _HAVE:
            i = j
    if described is None and after_be:
        # "customers who are active": the subject is the table named last before the verb
        before = [t for x in mentions if x.end <= i + 1 and (t := a.res.table(x))]
        described = before[-1] if before else None
    if described is None and not after_be:
        described = _subject_of(a, m, i) or _members(a, m)
        if described is None:
            return None
    return described, negation


def _subject_of(a: Analysis, m: Mention, i: int) -> str | None:
    """ "participants (who) completed their trial", "… did not complete it": a flag named by a
    verb and its object, said right after the table that does it (`i`: the word before the
    verb and any negation); that table, or None."""
    tokens = a.question.tokens
    if not may_be_verb(tokens[m.start]):
        return None
    if i >= 0 and tokens[i].low in _DO:
        i -= 1
    while i >= 0 and tokens[i].low in _RELATIVE:
        i -= 1
    before = next((x for x in a.question.mentions if x.end == i + 1), None)
    return a.res.table(before) if before is not None else None


def _members(a: Analysis, m: Mention) -> str | None:
    """ "loyalty members who come from Germany": a plural noun that a flag `is_<noun>` names is
    the rows holding the flag; the flag's table, or None."""
    last = a.question.tokens[m.end - 1]
    if last.kind != "word" or last.low in noun_lemmas(last.low) or not noun_lemmas(last.low):
        return None  # a singular word or no noun: "the loyalty member flag"
    tables = set()
    for e in m.columns():
        words = [w.lower() for w in split_identifier(e.column or "")]
        if len(words) > 1 and words[0] in _IS and canon(words[-1]) == last.canon:
            tables.add(e.table)
    return tables.pop() if len(tables) == 1 else None
