"""A follow-up with a chat-model planner: the model plans it, with the previous question and
plan in its prompt; the run says which run it follows (scripted model, real SQLite file)."""

from __future__ import annotations

import sqlite3

import nl2sql
from nl2sql.reasoning.llm.config import ModelConfig
from nl2sql.reasoning.llm.skill import ChatModelSkill
from tests.reasoning.llm.fake_chat import ScriptedChatModel


def _plan(status: str) -> dict:
    return {"tables": [{"name": "orders", "alias": "o"}],
            "select": [{"expr": {"kind": "aggregate", "func": "count"}, "alias": "n"}],
            "where": {"kind": "comparison", "op": "=", "left": {"kind": "column", "table": "o", "name": "status"},
                      "right": {"kind": "literal", "value": status}}}


def test_the_previous_question_and_plan_are_in_the_planner_prompt(tmp_path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript("CREATE TABLE orders (order_id INTEGER PRIMARY KEY, status TEXT);"
                         "INSERT INTO orders VALUES (1,'shipped'),(2,'cancelled'),(3,'cancelled'),(4,'pending');")
    fake = ScriptedChatModel(script=[{"reasoning": "count cancelled", "plan": _plan("cancelled")},
                                     {"reasoning": "the same count, pending", "plan": _plan("pending")}],
                             usage=(100, 20))
    planner = ChatModelSkill(ModelConfig(model="scripted:planner"), chat_model=fake)
    with nl2sql.connect(sources={"shop": str(path)}, models={"ast_planner": planner},
                        settings={"project_dir": tmp_path / "p"}) as session:
        first = session.ask("How many orders were cancelled?")
        follow = session.ask("And pending?")
    assert first.table().column(0).to_pylist() == [2]
    assert follow.status == "success" and follow.table().column(0).to_pylist() == [1]
    prompt = fake.prompts()[1]
    assert "And pending?" in prompt and "The previous question was: How many orders were cancelled?" in prompt
    assert '"value":"cancelled"' in prompt  # the previous plan, as JSON
    note = next(r["content"] for r in follow.reasoning if r["node"] == "conversation")
    assert note == f"follow-up of run {first.run_number}: planned by the model with run 1's question and plan"
