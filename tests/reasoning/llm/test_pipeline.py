"""The whole graph with chat-model skills on a scripted model over a real SQLite file: mixing
with the offline engine, usage per node, raw output kept, failures fatal and never re-planned."""

from __future__ import annotations

import sqlite3

import pytest

import nl2sql
from nl2sql.errors import ErrorCode
from nl2sql.reasoning.llm.config import ModelConfig
from nl2sql.reasoning.llm.skill import ChatModelSkill
from tests.reasoning.llm.fake_chat import ScriptedChatModel

QUESTION = "How many orders were cancelled?"
PLAN = {
    "tables": [{"name": "orders", "alias": "o"}],
    "select": [{"expr": {"kind": "aggregate", "func": "count"}, "alias": "cancelled_orders"}],
    "where": {
        "kind": "comparison",
        "op": "=",
        "left": {"kind": "column", "table": "o", "name": "status"},
        "right": {"kind": "literal", "value": "cancelled"},
    },
}


@pytest.fixture
def shop_db(tmp_path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(
            "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, status TEXT, amount REAL);"
            "INSERT INTO orders VALUES (1,'shipped',10),(2,'cancelled',5),(3,'cancelled',7),(4,'pending',1);"
        )
    return path


def _session(shop_db, tmp_path, **models):
    return nl2sql.connect(
        sources={"shop": str(shop_db)},
        models=models,
        settings={
            "project_dir": tmp_path / "project",
            "sql_agent_retry_base_delay_sec": 0,
            "sql_agent_retry_jitter_sec": 0,
        },
    )


def _planner(*script, **config):
    fake = ScriptedChatModel(script=list(script), usage=(400, 60))
    return ChatModelSkill(ModelConfig(model="scripted:planner", **config), chat_model=fake), fake


def test_a_model_planner_mixed_with_the_offline_engine_answers_and_accounts_usage(
    shop_db, tmp_path
):
    planner, fake = _planner(
        "I think the plan is {oops", {"reasoning": "count cancelled", "plan": PLAN}
    )
    with _session(shop_db, tmp_path, default="offline", ast_planner=planner) as session:
        result = session.ask(QUESTION)
    assert result.status == "success", [e.one_line() for e in result.errors]
    assert result.table().column(0)[0].as_py() == 2
    assert '"o"."status" = \'cancelled\'' in result.sql
    assert "status TEXT; values: 'cancelled', 'pending', 'shipped'" in fake.prompts()[0]
    assert result.usage["by_node"] == {
        "ast_planner": {"input_tokens": 800, "output_tokens": 120, "calls": 2}
    }
    assert result.usage["total"]["calls"] == 2 and result.to_dict()["usage"] == result.usage
    entry = next(e for e in result.reasoning if e["node"] == "ast_planner")
    assert (
        entry["model"] == "scripted:planner"
        and entry["raw_output"][0] == "I think the plan is {oops"
    )
    assert entry["parse_errors"] == ["the answer is not a JSON object"]


def test_an_answer_that_never_validates_is_fatal_and_not_re_planned(shop_db, tmp_path):
    planner, fake = _planner(*[{"plan": {"tables": []}}] * 2, parse_retries=1)
    with _session(shop_db, tmp_path, ast_planner=planner) as session:
        result = session.ask(QUESTION)
    assert result.status == "error"
    errors = [e for e in result.errors if e.node == "ast_planner"]
    assert [e.error_code for e in errors] == [ErrorCode.MODEL_OUTPUT_INVALID]
    assert len(fake.calls) == 2  # parse_retries + 1, and no SQL-agent retry on top
    assert result.sub_queries[0].retry_count == 0


def test_a_provider_failure_ends_the_sub_query_without_a_retry(shop_db, tmp_path):
    import httpx

    planner, fake = _planner(httpx.ConnectError("connection refused"), max_retries=0)
    with _session(shop_db, tmp_path, ast_planner=planner) as session:
        result = session.ask(QUESTION)
    assert result.status == "error" and len(fake.calls) == 1
    error = next(e for e in result.errors if e.node == "ast_planner")
    assert error.error_code == ErrorCode.PROVIDER_UNAVAILABLE and not error.is_retryable
    assert "scripted:planner" in error.message and "check that it is running" in error.message


def test_a_node_without_a_model_reports_missing_llm(shop_db, tmp_path):
    with _session(shop_db, tmp_path, ast_planner=None) as session:
        result = session.ask(QUESTION)
    assert [e.error_code for e in result.errors if e.node == "ast_planner"] == [
        ErrorCode.MISSING_LLM
    ]
    assert result.usage["total"]["calls"] == 0


def test_a_model_without_a_key_fails_its_node_with_provider_auth(shop_db, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with _session(shop_db, tmp_path, answerability="openai:gpt-4.1") as session:
        result = session.ask(QUESTION)
    assert [(e.node, e.error_code) for e in result.errors] == [
        ("datasource_resolver", ErrorCode.PROVIDER_AUTH)
    ]
    assert "set OPENAI_API_KEY" in result.errors[0].message
