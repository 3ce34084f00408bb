"""Negation scopes: which words each negation word of a question negates.

A negation word (not, no, never, without, except, n't) scopes the words after it up to the end of
its clause ("and", "but", a comma, a relative pronoun). The scopes depend on the tokens alone, so
they are found once, when the analysis starts (`state.start`), and read by the negation rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from nl2sql.reasoning.offline.words.text import Token

NEGATIONS = frozenset("not no never without except excluding".split())
_SKIP = frozenset(
    """have has had own owns any a an the single for do does did even with been be being
    ever one""".split()
)
_CLAUSE_END = frozenset("and but or who which that whose while".split())


@dataclass(frozen=True)
class Scope:
    cue: int  # the negation word
    start: int  # first word of what is negated
    end: int  # exclusive


def is_negation(tok: Token) -> bool:
    return tok.kind == "word" and (tok.low in NEGATIONS or tok.low.endswith(("n't", "n’t")))


def negation_scopes(tokens: list[Token]) -> list[Scope]:
    """What each negation word of the question negates (up to the end of its clause)."""
    out = []
    for tok in tokens:
        if not is_negation(tok):
            continue
        start = tok.index + 1
        while start < len(tokens) and tokens[start].low in _SKIP:
            start += 1
        end = start
        while end < len(tokens) and not (
            end > start and (tokens[end].low in _CLAUSE_END or tokens[end].kind == "punct")
        ):
            end += 1
        out.append(Scope(tok.index, start, end))
    return out
