"""Answerability: does any datasource link the question's words with enough confidence?

A datasource scores 1 per strong link (a table or column named by its name, human-readable name or
qualified form, or a stored sample value) and 0.5 per weak link (a column's head noun such as "price" for
`list_price`). The question is answerable by every datasource scoring at least 1; otherwise the
reason names the words nothing matched ("no table or column matches 'weather'").
"""

from __future__ import annotations

from nl2sql.reasoning.base import AnswerabilityResponse
from nl2sql.reasoning.offline.catalog.cache import IndexCache
from nl2sql.reasoning.offline.linking.linker import Linking, link_words
from nl2sql.reasoning.offline.words.scan import Scan, scan
from nl2sql.reasoning.offline.words.text import FRAME, STOP, Token
from nl2sql.schema.models import SchemaSnapshot

GREETINGS = frozenset(
    """hi hello hey hiya howdy yo greetings thanks thank cheers bye goodbye morning afternoon
    evening night ok okay yes no sure please help""".split()
)
_STRONG = 0.7  # table head nouns ("requests" for help_requests) count as strong


def link_score(linking: Linking) -> float:
    """How well a datasource explains a question (strong links 1, weak links 0.5).

    Values alone do not make a question about the data when other words match nothing
    ("the capital of France" where France is a stored country): then the score is 0.
    """
    score = sum(1.0 if m.candidates[0].score >= _STRONG else 0.5 for m in linking.mentions)
    if not linking.mentions and linking.unexplained:
        return 0.0
    return score + sum(1.0 for v in linking.values if v.options)


def describe_links(linking: Linking, limit: int = 4) -> str:
    parts = [f"'{m.text}' → {m.candidates[0].ref}" for m in linking.mentions[:limit]]
    parts += [
        f"'{v.text}' → {v.options[0][0]}.{v.options[0][1]}" for v in linking.values if v.options
    ][:2]
    return "; ".join(parts)


def check(
    question: str, datasources: dict[str, SchemaSnapshot], cache: IndexCache
) -> AnswerabilityResponse:
    """Answerable when a datasource links the question's content words well enough."""
    s = scan(question)
    content = [
        t for t in s.tokens if (t.kind == "word" and t.low not in STOP) or t.kind == "quoted"
    ]
    if not content:
        return AnswerabilityResponse(
            answerable=False, reason="the question is empty", confidence=0.95
        )
    scored: list[tuple[float, int, str, Linking]] = []
    for pos, (ds_id, snapshot) in enumerate(datasources.items()):
        linking = link_words(s.tokens, cache.get(snapshot), s.taken)
        scored.append((link_score(linking), pos, ds_id, linking))
    # "the most recent order": a frame word ("order", "number") that is a table's own name
    # makes the message about data
    named = any(
        e.score >= 1.0 for *_, linking in scored for m in linking.mentions for e in m.tables()
    )
    not_data = _not_about_data(s, content, named)
    if not_data is not None:
        return not_data
    ok = sorted((x for x in scored if x[0] >= 1.0), key=lambda x: (-x[0], x[1]))
    if not ok:
        return AnswerabilityResponse(
            answerable=False, reason=_why_not(scored, s.relative), confidence=0.8
        )
    best = ok[0]
    unexplained = [t.text for t in best[3].unexplained]
    reason = f"{best[2]}: {describe_links(best[3])}"
    if unexplained:
        reason += "; not matched: " + ", ".join(f"'{w}'" for w in unexplained[:4])
    confidence = round(min(0.95, 0.5 + 0.15 * best[0] - 0.05 * len(unexplained)), 2)
    return AnswerabilityResponse(
        answerable=True,
        datasource_ids=[x[2] for x in ok],
        reason=reason,
        confidence=max(confidence, 0.3),
    )


def _not_about_data(s: Scan, content: list[Token], named: bool) -> AnswerabilityResponse | None:
    """A refusal for messages no data can answer: greetings, and questions asking why."""
    if any(t.low == "why" for t in s.tokens):
        return AnswerabilityResponse(
            answerable=False,
            confidence=0.85,
            reason="the question asks why; the data can show what happened, not the reason for it",
        )
    if not named and all(t.low in GREETINGS or t.low in FRAME for t in content):
        return AnswerabilityResponse(
            answerable=False,
            confidence=0.9,
            reason="the message is not a question about the data (no table, column or value is named)",
        )
    return None


def _why_not(scored: list[tuple[float, int, str, Linking]], relative: list[str]) -> str:
    if not scored:
        return "no datasource is available to answer the question"
    skip = {w.lower() for phrase in relative for w in phrase.split()}
    words = [t.text for t in scored[0][3].unexplained if t.low not in skip]
    if words:
        return "no table or column matches " + ", ".join(f"'{w}'" for w in words[:5])
    return "the question names no table, column or stored value of the available datasources"
