"""Fixtures: a small shop schema (snapshot only) for prompt and skill tests, and the pieces to
build a ChatModelSkill on a scripted model."""

from __future__ import annotations

import pytest

from nl2sql.decomposition import SubQuery
from nl2sql.reasoning.llm import usage
from nl2sql.reasoning.llm.config import ModelConfig
from nl2sql.reasoning.llm.skill import ChatModelSkill
from nl2sql.schema.models import Column, ForeignKey, SchemaSnapshot, Table
from tests.reasoning.llm.fake_chat import ScriptedChatModel


def shop_snapshot(datasource_id: str = "shop", dialect: str = "sqlite") -> SchemaSnapshot:
    customers = Table(
        name="customers",
        row_count=120,
        description="People who bought something.",
        columns=[
            Column(name="customer_id", type="INTEGER", primary_key=True),
            Column(
                name="name",
                type="TEXT",
                samples=["Ada Lovelace", "Alan Turing"],
                distinct_count=120,
            ),
            Column(
                name="state",
                type="TEXT",
                samples=["California", "Texas", "Ohio"],
                distinct_count=3,
                description="US state, spelled out",
            ),
        ],
        primary_key=["customer_id"],
    )
    orders = Table(
        name="orders",
        row_count=900,
        columns=[
            Column(name="order_id", type="INTEGER", primary_key=True),
            Column(name="customer_id", type="INTEGER"),
            Column(
                name="status",
                type="TEXT",
                samples=["shipped", "cancelled", "pending"],
                distinct_count=3,
            ),
            Column(name="ordered_at", type="DATE"),
            Column(name="amount", type="REAL", description="order total in US dollars"),
        ],
        primary_key=["order_id"],
        foreign_keys=[
            ForeignKey(columns=["customer_id"], ref_table="customers", ref_columns=["customer_id"])
        ],
    )
    return SchemaSnapshot(datasource_id=datasource_id, dialect=dialect, tables=[customers, orders])


@pytest.fixture(autouse=True)
def _fresh_ledger():
    """Calls made outside a graph node land in the test's own context: start each test clean."""
    usage.drain()
    yield
    usage.drain()


@pytest.fixture
def shop() -> SchemaSnapshot:
    return shop_snapshot()


@pytest.fixture
def sub_query() -> SubQuery:
    return SubQuery(
        id="sq_1",
        datasource_id="shop",
        intent="number of cancelled orders per state",
        group_by=["state"],
        expected_schema=["state", "cancelled_orders"],
    )


def scripted_skill(*script, **config) -> tuple[ChatModelSkill, ScriptedChatModel]:
    """A ChatModelSkill answering from `script` (function calling, like most providers)."""
    fake = ScriptedChatModel(script=list(script))
    return ChatModelSkill(ModelConfig(model="scripted:fake", **config), chat_model=fake), fake
