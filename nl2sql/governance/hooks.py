"""Hooks: Python functions that govern a run before it starts and each query before it executes.

    session.hooks.add("run.before", fn)      # fn(question, ctx) -> "allow" | "deny" | new question | Decision
    session.hooks.add("execute.before", fn)  # fn(sub_query, plan, sql, ctx) -> "allow" | "deny"
                                             #   | "require_approval" | Decision

Hooks run in the order they were added. run.before rewrites chain (each hook sees the previous
one's question); the first deny ends the run. execute.before hooks all run and the strictest
decision wins (deny > require_approval > allow). A hook that raises, or returns anything else, is
a `HookError`: the run or sub-query stops with a clear error — never a silent allow.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from nl2sql.decomposition import SubQuery
from nl2sql.errors import NL2SQLError, safe_one_line
from nl2sql.governance.approvals import Approval
from nl2sql.governance.touches import Touches, sql_touches
from nl2sql.plan import PlanModel
from nl2sql.schema.models import SchemaSnapshot
from nl2sql.security.rbac import UserContext

RUN_BEFORE = "run.before"
EXECUTE_BEFORE = "execute.before"
EVENTS = (RUN_BEFORE, EXECUTE_BEFORE)

Action = Literal["allow", "deny", "rewrite", "require_approval"]
_STRICTNESS = {"allow": 0, "require_approval": 1, "deny": 2}


@dataclass(frozen=True)
class Decision:
    """A hook's answer; the strings "allow", "deny" and "require_approval" abbreviate it."""

    action: Action
    reason: str = ""
    question: str | None = None  # rewrite: the new question

    @classmethod
    def allow(cls, reason: str = "") -> Decision:
        return cls("allow", reason)

    @classmethod
    def deny(cls, reason: str = "") -> Decision:
        return cls("deny", reason)

    @classmethod
    def require_approval(cls, reason: str = "") -> Decision:
        return cls("require_approval", reason)

    @classmethod
    def rewrite(cls, question: str, reason: str = "") -> Decision:
        return cls("rewrite", reason, question)


class HookError(NL2SQLError):
    """A hook raised or returned something that is not a decision."""

    def __init__(self, event: str, hook: str, message: str):
        super().__init__(f"{event} hook {hook!r} {message}")
        self.event = event
        self.hook = hook


@dataclass(frozen=True)
class RunHookContext:
    """What a run.before hook knows about the run."""

    user: UserContext
    datasource_id: str | None
    datasources: tuple[str, ...]


@dataclass(frozen=True)
class ExecuteHookContext:
    """What an execute.before hook knows about the query about to run."""

    question: str
    user: UserContext
    datasource_id: str
    dialect: str
    snapshot: SchemaSnapshot  # as this user sees it (row counts per table included)
    request_id: str  # the ApprovalRequest id this query would get
    sql: str = ""
    approvals: tuple[Approval, ...] = ()
    curated: bool = False  # a verified answer from the curated file

    @property
    def approved(self) -> bool:
        """True when this exact query (question, sub-query, plan, SQL) was approved."""
        return any(a.request_id == self.request_id and a.approved for a in self.approvals)

    @cached_property
    def touches(self) -> Touches:
        """The tables and columns the SQL reads (conservative when unresolvable)."""
        try:
            return sql_touches(self.sql, self.dialect, self.snapshot)
        except ValueError:  # unparseable SQL never runs (the guard refuses it); read nothing
            return Touches(frozenset(), frozenset(), has_limit=False, exact=False)


@dataclass(frozen=True)
class _Hook:
    name: str
    fn: Callable[..., Any]


class HookRegistry:
    """The hooks of a session, per event, in the order they were added (thread-safe)."""

    def __init__(self) -> None:
        self._hooks: dict[str, list[_Hook]] = {e: [] for e in EVENTS}
        self._lock = threading.Lock()

    def add(self, event: str, fn: Callable[..., Any], *, name: str | None = None) -> Callable[..., Any]:
        """Register `fn` for `event` ("run.before" or "execute.before"); returns `fn`."""
        if event not in self._hooks:
            raise ValueError(f"unknown hook event {event!r}; choose one of {', '.join(EVENTS)}")
        if not callable(fn):
            raise TypeError("a hook must be callable")
        with self._lock:
            self._hooks[event].append(_Hook(name or str(getattr(fn, "__name__", repr(fn))), fn))
        return fn

    def remove(self, event: str, fn_or_name: Callable[..., Any] | str) -> bool:
        """Unregister a hook by function or name; True when one was removed."""
        with self._lock:
            hooks = self._hooks.get(event, [])
            for hook in hooks:
                if hook.fn is fn_or_name or hook.name == fn_or_name:
                    hooks.remove(hook)
                    return True
        return False

    def names(self, event: str) -> list[str]:
        return [h.name for h in self._list(event)]

    def _list(self, event: str) -> list[_Hook]:
        with self._lock:
            return list(self._hooks[event])

    def run_before(self, question: str, ctx: RunHookContext) -> tuple[str, Decision, list[str]]:
        """(final question, deciding Decision, notes). Raises HookError on a broken hook."""
        notes: list[str] = []
        for hook in self._list(RUN_BEFORE):
            decision = _call(RUN_BEFORE, hook, question, ctx, run_before=True)
            if decision.action == "deny":
                return question, decision, notes
            if decision.action == "rewrite" and decision.question and decision.question != question:
                notes.append(f"{hook.name} rewrote the question to {decision.question!r}"
                             + (f" ({decision.reason})" if decision.reason else ""))
                question = decision.question
        return question, Decision.allow(), notes

    def execute_before(self, sub_query: SubQuery, plan: PlanModel | None, sql: str,
                       ctx: ExecuteHookContext) -> tuple[Decision, str | None]:
        """The strictest decision of every execute.before hook, and the name of the hook that
        made it (None when all allowed). Raises HookError on a broken hook."""
        final, by = Decision.allow(), None
        for hook in self._list(EXECUTE_BEFORE):
            decision = _call(EXECUTE_BEFORE, hook, sub_query, plan, sql, ctx)
            if _STRICTNESS[decision.action] > _STRICTNESS[final.action]:
                final, by = decision, hook.name
            if final.action == "deny":
                break
        return final, by

    def __repr__(self) -> str:
        return f"HookRegistry({ {e: self.names(e) for e in EVENTS} })"


def _call(event: str, hook: _Hook, *args: Any, run_before: bool = False) -> Decision:
    try:
        value = hook.fn(*args)
    except Exception as exc:  # reported, never swallowed into an allow
        raise HookError(event, hook.name, f"raised {type(exc).__name__}: {safe_one_line(exc)}") from exc
    return _decision(event, hook.name, value, run_before)


def _decision(event: str, name: str, value: Any, run_before: bool) -> Decision:
    allowed = ("allow", "deny", "rewrite") if run_before else ("allow", "deny", "require_approval")
    if isinstance(value, Decision) and value.action in allowed:
        if value.action == "rewrite" and not (isinstance(value.question, str) and value.question.strip()):
            raise HookError(event, name, "returned a rewrite without a question")
        return value
    if isinstance(value, str) and value in allowed and value != "rewrite":
        return Decision(value)  # type: ignore[arg-type]
    if run_before and isinstance(value, str) and value.strip():
        return Decision.rewrite(value.strip())
    expected = "'allow', 'deny', a rewritten question" if run_before else "'allow', 'deny', 'require_approval'"
    raise HookError(event, name, f"returned {value!r}; expected {expected} or a Decision")
