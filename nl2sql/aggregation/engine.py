"""The combine engine: runs an ExecutionDAG's combine and post-combine nodes over Arrow tables.

Pure: it knows nothing of the graph or of artifacts. Scan results come in as Arrow tables keyed
by sub-query id; every DAG node that cannot run becomes a PipelineError value while the other
groups still produce their results. Row-cap rule (ARCHITECTURE §7): a capped join/compare input
is a RESULT_TRUNCATED error for its group; a capped union input is a RESULT_TRUNCATED warning.
Budget rule: a group whose inputs together exceed `CombineBudget` (rows or Arrow bytes) is a
COMBINE_TOO_LARGE error naming the sizes. Groups on one engine never get here with several
inputs: the push-down (nl2sql/pushdown.py) runs them as one query on that engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa

from nl2sql.aggregation.combine import CombineInputs, compare, join, role_labels, union_all
from nl2sql.aggregation.duck import AggregationError, DuckPool, DuckSession
from nl2sql.aggregation.post_ops import apply_post_op
from nl2sql.dag import DAGNode, ExecutionDAG
from nl2sql.decomposition import CombineGroup, CombineInput, DecomposerResponse, PostCombineOp
from nl2sql.errors import ErrorCode, PipelineError, RunWarning, safe_one_line
from nl2sql.names import AGGREGATOR

NODE = AGGREGATOR


@dataclass
class CombineOutcome:
    """What the combine engine produced: terminal results, labels, errors and warnings."""

    results: dict[str, pa.Table] = field(default_factory=dict)  # terminal DAG node id -> table
    operations: dict[str, str] = field(default_factory=dict)  # DAG node id -> operation label
    errors: list[PipelineError] = field(default_factory=list)
    warnings: list[RunWarning] = field(default_factory=list)
    truncated: dict[str, bool] = field(
        default_factory=dict
    )  # terminal id -> built from capped rows


@dataclass(frozen=True)
class CombineBudget:
    """The most a local combine may pull: rows and Arrow bytes of all its inputs together."""

    max_rows: int
    max_bytes: int


@dataclass
class _Run:
    dag: ExecutionDAG
    groups: dict[str, CombineGroup]
    ops: dict[str, PostCombineOp]
    inputs: dict[str, pa.Table]
    capped: dict[str, bool]
    duck: DuckSession
    budget: CombineBudget | None = None
    outcome: CombineOutcome = field(default_factory=CombineOutcome)
    tables: dict[str, pa.Table] = field(default_factory=dict)
    node_capped: dict[str, bool] = field(default_factory=dict)


def run_combine(
    dag: ExecutionDAG,
    decomposition: DecomposerResponse,
    inputs: dict[str, pa.Table],
    truncated: dict[str, bool],
    *,
    pool: DuckPool | None = None,
    budget: CombineBudget | None = None,
) -> CombineOutcome:
    """Run every combine and post-combine node of `dag`, layer by layer.

    Args:
        dag: the execution DAG built from `decomposition`.
        decomposition: supplies the combine groups and post-combine ops the DAG nodes name.
        inputs: sub-query id -> its scan result; a missing id fails only the groups needing it.
        truncated: sub-query id -> whether its scan hit the row cap.
        pool: the session's DuckDB (this combine takes a cursor of it); None: a private one.
        budget: the most rows/bytes a group may combine; None: no limit.
    """
    with DuckSession(pool) as duck:
        run = _Run(
            dag=dag,
            groups={g.group_id: g for g in decomposition.combine_groups},
            ops={o.op_id: o for o in decomposition.post_combine_ops},
            inputs=inputs,
            capped=truncated,
            duck=duck,
            budget=budget,
        )
        for layer in dag.layers:
            for node_id in layer:
                node = dag.node(node_id)
                if node.kind == "combine":
                    _run_group(run, node)
                elif node.kind == "post":
                    _run_post(run, node)
    outcome = run.outcome
    for node in dag.terminal_nodes:
        if node.id in run.tables:
            outcome.results[node.id] = run.tables[node.id]
            outcome.truncated[node.id] = run.node_capped.get(node.id, False)
    return outcome


def _group_for(run: _Run, node: DAGNode) -> CombineGroup:
    """The node's combine group; a sub-query in no group stands alone (as build_dag made it)."""
    group = run.groups.get(node.group_id or "")
    if group is not None:
        return group
    sq_ids = [run.dag.node(i).sub_query_id or "" for i in node.inputs]
    return CombineGroup(
        group_id=node.group_id or node.id,
        operation="standalone" if len(sq_ids) == 1 else "union",
        inputs=[CombineInput(subquery_id=s) for s in sq_ids],
    )


def _run_group(run: _Run, node: DAGNode) -> None:
    group = _group_for(run, node)
    run.outcome.operations[node.id] = group.operation
    where: dict[str, object] = {"dag_node_id": node.id, "group_id": group.group_id}
    capped = _check_inputs(run, group, where)
    if capped is None:
        return
    tables = [run.inputs[i.subquery_id] for i in group.inputs]
    try:
        table, notes = _combine(run.duck, group, tables)
    except (AggregationError, pa.ArrowException) as exc:
        message = f"{group.operation} group {group.group_id!r} failed: {safe_one_line(exc)}"
        _error(run, ErrorCode.AGGREGATOR_FAILED, message, where)
        return
    for note in notes:
        run.outcome.warnings.append(
            RunWarning(node=NODE, code="JOIN_KEY_CAST", message=note, detail=where)
        )
    run.tables[node.id] = table
    run.node_capped[node.id] = bool(capped)


def _check_inputs(run: _Run, group: CombineGroup, where: dict[str, object]) -> list[str] | None:
    """Apply the missing-input and row-cap rules; the capped inputs, or None if it cannot run."""
    label = f"{group.operation} group {group.group_id!r}"
    sq_ids = list(dict.fromkeys(i.subquery_id for i in group.inputs))
    missing = [s for s in sq_ids if s not in run.inputs]
    if missing:
        message = f"{label} cannot run: sub-query {missing[0]!r} produced no result"
        _error(run, ErrorCode.AGGREGATOR_FAILED, message, where, missing[0])
        return None
    if group.operation != "standalone" and not _within_budget(run, label, sq_ids, where):
        return None
    capped = [s for s in sq_ids if run.capped.get(s)]
    if capped and group.operation in ("join", "compare"):
        # Joining a capped result silently drops matches: refuse rather than answer wrongly.
        message = (
            f"{label} needs every row of sub-query {capped[0]!r}, which hit the row cap; "
            "raise the row cap or narrow the question"
        )
        _error(run, ErrorCode.RESULT_TRUNCATED, message, where, capped[0])
        return None
    if group.operation == "union":
        run.outcome.warnings.extend(
            RunWarning(
                node=NODE,
                code=ErrorCode.RESULT_TRUNCATED.value,
                message=f"{label} is missing rows: sub-query {s!r} hit the row cap",
                sub_query_id=s,
                detail=where,
            )
            for s in capped
        )
    return capped


def _within_budget(run: _Run, label: str, sq_ids: list[str], where: dict[str, object]) -> bool:
    """False (and a COMBINE_TOO_LARGE error naming the sizes) when the inputs exceed the budget."""
    if run.budget is None:
        return True
    rows = sum(run.inputs[s].num_rows for s in sq_ids)
    size = sum(run.inputs[s].nbytes for s in sq_ids)
    # A scan stopped at the budget (its fetch cap) had more rows than the budget allows.
    stopped = any(run.capped.get(s) and run.inputs[s].num_rows >= run.budget.max_rows for s in sq_ids)
    if rows <= run.budget.max_rows and size <= run.budget.max_bytes and not stopped:
        return True
    message = (
        f"{label} would combine {'more than ' if stopped else ''}{rows:,} rows "
        f"({_megabytes(size)}) locally, over the budget of "
        f"{run.budget.max_rows:,} rows / {_megabytes(run.budget.max_bytes)} "
        "(combine_max_rows, combine_max_bytes); narrow the question or raise the budget"
    )
    details = {**where, "rows": rows, "bytes": size,
               "max_rows": run.budget.max_rows, "max_bytes": run.budget.max_bytes}
    _error(run, ErrorCode.COMBINE_TOO_LARGE, message, details)
    return False


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:,.1f} MB"


def _combine(
    duck: DuckSession, group: CombineGroup, tables: list[pa.Table]
) -> tuple[pa.Table, list[str]]:
    """The group's result and any notes worth a warning."""
    if group.operation == "standalone":
        return tables[0], []
    if group.operation == "union":
        return union_all(duck, tables), []
    keys = [[k.left for k in group.join_keys]] + [
        [k.right for k in group.join_keys] for _ in tables[1:]
    ]
    inputs = CombineInputs(
        tables=list(tables),
        labels=role_labels([i.role for i in group.inputs]),
        keys=keys if group.join_keys else [],
    )
    table = join(duck, inputs) if group.operation == "join" else compare(duck, inputs)
    return table, inputs.notes


def _run_post(run: _Run, node: DAGNode) -> None:
    op = run.ops.get(node.op_id or "")
    run.outcome.operations[node.id] = op.op if op else "unknown"
    source = node.inputs[0]
    if source not in run.tables:
        return  # the step before failed and already reported why
    where: dict[str, object] = {"dag_node_id": node.id, "group_id": node.group_id, "op_id": node.op_id}
    if op is None:
        message = f"post-combine op {node.op_id!r} is not in the decomposition"
        _error(run, ErrorCode.AGGREGATOR_FAILED, message, where)
        return
    try:
        run.tables[node.id] = apply_post_op(run.duck, run.tables[source], op)
    except (AggregationError, pa.ArrowException) as exc:
        message = f"{op.op} {op.op_id!r} on group {op.group_id!r} failed: {safe_one_line(exc)}"
        _error(run, ErrorCode.AGGREGATOR_FAILED, message, where)
        return
    run.node_capped[node.id] = run.node_capped.get(source, False)


def _error(
    run: _Run,
    code: ErrorCode,
    message: str,
    details: dict[str, object],
    sub_query_id: str | None = None,
) -> None:
    run.outcome.errors.append(
        PipelineError(
            node=NODE,
            error_code=code,
            message=message,
            details=dict(details),
            sub_query_id=sub_query_id,
        )
    )
