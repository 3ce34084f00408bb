"""What every view of a QueryResult shows, in a stable order: the static HTML, the text and the
widget all read these, so they show the same sections with the same content.

Parallel branches finish in any order, so the result's lists (sub-query outputs, reasoning,
errors, approval requests) are re-ordered here by what they mean: sub-queries in the
decomposition's order, main-graph entries in pipeline order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nl2sql.names import (
    APPROVAL_GATE,
    AST_PLANNER,
    EXECUTOR,
    GENERATOR,
    LOGICAL_VALIDATOR,
    REFINER,
    RETRY_HANDLER,
    SCHEMA_RETRIEVER,
)

if TYPE_CHECKING:
    from nl2sql.errors import PipelineError, RunWarning
    from nl2sql.pipeline.subgraphs.schemas import SubgraphOutput
    from nl2sql.result import QueryResult

#: Nodes of the SQL agent subgraph: their reasoning is shown per sub-query, not in the main list.
SUBGRAPH_NODES = frozenset({
    SCHEMA_RETRIEVER, AST_PLANNER, LOGICAL_VALIDATOR, GENERATOR, APPROVAL_GATE, EXECUTOR, RETRY_HANDLER, REFINER,
})
TAB_TITLES = ("Answer", "Plan", "SQL", "Sub-queries", "Reasoning", "Trace")


@dataclass(frozen=True)
class SubQueryView:
    """One sub-query's outcome, as shown in the Sub-queries, Plan and SQL sections."""

    id: str
    datasource: str
    intent: str
    status: str
    plan_source: str
    retries: int
    rows: int | None
    truncated: bool
    checks_passed: int
    checks_total: int
    failed_checks: tuple[str, ...]
    errors: tuple[str, ...]
    output: SubgraphOutput

    @property
    def checks_label(self) -> str:
        return f"{self.checks_passed}/{self.checks_total}" if self.checks_total else "—"


def ordered_outputs(result: QueryResult) -> list[SubgraphOutput]:
    """The sub-query outputs in the decomposition's order (stable), unknown ones last by id."""
    order = _sub_query_order(result)
    return sorted(result.sub_queries, key=lambda o: (order.get(_sq_id(o), len(order)), _sq_id(o)))


def sub_query_views(result: QueryResult) -> list[SubQueryView]:
    """Every sub-query's status, retries, checks, row count and truncation."""
    views = []
    for out in ordered_outputs(result):
        sq = out.sub_query
        views.append(SubQueryView(
            id=_sq_id(out),
            datasource=sq.datasource_id if sq else "",
            intent=sq.intent if sq else "",
            status=out.status or "—",
            plan_source=out.plan_source or "—",
            retries=out.retry_count,
            rows=out.artifact.row_count if out.artifact else None,
            truncated=bool(out.artifact and out.artifact.truncated),
            checks_passed=sum(c.passed for c in out.validation),
            checks_total=len(out.validation),
            failed_checks=tuple(f"{c.name}: {c.message}" for c in out.validation if not c.passed),
            errors=tuple(f"{e.error_code.value}: {e.message}" for e in out.errors),
            output=out,
        ))
    return views


def layer_line(result: QueryResult, view: SubQueryView) -> str:
    """"Semantic layer used: term 'client' → customers; …" for one sub-query ('' when none)."""
    from nl2sql.semantic.used import summary

    return summary(result.layer_used.get(view.id, []))


def main_reasoning(result: QueryResult) -> list[dict[str, Any]]:
    """Reasoning entries of the main graph's nodes, in the order they ran."""
    return [e for e in result.reasoning if e.get("node") not in SUBGRAPH_NODES]


def held_requests(result: QueryResult) -> list[Any]:
    """The approval requests of the run, in sub-query order."""
    order = _sub_query_order(result)
    return sorted(result.approvals_needed, key=lambda r: (order.get(r.sub_query_id, len(order)), r.id))


def sorted_errors(result: QueryResult) -> list[PipelineError]:
    order = _sub_query_order(result)
    return sorted(result.errors, key=lambda e: (order.get(e.sub_query_id or "", -1), e.node,
                                                e.error_code.value, e.message))


def sorted_warnings(result: QueryResult) -> list[RunWarning]:
    order = _sub_query_order(result)
    return sorted(result.warnings, key=lambda w: (order.get(w.sub_query_id or "", -1), w.node, w.code,
                                                  w.message))


def reasoning_detail(entry: dict[str, Any]) -> list[tuple[str, str]]:
    """The parts of one reasoning entry worth reading: content, then model and raw output."""
    parts = [("content", str(entry.get("content", "")))]
    if entry.get("model"):
        usage = entry.get("usage") or {}
        parts.append(("model", f"{entry['model']} · {usage.get('calls', 0)} call(s), "
                               f"{usage.get('input_tokens', 0)} in / {usage.get('output_tokens', 0)} out tokens"))
    for i, raw in enumerate(entry.get("raw_output") or [], start=1):
        parts.append((f"raw output {i}", str(raw)))
    for i, problem in enumerate(entry.get("parse_errors") or [], start=1):
        parts.append((f"re-asked {i}", str(problem)))
    return parts


def status_line(result: QueryResult) -> str:
    """A one-line summary: status, sub-query count and rows (no timings: outputs stay stable)."""
    table = result.table()
    rows = f" · {table.num_rows:,} row(s)" if table is not None else ""
    count = len(result.sub_queries)
    subs = f" · {count} sub-quer{'y' if count == 1 else 'ies'}" if count else ""
    return f"{result.status}{subs}{rows}"


def _sub_query_order(result: QueryResult) -> dict[str, int]:
    decomposition = result.decomposition
    if decomposition is None:
        return {}
    return {sq.id: i for i, sq in enumerate(decomposition.sub_queries)}


def _sq_id(out: SubgraphOutput) -> str:
    return out.sub_query.id if out.sub_query else out.subgraph_id


def sql_drafts(output: SubgraphOutput) -> list[tuple[str, str, str | None]]:
    """(label, sql, dialect) of every SQL draft of a sub-query, attempts in order.

    One draft gets no label; after a retry each is labelled by its attempt and the one that
    ran last is marked final, so the SQL that failed stays visible beside the SQL that ran."""
    drafts = list(output.sql_drafts)
    if not drafts:
        return [("", output.sql_draft, output.dialect)] if output.sql_draft else []
    if len(drafts) == 1 and drafts[0].sql == output.sql_draft:
        return [("", drafts[0].sql, drafts[0].dialect)]
    last = len(drafts) - 1
    return [(f" · attempt {d.attempt + 1}" + (" · final" if i == last and d.sql == output.sql_draft else ""),
             d.sql, d.dialect) for i, d in enumerate(drafts)]
