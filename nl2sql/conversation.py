"""The conversation of a Session: which question is a follow-up, and what it follows.

A follow-up ("And in 2023?", "only the top 5", "by region instead", "what about the crm?") is
recognized by its form, not by its words' meaning: a short question that opens with a follow-up
word (and, what about, only, just, instead, also, now, why …), or that ends with "too"/"instead",
or whose subject is a pronoun right after the verb ("show their emails", "how many of them").
A question with a subject of its own ("How many orders were placed in 2023?") never is: a wrong
merge would be a confident wrong answer, so the test is conservative.

A follow-up is resolved against the latest answered run of the session's thread as an edit of
its plan (`reasoning/offline/followup.py`) or of its datasource, and runs that edited plan; its
reasoning says which run it follows and what changed. A follow-up with nothing to follow, or
whose words are not a change the plan can take, is refused with that reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from nl2sql.errors import ErrorCode, error

if TYPE_CHECKING:
    from nl2sql.governance.approvals import PinnedRun
    from nl2sql.plan import PlanModel
    from nl2sql.result import QueryResult
    from nl2sql.security.rbac import UserContext
    from nl2sql.session import Session

#: The node name follow-up notes and refusals carry in the reasoning and errors.
CONVERSATION = "conversation"

_LEADS = frozenset({"and", "only", "just", "instead", "also", "now", "but", "then", "why", "same"})
_LEAD_PAIRS = frozenset({("what", "about"), ("how", "about"), ("what", "if")})
_TAILS = frozenset({"too", "instead"})
_PRONOUNS = frozenset({"their", "them", "those", "these", "they", "its"})
#: Words that open a question of its own; a pronoun right after one is still a follow-up.
_HEADS = frozenset({"how", "list", "show", "which", "what", "who", "count", "give", "find",
                    "display", "get", "return", "tell", "many", "much", "of", "me", "all", "add",
                    "include", "with"})
#: A follow-up is short: a longer question carries its own subject.
MAX_FOLLOW_UP_WORDS = 10
_WORD = re.compile(r"[A-Za-z0-9_]+")


def looks_like_follow_up(question: str) -> bool:
    """True when `question` reads as a follow-up of the previous one (by its form).

    >>> looks_like_follow_up("And in 2023?"), looks_like_follow_up("show their emails too")
    (True, True)
    >>> looks_like_follow_up("How many orders were placed in 2023?")
    False
    >>> looks_like_follow_up("List the customers and their emails")
    False
    """
    words = [w.lower() for w in _WORD.findall(question)]
    if not words or len(words) > MAX_FOLLOW_UP_WORDS:
        return False
    if words[0] in _LEADS or tuple(words[:2]) in _LEAD_PAIRS:
        # "and how many customers are in Texas?" names its own subject
        return not (words[0] == "and" and len(words) > 1 and words[1] in _HEADS
                    and not _PRONOUNS & set(words))
    if words[-1] in _TAILS or words[-2:] == ["as", "well"]:
        return True
    # a pronoun as the subject, right after the opening words: "show their emails", "how many of them"
    for word in words:
        if word in _PRONOUNS:
            return True
        if word not in _HEADS:
            return False
    return False


@dataclass
class FollowUp:
    """How a follow-up runs: the edited plan on `datasource` (or, for a change of datasource,
    the previous question asked there), and what changed."""

    parent: int  # the run number it follows
    parent_question: str
    datasource: str | None
    plan: PlanModel | None = None
    question: str | None = None  # the question to ask instead of planning (a datasource change)
    edits: list[str] = field(default_factory=list)
    #: for a chat-model planner: the sub-query it plans, with the followed question and plan
    intent: str | None = None

    @property
    def note(self) -> str:
        return f"follow-up of run {self.parent}: {'; '.join(self.edits)}"

    @property
    def reasoning(self) -> dict[str, str]:
        """The note as the run's first reasoning entry."""
        return {"node": CONVERSATION, "content": self.note}


class FollowUpRefused(ValueError):
    """A follow-up that cannot be resolved; the message says why (one line)."""


def resolve(session: Session, question: str, thread: list[tuple[int, QueryResult]],
            datasource: str | None = None) -> FollowUp:
    """The follow-up `question` against the latest answered run of `thread` (run number, result).
    `datasource`, when the caller names one, must be the followed run's."""
    previous = next(((n, r) for n, r in reversed(thread) if _plan_of(r) is not None), None)
    if previous is None:
        raise FollowUpRefused(
            f"'{question}' reads as a follow-up, but there is no earlier answered question in this "
            "session to follow; ask the whole question (or pass follow_up=False)")
    number, result = previous
    plan, followed = _plan_of(result), _datasource_of(result)
    assert plan is not None and followed is not None
    if datasource is not None and datasource != followed:
        raise FollowUpRefused(f"'{question}' reads as a follow-up of run {number}, which was answered "
                              f"from {followed}, not {datasource}; ask the whole question")
    other = _other_datasource(session, question, followed)
    if other is not None:
        return _moved(question, number, result, followed, other)
    datasource = followed
    if _model_plans(session):
        return FollowUp(number, result.question, datasource, intent=_model_intent(question, result, plan),
                        edits=[f"planned by the model with run {number}'s question and plan"])
    from nl2sql.reasoning.offline.catalog.index import build_index
    from nl2sql.reasoning.offline.followup import resolve as edit_plan

    snapshot = session.schema(datasource)
    adapter = session.context.datasources[datasource]
    edit = edit_plan(question, plan, build_index(snapshot), adapter.lookup_values)
    if edit.problem is not None or edit.plan is None:
        raise FollowUpRefused(f"'{question}' reads as a follow-up of run {number} "
                              f"('{result.question}'), but {edit.problem}; ask the whole question")
    return FollowUp(number, result.question, datasource, plan=edit.plan, edits=edit.edits)


def _moved(question: str, number: int, result: QueryResult, source: str, other: str) -> FollowUp:
    """"What about the crm?": the followed question, asked on `other`; nothing else may change."""
    from nl2sql.reasoning.offline.followup import FRAME_WORDS
    from nl2sql.reasoning.offline.words.text import STOP

    if result.follow_up is not None and result.follow_up.question is None:
        raise FollowUpRefused(f"run {number} is itself an edited follow-up; ask its question on "
                              f"{other} in full")
    rest = [w for w in _WORD.findall(question)
            if w.lower() not in FRAME_WORDS | STOP and w.lower() != other.lower()]
    if rest:
        raise FollowUpRefused(f"'{question}' moves run {number} to {other} and changes "
                              f"'{' '.join(rest)}' too; ask the whole question on {other}")
    return FollowUp(number, result.question, other, question=result.state.user_query,
                    edits=[f"datasource {source} → {other}"])


def refused_result(session: Session, question: str, execute: bool, user: UserContext,
                   message: str) -> QueryResult:
    """The result of a follow-up refused before the graph: QUESTION_NOT_ANSWERABLE, `message`."""
    from nl2sql.pipeline.runtime import RunOutcome
    from nl2sql.pipeline.state import GraphState, SubgraphExecutionState
    from nl2sql.pipeline.trace import StateTree, reducers_of
    from nl2sql.result import QueryResult

    state = GraphState(user_query=question, user_context=user)
    tree = StateTree(state.model_dump(), reducers_of(GraphState), reducers_of(SubgraphExecutionState))
    refused = state.model_copy(update={
        "errors": [error(CONVERSATION, ErrorCode.QUESTION_NOT_ANSWERABLE, message)],
        "reasoning": [{"node": CONVERSATION, "content": message}],
    })
    return QueryResult(RunOutcome(refused, tree, tree.root, 0.0), session, question=question,
                       datasource=None, execute=execute, user=user)


def follow_up_pin(session: Session, question: str, follow: FollowUp) -> tuple[str, PinnedRun | None]:
    """(the question the pipeline asks, the pin it runs) for a resolved follow-up: the edited
    plan; a plan for the chat model to make; or, moved to another datasource, the followed
    question planned there."""
    from nl2sql.governance.actions import supplied_pin

    if follow.plan is not None:
        return question, supplied_pin(session.context, question, follow.plan, follow.datasource)
    if follow.intent is not None:
        return question, _model_pin(question, follow)
    return follow.question or question, None


def _model_pin(question: str, follow: FollowUp) -> PinnedRun:
    """The run of a follow-up a chat model plans: one sub-query on the followed run's datasource
    whose intent carries the previous question and plan (the planner's prompt shows it), no
    pinned plan, so the SQL agent plans, validates and retries it as any sub-query."""
    from nl2sql.decomposition import DecomposerResponse, SubQuery, sub_query_id
    from nl2sql.governance.approvals import PinnedRun, PinnedSource

    assert follow.datasource is not None and follow.intent is not None
    sq = SubQuery(id=sub_query_id(follow.datasource, question, 0), datasource_id=follow.datasource,
                  intent=follow.intent)
    decomposition = DecomposerResponse(sub_queries=[sq], reasoning=follow.note)
    return PinnedRun(source=PinnedSource.SUPPLIED, decomposition=decomposition.model_dump(mode="json"),
                     plans={}, fingerprints={}, question=question)


def _model_plans(session: Session) -> bool:
    """True when the planner is a chat model (or any skill object but the offline engine)."""
    from nl2sql.names import AST_PLANNER
    from nl2sql.reasoning.offline.engine import OfflineEngine

    try:
        skill = session.context.models.skill(AST_PLANNER)
    except Exception:  # no planner at all: the run reports it; the offline edit is tried here
        return False
    return not isinstance(skill, OfflineEngine)


def _model_intent(question: str, result: QueryResult, plan: PlanModel) -> str:
    return (f"{question}\n(This is a follow-up. The previous question was: {result.state.user_query}\n"
            "Its plan, which the follow-up changes — keep everything the follow-up does not change:\n"
            f"{plan.model_dump_json(exclude_defaults=True)})")


def _plan_of(result: QueryResult) -> PlanModel | None:
    """The plan of a successful one-query run (a follow-up edits exactly one plan)."""
    if result.status != "success":
        return None
    plans = [o.plan for o in result.sub_queries if o.plan is not None]
    return plans[0] if len(plans) == 1 and len(result.sub_queries) == 1 else None


def _datasource_of(result: QueryResult) -> str | None:
    out = result.sub_queries[0] if result.sub_queries else None
    return out.sub_query.datasource_id if out is not None and out.sub_query is not None else None


def _other_datasource(session: Session, question: str, current: str) -> str | None:
    """A datasource the follow-up names by its id ("what about the crm?"), other than `current`."""
    words = {w.lower() for w in _WORD.findall(question)}
    named = [ds for ds in session.datasources if ds.lower() in words and ds != current]
    return named[0] if len(named) == 1 else None
