"""The compact response schema sent to providers accepts exactly what pydantic accepts."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from nl2sql.decomposition import DecomposerResponse
from nl2sql.plan import PlanModel
from nl2sql.reasoning.base import ASTPlannerResponse
from nl2sql.reasoning.llm.jsonschema import compact_schema, schema_size

GOLDEN = sorted((Path(__file__).resolve().parents[2] / "fixtures" / "sqlgen").glob("*.yaml"))


def test_the_plan_schema_shrinks_to_under_a_quarter_of_pydantics():
    full = len(json.dumps(ASTPlannerResponse.model_json_schema()))
    compact = schema_size(ASTPlannerResponse)  # with the metric node and the refusal record
    assert compact < 10_000 and compact < full / 4
    assert schema_size(DecomposerResponse) < 11_000


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_every_golden_plan_validates_against_the_compact_schema(path):
    plan = yaml.safe_load(path.read_text())["plan"]
    PlanModel.model_validate(plan)  # the fixture is a valid plan
    answer = {"reasoning": "r", "plan": plan, "confidence": 0.9}
    jsonschema.validate(answer, compact_schema(ASTPlannerResponse, ("reasoning",)))


@pytest.mark.parametrize(
    "bad_plan",
    [
        {
            "tables": [{"name": "t", "alias": "t"}],
            "select": [{"expr": {"table": "t", "name": "a"}}],
        },
        {
            "tables": [{"name": "t", "alias": "t"}],
            "select": [{"expr": {"kind": "column", "name": "a", "x": 1}}],
        },
        {"tables": [], "select": [{"expr": {"kind": "star"}}]},
    ],
    ids=["missing kind tag", "extra field", "no table"],
)
def test_what_pydantic_rejects_the_schema_rejects(bad_plan):
    with pytest.raises(ValueError):
        PlanModel.model_validate(bad_plan)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"plan": bad_plan}, compact_schema(ASTPlannerResponse))


def test_the_first_properties_lead_and_the_union_is_defined_once():
    schema = compact_schema(ASTPlannerResponse, ("reasoning",))
    assert list(schema["properties"])[0] == "reasoning"
    assert "Expr" in schema["$defs"] and '"discriminator"' not in str(schema).replace("'", '"')
    assert list(schema["$defs"]["Comparison"]["properties"])[0] == "kind"
    assert schema["$defs"]["Comparison"]["required"][0] == "kind"
