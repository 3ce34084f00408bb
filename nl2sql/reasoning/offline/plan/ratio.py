"""Ratios of two aggregates: "the ratio of A to B", "what percentage of X are Y".

The question is read as two plain questions, each planned on its own by the usual shapes:
"the ratio of A to B" → "how many A" over "how many B" ("the total / average M …" parts keep
their aggregate); "what percentage / fraction / share of X are Y" → "how many X are Y" over
"how many X" (times 100 for a percentage). Both parts must be a single total (no groups, no
order, no limit); otherwise, or when the split word occurs more than once, the question is
refused rather than guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nl2sql.plan import (
    Arithmetic,
    Cast,
    Expr,
    Literal_,
    PlanModel,
    ScalarSubquery,
    SelectItem,
    is_aggregate,
    walk,
)

_LEAD = (
    r"^(?:(?:what|how)\s+(?:is|was|are)\s+|what's\s+|what\s+|(?:calculate|compute|find|show|give|return|"
    r"get|tell)\s+(?:me\s+)?)?(?:the\s+)?"
)
_RATIO = re.compile(_LEAD + r"(?:ratio|proportion)\s+(?:of|between)\s+(?P<rest>.+)$", re.I)
_RATIO_SPLIT = re.compile(r"\s+(?:to|out of|versus|vs\.?|and)\s+(?:all\s+(?:the\s+)?)?", re.I)
_SHARE = re.compile(
    _LEAD + r"(?P<kind>percentage|percent|fraction|share|proportion)\s+of\s+(?:all\s+)?(?:the\s+)?"
    r"(?P<rest>.+)$",
    re.I,
)
_MAIN_VERBS = {"are", "is", "were", "was", "have", "has", "had"}
_RELATIVES = {"that", "which", "who"}
# phrases that name the whole data, no condition: "in the database", "overall"
_WHOLE = re.compile(
    r"\s+(?:in\s+(?:the|this|our)\s+(?:database|data|dataset)|overall|in\s+total|altogether)$",
    re.I,
)
_SCOPE = re.compile(
    r"^.+?\s+(?P<scope>(?P<prep>in|at|from|within|among|during)\s+(?!each\b|every\b).+)$",
    re.I,
)
_AGGREGATE_LEAD = re.compile(
    r"^(?:the\s+)?(?:total|number|count|sum|average|mean|amount|maximum|minimum|highest|lowest)\b",
    re.I,
)


@dataclass(frozen=True)
class RatioQuestion:
    """The two plain questions of a ratio, and the factor (100 for a percentage)."""

    numerator: str
    denominator: str
    factor: float = 1.0
    scope: str = ""  # a trailing phrase read as applying to both sides ("… in Oslo")


def ratio_question(text: str) -> RatioQuestion | None:
    """The two parts of a ratio question, or None when the question asks no ratio."""
    text = text.strip().rstrip("?.! ")
    ratio = _RATIO.match(text)
    splits = list(_RATIO_SPLIT.finditer(ratio.group("rest"))) if ratio else []
    if ratio and len(splits) == 1:
        rest, cut = _WHOLE.sub("", ratio.group("rest")), splits[0]
        top, bottom, scope = _shared_scope(rest[: cut.start()], rest[cut.end() :])
        return RatioQuestion(_as_question(top), _as_question(bottom), scope=scope)
    share = share_parts(text)
    if share:
        kind, whole, verb, part = share
        factor = 100.0 if kind.lower().startswith("percent") else 1.0
        return RatioQuestion(f"how many {whole} {verb} {part}", f"how many {whole}", factor)
    if ratio:
        return RatioQuestion("", "")  # no split word, or several: which one is unclear
    return None


def share_parts(text: str) -> tuple[str, str, str, str] | None:
    """(kind, whole, verb, part) of "what percentage of shops are in Oslo" ("percentage",
    "shops", "are", "in Oslo"), or None for any other question."""
    share = _SHARE.match(text.strip().rstrip("?.! "))
    split = _split_share(share.group("rest").split()) if share else None
    return (share.group("kind"), *split) if share and split else None


def _split_share(words: list[str]) -> tuple[str, str, str] | None:
    """(whole, verb, part): the whole ends at the first main verb outside a relative clause
    ("shops with a rating above 4 | are | in Oslo", "people who have cats | are | over 30");
    without one, at the first "with" / "that" / "which" / "who" ("shops | with | a pool")."""
    in_clause, fallback = False, None
    for i, word in enumerate(words[1:-1], start=1):
        lower = word.lower()
        if lower in _RELATIVES or lower == "with":
            fallback = i if fallback is None else fallback
            in_clause = in_clause or lower in _RELATIVES
        elif lower in _MAIN_VERBS and in_clause:
            in_clause = False  # the relative clause's own verb: "who have"
        elif lower in _MAIN_VERBS:
            return " ".join(words[:i]), word, " ".join(words[i + 1 :])
    if fallback is None:
        return None
    return " ".join(words[:fallback]), words[fallback], " ".join(words[fallback + 1 :])


def _shared_scope(top: str, bottom: str) -> tuple[str, str, str]:
    """ "A to B in Oslo": a phrase closing the second side applies to both, unless the first
    side has a phrase of its own with the same preposition ("A in Rome to B in Oslo")."""
    m = _SCOPE.match(bottom.strip())
    if m is None or re.search(rf"\b{m.group('prep')}\b", top, re.I):
        return top, bottom, ""
    scope = m.group("scope")
    return f"{top.strip()} {scope}", bottom, scope


def _as_question(part: str) -> str:
    part = part.strip(" ,")
    if not part:
        return ""
    return f"what is {part}" if _AGGREGATE_LEAD.match(part) else f"how many {part}"


def single_total(plan: PlanModel) -> Expr | None:
    """The one aggregate a plan selects when it answers with a single total, else None."""
    if plan.group_by or plan.set_operation or plan.limit is not None or plan.having:
        return None
    if len(plan.select) != 1 or plan.distinct:
        return None
    expr = plan.select[0].expr
    return expr if any(is_aggregate(n) for n in walk(expr)) else None


def ratio_plan(numerator: PlanModel, denominator: PlanModel, factor: float) -> PlanModel | None:
    """numerator's total / denominator's total as a double (× factor), or None when either
    part is not a single total."""
    top, bottom = single_total(numerator), single_total(denominator)
    if top is None or bottom is None:
        return None
    value: Expr = Arithmetic(
        op="/", left=Cast(expr=top, to="double"), right=ScalarSubquery(query=denominator)
    )
    if factor != 1.0:
        value = Arithmetic(op="*", left=Literal_(value=factor), right=value)
    name = "percentage" if factor == 100.0 else "ratio"
    return numerator.model_copy(
        update={"select": [SelectItem(expr=value, alias=name)], "order_by": []}
    )
