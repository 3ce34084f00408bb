"""Rendered prompts, compared with snapshots in tests/fixtures/prompts/ (regenerate with
NL2SQL_UPDATE_SNAPSHOTS=1 after a deliberate prompt change, then review the diff)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from nl2sql.decomposition import CombineGroup, CombineInput, DecomposerResponse
from nl2sql.plan import Aggregate, ColumnRef, Comparison, Literal_, PlanModel, SelectItem, TableRef
from nl2sql.reasoning.base import (
    AnswerabilityRequest,
    DecomposeRequest,
    PlanRequest,
    RefineRequest,
    ResultPreview,
    SynthesizeRequest,
)
from nl2sql.reasoning.llm import builders
from nl2sql.reasoning.llm.templates import PROMPT_FILES, fill, load_text, render
from tests.reasoning.llm.conftest import shop_snapshot

SNAPSHOTS = Path(__file__).resolve().parents[2] / "fixtures" / "prompts"
QUESTION = "How many cancelled orders are there per state?"


def _plan() -> PlanModel:
    return PlanModel(
        tables=[TableRef(name="orders", alias="o")],
        select=[SelectItem(expr=Aggregate(func="count"), alias="n")],
        where=Comparison(
            op="=", left=ColumnRef(table="o", name="status"), right=Literal_(value="Cancelled")
        ),
    )


def _requests(sub_query):
    shop = shop_snapshot()
    crm = shop_snapshot("crm", "duckdb").subset(["customers"])
    return {
        "answerability": lambda: builders.answerability_prompt(
            AnswerabilityRequest(QUESTION, {"shop": shop, "crm": crm}), 6000
        ),
        "decomposer": lambda: builders.decomposer_prompt(
            DecomposeRequest(QUESTION, {"shop": shop, "crm": crm}, {"shop": "The web shop"}), 6000
        ),
        "ast_planner": lambda: builders.planner_prompt(
            PlanRequest(QUESTION, sub_query, shop, shop, "sqlite"), 6000
        ),
        "ast_planner_retry": lambda: builders.planner_prompt(
            PlanRequest(
                QUESTION,
                sub_query,
                shop,
                shop,
                "sqlite",
                feedback={
                    "node": "executor",
                    "error_code": "VALUE_NOT_FOUND",
                    "message": "'Cancelled' is not a value of orders.status",
                },
                hints={
                    "replace_value": {
                        "table": "orders",
                        "column": "status",
                        "old": "Cancelled",
                        "new": "cancelled",
                    }
                },
            ),
            6000,
        ),
        "refiner": lambda: builders.refiner_prompt(
            RefineRequest(
                QUESTION,
                sub_query,
                _plan(),
                {
                    "node": "executor",
                    "error_code": "VALUE_NOT_FOUND",
                    "message": "'Cancelled' is not a value of orders.status",
                },
                {
                    "table": "orders",
                    "column": "status",
                    "value": "Cancelled",
                    "suggestions": ["cancelled"],
                },
                shop,
            ),
            6000,
        ),
        "answer_synthesizer": lambda: builders.synthesizer_prompt(
            SynthesizeRequest(
                QUESTION,
                [
                    ResultPreview(
                        "combine:g1: standalone",
                        ["state", "n"],
                        [("California", 12), ("Ohio", 3)],
                        2,
                    )
                ],
                DecomposerResponse(
                    combine_groups=[
                        CombineGroup(
                            group_id="g1",
                            operation="standalone",
                            inputs=[CombineInput(subquery_id="sq_1")],
                        )
                    ]
                ),
            )
        ),
    }


CASES = [
    "answerability",
    "decomposer",
    "ast_planner",
    "ast_planner_retry",
    "refiner",
    "answer_synthesizer",
]


@pytest.mark.parametrize("case", CASES)
def test_rendered_prompt_matches_its_snapshot(case, sub_query):
    text = _requests(sub_query)[case]().text()
    path = SNAPSHOTS / f"{case}.md"
    if os.environ.get("NL2SQL_UPDATE_SNAPSHOTS") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), (
        f"no snapshot {path.name}: run with NL2SQL_UPDATE_SNAPSHOTS=1 and review it"
    )
    assert text == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("case", CASES)
def test_no_placeholder_is_left_unfilled(case, sub_query):
    assert not re.search(r"\{\{\s*[a-z_]+\s*\}\}", _requests(sub_query)[case]().text())


def test_the_planner_prompt_carries_the_schema_feedback_and_expected_columns(sub_query):
    retry = _requests(sub_query)["ast_planner_retry"]()
    assert "status TEXT; values: 'shipped', 'cancelled', 'pending'" in retry.user
    assert "Latest error: VALUE_NOT_FOUND from executor" in retry.user
    assert '"new":"cancelled"' in retry.user
    assert "Expected output columns, in order: state, cancelled_orders" in retry.user
    assert "## sqlite" not in retry.system and "stored as TEXT in ISO form" in retry.system
    first = _requests(sub_query)["ast_planner"]()
    assert "previous attempt" not in first.user


def test_every_prompt_file_is_package_data_with_both_sections():
    for name in PROMPT_FILES:
        assert load_text(name).strip()
    for name in ("answerability", "decomposer", "ast_planner", "refiner", "answer_synthesizer"):
        assert "# system" in load_text(name) and "# user" in load_text(name)


def test_a_placeholder_without_a_value_fails_loudly():
    with pytest.raises(KeyError, match="question"):
        fill("Q: {{question}}", {})
    with pytest.raises(KeyError):
        render("answerability", question="q")


def test_the_reference_date_reaches_the_planner_and_synthesizer_prompts(sub_query):
    import dataclasses
    import datetime as dt

    ref = dt.date(2026, 12, 1)
    shop = shop_snapshot()
    planning = PlanRequest(QUESTION, sub_query, shop, shop, "sqlite", reference_date=ref)
    assert "count from 2026-12-01; write them as literal date ranges" in (
        builders.planner_prompt(planning, 6000).user
    )
    synth = SynthesizeRequest(QUESTION, [ResultPreview("r", ["n"], [(1,)], 1, sql="SELECT 1")],
                              reference_date=ref)
    text = builders.synthesizer_prompt(synth).user
    assert "count from 2026-12-01" in text and "SQL: SELECT 1" in text
    assert "count from" not in builders.synthesizer_prompt(dataclasses.replace(
        synth, reference_date=None)).user
