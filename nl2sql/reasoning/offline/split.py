"""Two-part questions: "compare A with B", "A along with B", "A and the number of B".

A shared group phrase ("for each district, …" or a trailing "… per district") is taken out and
returned separately, so each part can be planned on its own with the group appended.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nl2sql.reasoning.offline.plan.ratio import ratio_question

_GROUP = r"(?:for each|for every|per|in each|by|across)\s+(?:the\s+)?"
_COMPARE = re.compile(
    r"\bcompare\s+(?P<a>.+?)\s+(?:with|to|against|versus|vs\.?|and)\s+(?P<b>.+)$", re.I
)
_ALONG = re.compile(
    r"^(?P<a>.+?)\s+(?:along with|as well as|together with|alongside)\s+(?P<b>.+)$", re.I
)
_AND = re.compile(
    r"^(?P<a>.*\b(?:number|count|total|average|sum|amount)\s+of\s+.+?)\s+and\s+"
    r"(?P<b>(?:the\s+)?(?:number|count|total|average|sum|amount)\s+of\s+.+)$",
    re.I,
)
_LEAD = re.compile(r"^(?:show|list|give|display|what (?:is|are)|find|get)\s+(?:me\s+)?", re.I)


@dataclass(frozen=True)
class Split:
    left: str
    right: str
    operation: str  # compare | join
    group: str | None  # the shared group phrase without its cue ("district")


def split_question(question: str) -> Split | None:
    """The two parts of a compare/join question, or None (a ratio is one question)."""
    if ratio_question(question) is not None:
        return None
    text = question.strip().rstrip("?.! ")
    group, text = _take_group(text)
    for pattern, op in ((_COMPARE, "compare"), (_ALONG, "join"), (_AND, "join")):
        m = pattern.search(text)
        if m:
            left, right = _clean(m.group("a")), _clean(m.group("b"))
            if group is None:
                group, right = _take_trailing_group(right)
            if left and right:
                return Split(left, right, op, group)
    return None


def group_phrase(question: str) -> tuple[str | None, str]:
    """The group phrase of a question without its cue ("customer segment") and the rest:
    "for each X, …" or "… per X" (None and the question when it has neither)."""
    text = question.strip().rstrip("?.! ")
    group, rest = _take_group(text)
    if group is None:
        group, rest = _take_trailing_group(text)
    return group, rest.strip()


def _take_group(text: str) -> tuple[str | None, str]:
    m = re.match(rf"^{_GROUP}(?P<g>[\w ]+?)\s*,\s*(?P<rest>.+)$", text, re.I)
    if m:
        return m.group("g"), m.group("rest")
    return None, text


def _take_trailing_group(text: str) -> tuple[str | None, str]:
    m = re.match(rf"^(?P<rest>.+?)\s*,?\s+{_GROUP}(?P<g>[\w ]+)$", text, re.I)
    if m:
        return m.group("g"), m.group("rest")
    return None, text


def _clean(part: str) -> str:
    part = _LEAD.sub("", part.strip(" ,"))
    return re.sub(r"^(?:the)\s+", "", part, flags=re.I).strip()
