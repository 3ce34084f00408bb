"""Rules that refuse a reading which silently dropped a word that changes the answer.

They run after the shape: a negation or an "or" the conditions took is recorded in the state
(`Analysis.negations_done`, `Analysis.ors_done`); one left over would be read as if absent.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.shapes.scopes import is_negation
from nl2sql.reasoning.offline.shapes.spec import Unclear
from nl2sql.reasoning.offline.shapes.state import Analysis
from nl2sql.reasoning.offline.words.text import Token


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
