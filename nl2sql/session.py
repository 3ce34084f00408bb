"""Session: datasources + settings + models + stores; `ask()` runs one question, and the actions
on a result (approve, reject, pin, verify, run again) are the Session's.

`nl2sql.connect()` (in `wiring.py`) opens one: with no arguments and no config file it opens the
demo sources (built on first use), so a newcomer's first question works anywhere.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nl2sql.context import CancelToken, NL2SQLContext
from nl2sql.errors import ConfigError
from nl2sql.governance import actions
from nl2sql.governance.services import Governance
from nl2sql.governance.stores import ApprovalStore, Damaged, PinStore, read_stored
from nl2sql.history import THREAD_RUNS, History, history_file
from nl2sql.progress import listening, step
from nl2sql.question import checked_question
from nl2sql.result import QueryResult
from nl2sql.security.rbac import UserContext
from nl2sql.settings import FileConfig, Settings

if TYPE_CHECKING:
    import pandas as pd

    from nl2sql.conversation import FollowUp
    from nl2sql.governance.approvals import Approval, PinnedRun
    from nl2sql.governance.curated import CuratedAnswer
    from nl2sql.governance.hooks import HookRegistry
    from nl2sql.pipeline.runtime import RunPool
    from nl2sql.schema.models import SchemaSnapshot
    from nl2sql.security.rbac import PolicySet
    from nl2sql.semantic.suggest import Suggestion


class Session:
    """An analyst's connection to their datasources. Thread-safe: runs never share mutable state."""

    def __init__(self, context: NL2SQLContext, *, config: FileConfig, folder: Path,
                 user: UserContext | None = None):
        """`context` is composed already (its governance included); `folder` is the project
        folder where pins and approval decisions persist."""
        if context.governance is None:
            raise ConfigError("a Session needs a context with its governance: open one with nl2sql.connect()")
        self.context = context
        #: policies (RBAC), hooks and curated answers, as the config declares them
        self.governance: Governance = context.governance
        self.config = config
        self.folder = folder
        self.layer_file: Path | None = None  # the semantic layer file teach() writes to
        self.layer_given = False  # the layer came as a mapping (connect(semantic={...})): no file
        self.user = user or UserContext()
        #: pinned runs and approval decisions, persisted in the project folder
        self.pins = PinStore(folder / "pins")
        self.approvals = ApprovalStore(folder / "approvals")
        #: every run of the project, persisted in the project folder (`history.jsonl`)
        self.history = History(self, history_file(folder))
        # the conversation: (run number, result) of this session's runs, oldest first
        self._thread: list[tuple[int, QueryResult]] = []
        self._graphs: dict[tuple[bool, bool, bool], Any] = {}
        self._lock = threading.Lock()
        self._on_close: list[weakref.finalize[..., Any]] = []
        self._pool: RunPool | None = None

    @property
    def runs(self) -> RunPool:
        """The session's run workers, started on the first run and reused by every later one."""
        with self._lock:
            if self._pool is None:
                from nl2sql.pipeline.runtime import RunPool

                self._pool = RunPool()
                self._on_close.append(weakref.finalize(self, self._pool.close))
            return self._pool

    @property
    def hooks(self) -> HookRegistry:
        """The session's hooks: `session.hooks.add("execute.before", fn)`."""
        return self.governance.hooks

    @property
    def policies(self) -> PolicySet | None:
        """The role policies in force (None: no policy, everything allowed)."""
        return self.governance.policies

    def set_policies(self, policies: Any) -> None:
        """Replace the role policies: a PolicySet, a {"roles": ...} mapping, a YAML path, or None."""
        from nl2sql.security.rbac import PolicySet

        self.governance.policies = PolicySet.coerce(policies)

    def unpin(self, question: str, datasource: str | None = None) -> bool:
        """Forget the pinned run of `question`; True when there was one."""
        return self.pins.remove(question.strip(), datasource)

    @property
    def settings(self) -> Settings:
        return self.context.settings

    @property
    def datasources(self) -> list[str]:
        return list(self.context.datasources)

    def schema(self, datasource: str) -> SchemaSnapshot:
        """The SchemaSnapshot of one datasource, as the session's user may see it."""
        if datasource not in self.context.datasources:
            raise ConfigError(f"unknown datasource {datasource!r}; known: {', '.join(self.datasources)}")
        return self.governance.access_for(self.user).filter(self.context.schemas.get(datasource))

    def refresh(self, datasource: str | None = None) -> None:
        """Introspect `datasource` (every one when None) again at its next use.

        Snapshots are reused across processes while a source's catalog fingerprint is unchanged;
        a server's fingerprint covers its tables and columns, not its rows, so new values (or a
        changed description) need this.
        """
        if datasource is not None and datasource not in self.context.datasources:
            raise ConfigError(f"unknown datasource {datasource!r}; known: {', '.join(self.datasources)}")
        self.context.schemas.refresh(datasource)

    def graph(self, execute: bool = True, *, resumable: bool = False) -> Any:
        """The compiled graph; with curated answers configured, the curated matcher leads it.
        A resumable one has an in-memory checkpointer (one thread per re-run, deleted after)."""
        key = (execute, self.governance.curated_configured, resumable)
        with self._lock:
            if key not in self._graphs:
                with step("pipeline", "Loading the pipeline"):
                    self._graphs[key] = self._build_graph(key, resumable)
            return self._graphs[key]

    @staticmethod
    def _build_graph(key: tuple[bool, bool, bool], resumable: bool) -> Any:
        from nl2sql.pipeline.graph import build_graph, resumable_checkpointer

        saver = resumable_checkpointer() if resumable else None
        return build_graph(execute=key[0], curated=key[1], checkpointer=saver)

    # -- running ------------------------------------------------------------------------------
    def ask(
        self,
        question: str,
        datasource: str | None = None,
        execute: bool = True,
        plan: Any = None,
        *,
        user: UserContext | None = None,
        timeout_s: float | None = None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        cancel_token: CancelToken | None = None,
        callbacks: list[Any] | None = None,
        follow_up: bool = True,
    ) -> QueryResult:
        """Answer `question` through the whole pipeline; never raises for a pipeline failure.

        A short question that reads as a follow-up ("And in 2023?", "only the top 5", "by region
        instead") edits the plan of the session's latest answered run (`nl2sql/conversation.py`);
        its reasoning names the run it follows. `follow_up=False` asks it as a question of its own.

        `callbacks` are LangChain callback handlers (a LangSmith tracer, your own
        BaseCallbackHandler) attached to the graph run.

        `plan` (a PlanModel or its dict) runs that plan instead of planning (a pin of source
        "supplied"); otherwise a pin stored for the question (`QueryResult.pin()`) is used.
        """
        question = checked_question(question, self.settings.max_question_chars)
        run: dict[str, Any] = {"user": user or self.user, "timeout_s": timeout_s, "on_event": on_event,
                               "cancel_token": cancel_token, "callbacks": callbacks}
        if follow_up and plan is None:
            from nl2sql.conversation import looks_like_follow_up

            if looks_like_follow_up(question):
                return self._follow(question, datasource, execute, run)
        pinned: PinnedRun | None
        if plan is not None:
            pinned = actions.supplied_pin(self.context, question, plan, datasource)
        else:
            pinned = read_stored(lambda: self.pins.get(question, datasource), None, "pin")
        return self._run(question, datasource, execute, pinned=pinned, **run)

    def _follow(self, question: str, datasource: str | None, execute: bool,
                run: dict[str, Any]) -> QueryResult:
        """A follow-up: the latest answered run's plan edited by `question`, or a refusal."""
        from nl2sql.conversation import FollowUpRefused, refused_result, resolve

        try:
            follow = resolve(self, question, list(self._thread), datasource)
        except FollowUpRefused as exc:
            return self._recorded(refused_result(self, question, execute, run["user"], str(exc)))
        return self._run_follow_up(question, follow, execute, run)

    def _run_follow_up(self, question: str, follow: FollowUp, execute: bool,
                       run: dict[str, Any]) -> QueryResult:
        from nl2sql.conversation import follow_up_pin

        asked, pinned = follow_up_pin(self, question, follow)
        return self._run(asked, follow.datasource, execute, pinned=pinned, follow=follow,
                         shown_as=question, **run)

    def rerun(self, result: QueryResult) -> QueryResult:
        """Ask `result`'s question again, with the same options (a follow-up: its resolved edit)."""
        if result.follow_up is not None:
            return self._run_follow_up(result.question, result.follow_up, result.executed,
                                       {"user": result.user or self.user})
        return self.ask(result.question, datasource=result.datasource, execute=result.executed,
                        user=result.user, follow_up=False)

    def rerun_from(self, result: QueryResult, node_id: int, *,
                   on_event: Callable[[dict[str, Any]], None] | None = None,
                   timeout_s: float | None = None, callbacks: list[Any] | None = None) -> QueryResult:
        """Continue the graph from trace node `node_id` of `result` (ARCHITECTURE §9).

        The state at that node is rebuilt from the trace (`StateTree.state_at`) and the graph
        resumes as if that node had just returned it: the nodes after it run again, the ones
        before it do not (re-run from the decomposer: the same sub-queries are planned and run
        again). The new run has its own trace id, so it never overwrites `result`'s artifacts.
        ValueError for a node inside a sub-query's run (re-run from the merge after it)."""
        from nl2sql.pipeline.runtime import resume_point, run_with_graph

        as_node, state = resume_point(result.trace, node_id)
        with listening(on_event):
            graph = self.graph(result.executed, resumable=as_node is not None)
        outcome = run_with_graph(graph, self.context, result.question, datasource_id=result.datasource,
                                 user_context=result.user or self.user, timeout_s=timeout_s,
                                 on_event=on_event, callbacks=callbacks, resume=(as_node, state),
                                 pool=self.runs)
        return self._recorded(QueryResult(outcome, self, question=result.question,
                                          datasource=result.datasource, execute=result.executed,
                                          user=result.user))

    def _recorded(self, result: QueryResult) -> QueryResult:
        """Number `result` in the history and add it to the conversation."""
        result.run_number = self.history.record(result)
        with self._lock:  # the latest runs only: each holds its tables in memory
            self._thread = [*self._thread[-(THREAD_RUNS - 1):], (result.run_number, result)]
        return result

    def _run(self, question: str, datasource: str | None, execute: bool, *, user: UserContext | None,
             pinned: Any = None, approvals: list[Approval] | None = None, timeout_s: float | None = None,
             on_event: Callable[[dict[str, Any]], None] | None = None,
             cancel_token: CancelToken | None = None, callbacks: list[Any] | None = None,
             follow: FollowUp | None = None, shown_as: str | None = None) -> QueryResult:
        """One run with the entrypoint's fields: the pin, and the approval decisions on record
        for the question plus `approvals` (which win). A follow-up's note leads its reasoning;
        `shown_as` is the question the result shows when the pipeline asked another."""
        with listening(on_event):  # a first run loads and compiles the graph: the listener hears it
            graph = self.graph(execute)
        from nl2sql.pipeline.runtime import run_with_graph

        on_record = read_stored(lambda: self.approvals.for_question(question), [], "approvals")
        decisions = {a.request_id: a for a in on_record}
        decisions.update({a.request_id: a for a in approvals or []})
        notes = [n for n in (pinned, on_record) if isinstance(n, Damaged)]
        outcome = run_with_graph(
            graph,
            self.context,
            question,
            datasource_id=datasource,
            user_context=user or self.user,
            timeout_s=timeout_s,
            on_event=on_event,
            cancel_token=cancel_token,
            callbacks=callbacks,
            pool=self.runs,
            initial={"pinned": None if isinstance(pinned, Damaged) else pinned,
                     "approvals": list(decisions.values()),
                     "errors": [n.warning for n in notes],
                     "reasoning": [follow.reasoning] if follow else []},
        )
        result = QueryResult(outcome, self, question=shown_as or question, datasource=datasource,
                             execute=execute, user=user or self.user)
        result.follow_up = follow
        return self._recorded(result)

    def sql(self, datasource: str, sql: str) -> pd.DataFrame:
        """Run one read-only statement on `datasource` (an inserted SQL cell) as a generated query
        runs: RBAC, execute.before hooks, SQL guard, row cap, timeout. ValueError when it may not."""
        from nl2sql.governance.direct import run_sql

        return run_sql(self.context, datasource, sql, self.user).to_pandas()

    # -- actions on a result (the widget's buttons) -------------------------------------------
    def approve(self, result: QueryResult, request_ids: str | Iterable[str] | None = None, *,
                by: str | None = None, note: str | None = None) -> QueryResult:
        """Approve `result`'s held queries (all by default) and run again on exactly those plans.

        The approved plans are kept as the question's pin (source "approved"): asking it again
        runs them without re-planning, so a model whose output varies cannot make a different
        plan that would be held again (ARCHITECTURE §10). `unpin(question)` forgets it."""
        requests = actions.chosen_requests(result.approvals_needed, request_ids)
        decided = actions.approvals_for(requests, approved=True, by=by or _who(result), note=note)
        for request, approval in zip(requests, decided, strict=True):
            self.approvals.record(request, approval)
        pinned = actions.approved_pin(decided, requests, result.decomposition,
                                      result.state.user_query, result.pinned)
        if pinned is not None:
            self.pins.save(result.question, pinned, result.datasource)
        return self._run(result.question, result.datasource, result.executed, user=result.user,
                         pinned=pinned, approvals=decided)

    def reject(self, result: QueryResult, request_ids: str | Iterable[str] | None = None, *,
               by: str | None = None, note: str | None = None) -> QueryResult:
        """Record the refusal of `result`'s held queries; the returned result shows them dropped.
        Nothing runs."""
        from nl2sql.pipeline.runtime import RunOutcome

        requests = actions.chosen_requests(result.approvals_needed, request_ids)
        who = by or _who(result)
        for request, decision in zip(requests, actions.approvals_for(requests, approved=False, by=who,
                                                                     note=note), strict=True):
            self.approvals.record(request, decision)
        refusals = [actions.refusal(r, who, note) for r in requests]
        updated = result.state.with_rejections(list(zip(requests, refusals, strict=True)))
        outcome = RunOutcome(updated, result.trace, result.trace_final_node, 0.0)
        return QueryResult(outcome, self, question=result.question, datasource=result.datasource,
                           execute=result.executed, user=result.user)

    def choose(self, result: QueryResult, number: int) -> QueryResult:
        """Run reading `number` (1 first) of a needs_clarification `result`: its plan runs as a
        supplied plan (validated, guarded, executed read-only), for the same question."""
        from nl2sql.clarify import pick

        chosen = pick(result, number)
        pinned = actions.supplied_pin(self.context, result.question, chosen.plan, chosen.datasource)
        # the run keeps the question's own datasource choice, so pinning it serves the question
        return self._run(result.question, result.datasource, result.executed,
                         user=result.user or self.user, pinned=pinned)

    def teach(self, what: Suggestion | Mapping[str, Any], *, file: str | Path | None = None,
              dry_run: bool = False) -> str:
        """Write a checked layer entry into the layer file and use it (nl2sql/semantic/teach.py)."""
        from nl2sql.semantic.teach import teach

        return teach(self, what, file=file, dry_run=dry_run)

    def pin(self, result: QueryResult) -> PinnedRun:
        """Keep `result`'s decomposition and plans: its question runs on them next time."""
        if result.verified_match is not None:
            raise ValueError("this answer is a curated one: it already runs its verified query")
        outputs = [(o.sub_query, o) for o in result.sub_queries if o.sub_query is not None]
        pinned = actions.chosen_pin(
            result.decomposition,
            plans={sq.id: o.plan for sq, o in outputs if o.plan is not None},
            failed=[sq.id for sq, o in outputs if o.status in ("error", "dropped")],
            fingerprint=lambda ds: self.context.schemas.get(ds).fingerprint,
            question=result.state.user_query,
        )
        self.pins.save(result.question, pinned, result.datasource)
        return pinned

    def verify(self, result: QueryResult, *, by: str | None = None, note: str | None = None,
               template: bool = False) -> CuratedAnswer:
        """Promote a successful run of one query to a curated answer (`.nl2sql/curated.yaml`);
        with `template`, the values its question names become parameters (curated_template)."""
        if result.status != "success" or not result.executed:
            raise ValueError(f"only a successful, executed run can be verified (this one: {result.status})")
        outputs = [(o.sub_query, o.sql_draft) for o in result.sub_queries
                   if o.sql_draft and o.sub_query is not None]
        decomposition = result.decomposition
        if len(outputs) != 1 or (decomposition is not None and decomposition.post_combine_ops):
            raise ValueError("a curated answer is one query on one datasource; this run combines "
                             f"{len(outputs)} sub-queries")
        curated = self.governance.curated
        if curated is None:
            raise ValueError("curated answers are not available in this session")
        answer = actions.curated_answer(result.state.user_query, outputs[0][0].datasource_id, outputs[0][1],
                                        by=by or _who(result), note=note, template=self.context if template else None)
        curated.promote(answer)
        return answer

    # -- lifetime -----------------------------------------------------------------------------
    def on_close(self, cleanup: Callable[[], None]) -> None:
        """Run `cleanup` when the session closes or is garbage-collected, at most once."""
        self._on_close.append(weakref.finalize(self, cleanup))

    def close(self) -> None:
        """Close every datasource and delete what the session made for itself (frames copies)."""
        for adapter in self.context.datasources.values():
            adapter.close()
        self.context.close_combiner()
        self.context.artifacts.wait_pruned()
        for finalizer in self._on_close:
            finalizer()  # runs at most once; also runs if the session is garbage-collected

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Session(datasources={self.datasources!r})"


def _who(result: QueryResult) -> str | None:
    return result.user.user_id if result.user is not None else None
