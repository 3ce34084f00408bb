"""The prompt of each reasoning skill, built from its request (pure: same request, same text).

The schema part of every prompt is bounded by `context_tokens` (context.render_schema); the
rest is the template, the question and the latest feedback, which are small.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import date
from typing import Any

from nl2sql.names import ANSWER_SYNTHESIZER, ANSWERABILITY, AST_PLANNER, DECOMPOSER, REFINER
from nl2sql.reasoning.base import (
    AnswerabilityRequest,
    DecomposeRequest,
    PlanRequest,
    RefineRequest,
    ResultPreview,
    SynthesizeRequest,
)
from nl2sql.reasoning.llm.schema_text import render_schema, render_sources
from nl2sql.reasoning.llm.templates import Prompt, fill, fragment, render

#: Rows of each result shown to the synthesizer (the node sends at most answer_preview_rows).
PREVIEW_ROWS = 20
_CELL_CHARS = 60


def answerability_prompt(request: AnswerabilityRequest, context_tokens: int) -> Prompt:
    """Can any candidate datasource answer the question?"""
    sources = render_sources(request.datasources, {}, context_tokens)
    return render(ANSWERABILITY, question=request.question, datasources=sources)


def decomposer_prompt(request: DecomposeRequest, context_tokens: int) -> Prompt:
    """Sub-queries per datasource and how to combine them."""
    sources = render_sources(request.datasources, request.descriptions, context_tokens)
    return render(DECOMPOSER, question=request.question, datasources=sources,
                  relationships=_relationships(request))


def _relationships(request: DecomposeRequest) -> str:
    """The layer's relationships between the request's data sources (none: nothing)."""
    if not request.relationships:
        return ""
    lines = "\n".join(f"- {rel.text()}" for rel in request.relationships)
    return "\n\n" + fill(fragment("relationships"), {"relationships": lines})


def planner_prompt(request: PlanRequest, context_tokens: int) -> Prompt:
    """A PlanModel for one sub-query over its relevant tables."""
    sq = request.sub_query
    schema = render_schema(
        request.snapshot if request.snapshot.tables else request.full_snapshot, context_tokens
    )
    notes = fragment("dialects", request.dialect) or fragment("dialects", "default")
    return render(
        AST_PLANNER,
        dialect=request.dialect,
        plan_format=fragment("plan_format"),
        dialect_notes=notes,
        question=request.question,
        intent=sq.intent or request.question,
        sub_query_details=_sub_query_details(sq),
        as_of=_as_of(request.reference_date, "write them as literal date ranges"),
        datasource=sq.datasource_id,
        schema=schema.text,
        feedback=_feedback(request.feedback, request.hints),
    )


def refiner_prompt(request: RefineRequest, context_tokens: int) -> Prompt:
    """What the planner should change after the latest error."""
    error = request.latest_error or {}
    return render(
        REFINER,
        question=request.question,
        intent=request.sub_query.intent,
        error=f"{error.get('error_code', 'unknown')} from {error.get('node', '?')}: {error.get('message', '')}",
        details=_json(request.details) if request.details else "none",
        plan=_json(request.plan.model_dump(mode="json", exclude_defaults=True))
        if request.plan
        else "(no plan was produced)",
        datasource=request.sub_query.datasource_id,
        schema=render_schema(request.snapshot, context_tokens).text,
    )


def synthesizer_prompt(request: SynthesizeRequest) -> Prompt:
    """The answer in words from the result previews."""
    groups = request.decomposition.combine_groups if request.decomposition else []
    ops = sorted({g.operation for g in groups} - {"standalone"})
    combination = f"\nThe results combine several data sources ({', '.join(ops)}).\n" if ops else ""
    results = "\n\n".join(_preview(p) for p in request.results) or "(no results)"
    return render(
        ANSWER_SYNTHESIZER,
        question=request.question,
        combination=combination,
        results=results,
        as_of=_as_of(request.reference_date, "say which day the answer is as of"),
    )


def _as_of(reference: date | None, instruction: str) -> str:
    """The line that fixes relative dates ("last month") to the run's reference date."""
    if reference is None:
        return ""
    day = reference.isoformat()
    return f"\nRelative dates (\"last month\", \"this year\") count from {day}; {instruction}.\n"


def _sub_query_details(sq: Any) -> str:
    lines = []
    for label, values in (
        ("Measures", sq.metrics),
        ("Filters", sq.filters),
        ("Group by", sq.group_by),
        ("Order by", sq.order_by),
    ):
        if values:
            lines.append(f"{label}: {'; '.join(values)}")
    if sq.limit is not None:
        lines.append(f"Limit: {sq.limit}")
    if sq.expected_schema:
        lines.append(f"Expected output columns, in order: {', '.join(sq.expected_schema)}")
    if sq.key_columns:
        lines.append(f"Key columns for a join across data sources (select them; group by them "
                     f"when aggregating): {', '.join(sq.key_columns)}")
    return "\n".join(lines) + ("\n" if lines else "")


def _feedback(feedback: Mapping[str, Any] | None, hints: Mapping[str, Any]) -> str:
    if not feedback and not hints:
        return ""
    parts = ["", "Your previous attempt failed; fix it this time."]
    if feedback:
        code = feedback.get("error_code", "")
        parts.append(
            f"Latest error: {getattr(code, 'value', code)} from {feedback.get('node', '?')}: "
            f"{feedback.get('message', '')}"
        )
    if hints:
        parts.append(f"Repairs to apply: {_json(hints)}")
    return "\n".join(parts) + "\n"


def _preview(preview: ResultPreview) -> str:
    head = f"### {preview.label} — {preview.row_count:,} row(s)"
    if preview.truncated:
        head += " (cut at the row limit)"
    if preview.sql:
        head += f"\nSQL: {preview.sql}"
    if not preview.columns:
        return head
    rows = preview.rows[:PREVIEW_ROWS]
    labels = [preview.column_label(i) for i in range(len(preview.columns))]
    table = ["| " + " | ".join(labels) + " |", "|" + "---|" * len(preview.columns)]
    table += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    if preview.row_count > len(rows):
        table.append(f"(first {len(rows)} of {preview.row_count:,} rows)")
    return head + "\n" + "\n".join(table)


def _cell(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, float):
        return f"{value:.4f}".rstrip("0").rstrip(".")
    text = str(value).replace("|", "/").replace("\n", " ")
    return text if len(text) <= _CELL_CHARS else text[: _CELL_CHARS - 1] + "…"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":"))
