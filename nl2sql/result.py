"""QueryResult: what a run returns — status, answer, frames, sub-queries, errors, trace.

Everything here renders deterministically (no object ids, timestamps or absolute paths in the
text and HTML reprs), so notebooks can be compared by nbval.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal, cast

from nl2sql.errors import ErrorCode, PipelineError, RunWarning
from nl2sql.pipeline.subgraphs.schemas import SubgraphOutput

if TYPE_CHECKING:
    from pathlib import Path

    import pandas as pd
    import polars as pl
    import pyarrow as pa

    from nl2sql.clarify import Candidate
    from nl2sql.conversation import FollowUp
    from nl2sql.governance.approvals import PinnedRun
    from nl2sql.governance.curated import CuratedAnswer
    from nl2sql.pipeline.runtime import RunOutcome
    from nl2sql.pipeline.trace import StateTree
    from nl2sql.security.rbac import UserContext
    from nl2sql.semantic.suggest import Suggestion
    from nl2sql.semantic.used import LayerEntry
    from nl2sql.session import Session

Status = Literal["success", "error", "needs_approval", "needs_clarification", "not_answerable"]


class QueryResult:
    def __init__(self, outcome: RunOutcome, session: Session, *, question: str,
                 datasource: str | None, execute: bool, user: UserContext | None = None):
        state = outcome.state
        self.question = question
        self.datasource = datasource
        self.executed = execute
        self.user = user
        self.trace_id = state.trace_id
        # a policy refusal explains the rest: SECURITY_VIOLATION first, otherwise run order
        self.errors: list[PipelineError] = sorted(
            state.errors, key=lambda e: e.error_code != ErrorCode.SECURITY_VIOLATION
        )
        self.warnings: list[RunWarning] = list(state.warnings)
        self.approvals_needed = list(state.approvals_needed)
        self.sub_queries: list[SubgraphOutput] = list(state.subgraph_outputs.values())
        self.reasoning: list[dict[str, Any]] = list(state.reasoning)
        self.decomposition = state.decomposer_response
        self.pinned = state.pinned  # the pinned run this result ran on (None: planned)
        self.verified_match = state.verified_match  # the curated answer it ran (None: generated)
        self.trace: StateTree = outcome.tree
        self.trace_final_node = outcome.final_node
        self.timings = {"total_s": outcome.seconds}
        self.answer: str | None = (
            state.answer_synthesizer_response.answer if state.answer_synthesizer_response else None
        )
        #: the run's final GraphState (the actions on this result read it)
        self.state = state
        #: the Session that ran it, which carries out the actions below
        self.session = session
        self._tables: dict[str, pa.Table] | None = None
        # The answer's tables as the run left them in memory (by artifact URI); the artifacts
        # are read back only for what is not here. The scans' own tables are not kept.
        terminal = {r.uri for r in state.aggregator_response.terminal_results.values()} \
            if state.aggregator_response else set()
        self._outcome_tables = {u: t for u, t in outcome.tables.items() if u in terminal}
        self.status: Status = self._status()
        #: the run's number in the session's history (0: not recorded)
        self.run_number = 0
        self._suggestions: list[Suggestion] | None = None
        self._layer_used: dict[str, list[LayerEntry]] | None = None
        #: for a follow-up, the run it follows and what it changed (see nl2sql/conversation.py)
        self.follow_up: FollowUp | None = None
        #: for a run asked again by `teach`, the diff it wrote to the layer file first
        self.taught: str | None = None

    def _status(self) -> Status:
        if any(e.error_code == ErrorCode.QUESTION_NOT_ANSWERABLE for e in self.errors):
            return "not_answerable"
        if any(e.error_code == ErrorCode.CLARIFICATION_NEEDED for e in self.errors):
            return "needs_clarification"
        if any(e.is_blocking for e in self.errors):
            return "error"
        if self.approvals_needed:
            return "needs_approval"
        if self.executed and self.answer is None:
            return "error"
        return "success"

    # -- data ---------------------------------------------------------------------------------
    @property
    def sql(self) -> str | None:
        """The SQL of the run: one statement, or each sub-query's separated by blank lines."""
        drafts = [o.sql_draft for o in self.sub_queries if o.sql_draft]
        return "\n\n".join(drafts) if drafts else None

    @property
    def tables(self) -> dict[str, pa.Table]:
        """Terminal results as Arrow tables, keyed by DAG node id (empty unless executed)."""
        if self._tables is None:
            agg = self.state.aggregator_response
            refs = agg.terminal_results if agg else {}
            held = self._outcome_tables  # this run's tables, still in memory
            self._tables = {k: held[r.uri] if r.uri in held else self.session.context.artifacts.read(r)
                            for k, r in refs.items()}
        return self._tables

    def table(self) -> pa.Table | None:
        """The answer's table: the single terminal result (None when nothing was combined)."""
        tables = list(self.tables.values())
        return tables[0] if tables else None

    def to_pandas(self) -> pd.DataFrame:
        import pandas as pd

        table = self.table()
        return table.to_pandas() if table is not None else pd.DataFrame()

    def to_polars(self) -> pl.DataFrame:
        import polars as pl

        table = self.table()
        # from_arrow gives a Series only for an Array; a Table is always a DataFrame
        return cast(pl.DataFrame, pl.from_arrow(table)) if table is not None else pl.DataFrame()

    @property
    def labels(self) -> dict[str, str]:
        """Each column of the answer table's human label, by its SQL alias (the frames keep the
        aliases): {"count_orders_left": "Orders", ...}; {} when there is no table."""
        from nl2sql.labels import result_columns

        return {c.name: c.label for c in result_columns(self)}

    def save_chart(self, path: str | Path, *, kind: Literal["bar", "line"] | None = None) -> Path:
        """Save the answer's chart as PNG or SVG (by `path`'s suffix): the chart the widget
        shows, or drawn as `kind`. PNG needs matplotlib (the `chart` extra)."""
        from nl2sql.notebook.chart_export import result_chart, save_chart

        table, spec = result_chart(self, kind)
        return save_chart(table, spec, path)

    @property
    def frames(self) -> dict[str, pd.DataFrame]:
        return {k: t.to_pandas() for k, t in self.tables.items()}

    @property
    def usage(self) -> dict[str, Any]:
        """Model tokens and calls: {"by_node": {node: {input_tokens, output_tokens, calls}},
        "total": {...}} from the reasoning entries (empty by_node when no model was called)."""
        from nl2sql.reasoning.llm.usage import summarize

        return summarize(self.reasoning)

    # -- actions (the widget's buttons): the Session carries them out -------------------------
    def rerun(self) -> QueryResult:
        """Ask the same question again, with the same options."""
        return self.session.rerun(self)

    def rerun_from(self, node_id: int, *, on_event: Any = None, timeout_s: float | None = None,
                   callbacks: list[Any] | None = None) -> QueryResult:
        """Continue the graph from trace node `node_id` (see `Session.rerun_from`)."""
        return self.session.rerun_from(self, node_id, on_event=on_event, timeout_s=timeout_s,
                                       callbacks=callbacks)

    def approve(self, request_ids: str | list[str] | None = None, *, by: str | None = None,
                note: str | None = None) -> QueryResult:
        """Approve the held queries (all by default) and run again on exactly those plans."""
        return self.session.approve(self, request_ids, by=by, note=note)

    def reject(self, request_ids: str | list[str] | None = None, *, by: str | None = None,
               note: str | None = None) -> QueryResult:
        """Record the refusal of the held queries (all by default); nothing runs."""
        return self.session.reject(self, request_ids, by=by, note=note)

    @property
    def candidates(self) -> list[Candidate]:
        """The readings to choose from when the status is needs_clarification (else empty)."""
        from nl2sql.clarify import candidates

        return candidates(self)

    def choose(self, number: int) -> QueryResult:
        """Run candidate `number` (1 first), validated and guarded like any plan."""
        return self.session.choose(self, number)

    @property
    def suggestions(self) -> list[Suggestion]:
        """Layer entries that would answer a question refused for an unknown word or a missing
        join, or asked back for a disputed word (else empty); computed once, the joins checked
        in the data."""
        if self._suggestions is None:
            from nl2sql.semantic.suggest import suggestions

            asked = self.status in ("error", "needs_clarification")
            self._suggestions = suggestions(self) if asked else []
        return self._suggestions

    @property
    def layer_used(self) -> dict[str, list[LayerEntry]]:
        """Per sub-query id, the semantic layer's terms, metrics and relationships its plan used
        (computed on first use; sub-queries that used none are left out)."""
        if self._layer_used is None:
            from nl2sql.semantic.used import result_layer_use

            self._layer_used = result_layer_use(self)
        return self._layer_used

    def teach(self, number: int, *, dry_run: bool = False) -> QueryResult:
        """Write suggestion `number` (1 first) into the layer file and ask the question again; the
        new result's `taught` is the diff written (with dry_run, nothing is written and this
        result is returned)."""
        found = self.suggestions
        if not found:
            raise ValueError(f"this run has no suggestions to teach (status {self.status})")
        if not isinstance(number, int) or isinstance(number, bool) or not 1 <= number <= len(found):
            raise ValueError(f"choose a suggestion between 1 and {len(found)}, not {number!r}")
        diff = self.session.teach(found[number - 1], dry_run=dry_run)
        if dry_run:
            return self
        again = self.session.ask(self.question, self.datasource, self.executed, user=self.user,
                                 follow_up=False)
        again.taught = diff
        return again

    def pin(self) -> PinnedRun:
        """Keep this run's decomposition and plans: its question runs on them next time."""
        return self.session.pin(self)

    def verify(self, *, by: str | None = None, note: str | None = None,
               template: bool = False) -> CuratedAnswer:
        """Promote this successful run to a curated, verified answer; with `template`, the values
        its question names (a stored value, a number) become parameters, so the same question
        about another value is answered too."""
        return self.session.verify(self, by=by, note=note, template=template)

    # -- reprs --------------------------------------------------------------------------------
    def to_dict(self, *, rows: int = 50) -> dict[str, Any]:
        table = self.table()
        return {
            "status": self.status,
            "question": self.question,
            "answer": self.answer,
            "sql": self.sql,
            "columns": table.column_names if table is not None else [],
            "rows": [list(r.values()) for r in table.slice(0, rows).to_pylist()] if table is not None else [],
            "row_count": table.num_rows if table is not None else 0,
            "sub_queries": [
                {
                    "id": o.sub_query.id if o.sub_query else o.subgraph_id,
                    "datasource": o.sub_query.datasource_id if o.sub_query else None,
                    "intent": o.sub_query.intent if o.sub_query else None,
                    "status": o.status,
                    "retries": o.retry_count,
                    "sql": o.sql_draft,
                    "dialect": o.dialect,
                    "rows": o.artifact.row_count if o.artifact else None,
                    "truncated": o.artifact.truncated if o.artifact else None,
                }
                for o in self.sub_queries
            ],
            "errors": [e.model_dump(mode="json", exclude={"details"}) for e in self.errors],
            "warnings": [w.model_dump(mode="json") for w in self.warnings],
            "approvals_needed": [a.model_dump(mode="json") for a in self.approvals_needed],
            "candidates": [{"number": c.number, "description": c.description, "sql": c.sql,
                            "confidence": c.confidence} for c in self.candidates],
            "suggestions": [{"number": n, "text": s.text, "source": s.source, "section": s.section,
                             "entry": s.entry, "evidence": s.evidence}
                            for n, s in enumerate(self.suggestions, 1)],
            "layer_used": {sq: [str(e) for e in entries] for sq, entries in self.layer_used.items()},
            "timings": self.timings,
            "usage": self.usage,
        }

    def to_json(self, **kw: Any) -> str:
        return json.dumps(self.to_dict(), default=str, indent=2, **kw)

    def __repr__(self) -> str:
        head = f"QueryResult(status={self.status!r}"
        if self.answer:
            head += f", answer={self.answer!r}"
        if self.errors:
            head += f", errors={[e.error_code.value for e in self.errors]!r}"
        return head + ")"

    def _repr_html_(self) -> str:
        from nl2sql.notebook.html import render_html

        return render_html(self)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        """Static HTML and text with the widget's sections (for GitHub, nbviewer, a terminal)."""
        from nl2sql.notebook.text import render_text

        return {"text/plain": render_text(self), "text/html": self._repr_html_()}

    @property
    def first_error(self) -> PipelineError | None:
        blocking = [e for e in self.errors if e.is_blocking]
        return blocking[0] if blocking else (self.errors[0] if self.errors else None)
