"""ChatModelSkill on a scripted model: each skill's contract, stable sub-query ids, checks that
pydantic cannot make (datasources, a valid DAG) re-asked."""

from __future__ import annotations

from nl2sql.decomposition import (
    CombineGroup,
    CombineInput,
    DecomposerResponse,
    JoinKey,
    SubQuery,
    sub_query_id,
)
from nl2sql.reasoning.base import (
    DecomposeRequest,
    PlanRequest,
    RefineRequest,
    ResultPreview,
    SynthesizeRequest,
)
from nl2sql.reasoning.llm import usage
from tests.reasoning.llm.conftest import scripted_skill, shop_snapshot

QUESTION = "Compare the number of orders per state with the number of customers per state"


def _two_part(join_keys: list[JoinKey]) -> dict:
    return DecomposerResponse(
        sub_queries=[
            SubQuery(
                id="q1",
                datasource_id="shop",
                intent="number of orders per state",
                expected_schema=["state", "orders"],
            ),
            SubQuery(
                id="q2",
                datasource_id="crm",
                intent="number of customers per state",
                expected_schema=["state", "customers"],
            ),
        ],
        combine_groups=[
            CombineGroup(
                group_id="g1",
                operation="join",
                join_keys=join_keys,
                inputs=[
                    CombineInput(subquery_id="q1", role="left"),
                    CombineInput(subquery_id="q2", role="right"),
                ],
            )
        ],
        reasoning="orders live in the shop, customers in the crm",
    ).model_dump(mode="json")


def _decompose(skill):
    request = DecomposeRequest(
        QUESTION, {"shop": shop_snapshot(), "crm": shop_snapshot("crm", "duckdb")}
    )
    return skill.decompose(request)


def test_a_decomposition_gets_stable_ids_and_its_groups_follow_them():
    skill, _ = scripted_skill(_two_part([JoinKey(left="state", right="state")]))
    response = _decompose(skill)
    first, second = response.sub_queries
    assert first.id == sub_query_id("shop", "number of orders per state", 0)
    assert second.id == sub_query_id("crm", "number of customers per state", 1)
    assert [i.subquery_id for i in response.combine_groups[0].inputs] == [first.id, second.id]


def test_a_decomposition_that_cannot_form_a_dag_is_asked_again():
    skill, fake = scripted_skill(_two_part([]), _two_part([JoinKey(left="state", right="state")]))
    response = _decompose(skill)
    assert len(fake.calls) == 2 and response.combine_groups[0].join_keys
    assert "join group 'g1' has no join keys" in fake.calls[1]["messages"][-1].content


def test_an_unknown_datasource_is_asked_again_naming_the_real_ones():
    wrong = _two_part([JoinKey(left="state", right="state")])
    wrong["sub_queries"][1]["datasource_id"] = "warehouse"
    skill, fake = scripted_skill(wrong, _two_part([JoinKey(left="state", right="state")]))
    _decompose(skill)
    assert (
        "'warehouse' is not a data source; use one of ['shop', 'crm']"
        in fake.calls[1]["messages"][-1].content
    )


def test_the_planner_always_reports_a_planned_plan(sub_query, shop):
    plan = {
        "tables": [{"name": "orders", "alias": "o"}],
        "select": [{"expr": {"kind": "aggregate", "func": "count"}, "alias": "n"}],
    }
    skill, _ = scripted_skill(
        {"reasoning": "count", "plan": plan, "plan_source": "pinned", "confidence": 0.7}
    )
    response = skill.plan(PlanRequest("q", sub_query, shop, shop, "sqlite"))
    assert response.plan_source == "planned" and response.confidence == 0.7
    assert response.plan.tables[0].name == "orders"


def test_a_model_that_says_it_cannot_plan_returns_no_plan(sub_query, shop):
    skill, _ = scripted_skill(
        {"reasoning": "no table holds weather", "plan": None, "confidence": 0}
    )
    response = skill.plan(PlanRequest("q", sub_query, shop, shop, "sqlite"))
    assert response.plan is None and "weather" in response.reasoning


def test_refiner_and_synthesizer_return_their_models(sub_query, shop):
    skill, fake = scripted_skill(
        {
            "feedback": "use 'cancelled'",
            "hints": {
                "replace_value": {
                    "table": "orders",
                    "column": "status",
                    "old": "Cancelled",
                    "new": "cancelled",
                }
            },
        },
        {"answer": "California has 12 cancelled orders.", "format": "text"},
    )
    refined = skill.refine(
        RefineRequest("q", sub_query, None, {"error_code": "VALUE_NOT_FOUND"}, {}, shop)
    )
    assert refined.hints["replace_value"]["new"] == "cancelled"
    answer = skill.synthesize(
        SynthesizeRequest("q", [ResultPreview("r", ["state", "n"], [("California", 12)], 1)])
    )
    assert answer.answer == "California has 12 cancelled orders."
    assert "| California | 12 |" in fake.calls[1]["messages"][1].content
    assert usage.drain()["usage"]["calls"] == 2
