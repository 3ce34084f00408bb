"""Rules that refuse a reading which silently dropped a word that changes the answer.

They run after the shape: a negation or an "or" the conditions took is recorded in the state
(`Analysis.negations_done`, `Analysis.ors_done`); one left over would be read as if absent, and
so would a column the question names that the query never reads.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any

from nl2sql.reasoning.offline.shapes.scopes import is_negation
from nl2sql.reasoning.offline.shapes.spec import Col, Unclear
from nl2sql.reasoning.offline.shapes.state import Analysis
from nl2sql.reasoning.offline.words import cues as C
from nl2sql.reasoning.offline.words.text import FRAME, Token


def check_negations(a: Analysis) -> None:
    """Rule: a negation no condition took ("never won", "do not have") would be dropped."""
    taken = set(a.question.scan.taken) | a.negations_done
    for v in a.question.linking.values:
        # "not in Oslo": a negation right before a value is the value condition's (!=)
        taken.update(range(max(0, v.start - 3), v.start))
    for tok in a.question.tokens:
        if tok.index not in taken and (is_negation(tok) or tok.low in ("none", "neither", "nor")):
            raise Unclear(
                f"could not apply '{tok.text}' to a condition (negations are supported on values only)"
            )


def check_alternatives(a: Analysis) -> None:
    """Rule: refuse "or" except between values of one column ("Fantasy or History") or between
    conditions an OR group took."""
    tokens, values = a.question.tokens, a.question.linking.values
    for tok in tokens:
        if tok.low != "or" or tok.index in a.question.scan.taken or tok.index in a.ors_done:
            continue
        left = [v for v in values if v.end <= tok.index]
        right = [v for v in values if v.start > tok.index]
        ok = left and right and _only_function_words(tokens[left[-1].end : right[0].start])
        same = ok and {o[:2] for o in left[-1].options} & {o[:2] for o in right[0].options}
        if not same:
            raise Unclear(
                "'or' between different conditions is not supported (only between values of one column)"
            )


def _only_function_words(tokens: list[Token]) -> bool:
    return all(
        t.kind == "punct" or t.low in ("or", "the", "a", "an", "in", "from", "of", "is", "are")
        for t in tokens
    )


def check_columns_read(a: Analysis) -> None:
    """Rule: a quantity the question names that no part of the query reads ("spends the most on
    player wages" ranked by the number of players) would be read as if absent. A word of the
    question's frame or an aggregate's ("number", "average") is a cue, whatever it names."""
    read: set[str] = set()
    _columns(a.result(), read)
    idx, tokens = a.question.idx, a.question.tokens
    # "the most awards", "never won an award", "the highest season payout": read otherwise
    absorbed = a.absorbed | set(a.negated_mentions)
    for m in a.question.mentions:
        named = m.candidates
        words = {t.low for t in tokens[m.start : m.end]}
        if not named or words & (FRAME | set(C.AGG_WORDS)) or any(
            e.column is None or e.metric or idx.kind(e.table, e.column) != "number" for e in named
        ):
            continue  # a table left over is `existence_joins`' to read
        if m.start not in absorbed and not any(e.ref in read for e in named):
            raise Unclear(f"could not tell how '{m.text}' applies to the question")


def _columns(node: Any, out: set[str]) -> None:
    """The columns anywhere in a query: its clauses, conditions and nested queries."""
    if isinstance(node, Col):
        out.add(node.ref)
    elif is_dataclass(node) and not isinstance(node, type):
        for f in fields(node):
            _columns(getattr(node, f.name), out)
    elif isinstance(node, list | tuple | set):
        for item in node:
            _columns(item, out)
