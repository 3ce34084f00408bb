"""Approval request ids, pins built from approvals, and their files in the project folder."""

from __future__ import annotations

import json

import pytest

from nl2sql.decomposition import DecomposerResponse, SubQuery
from nl2sql.governance.approvals import (
    Approval,
    ApprovalRequest,
    PinnedRun,
    PinnedSource,
    pinned_from_approvals,
    request_id,
)
from nl2sql.governance.stores import ApprovalStore, PinStore
from nl2sql.plan import Aggregate, PlanModel, SelectItem, TableRef

SQ = SubQuery(id="sq_1", datasource_id="shop", intent="count orders")
PLAN = PlanModel(tables=[TableRef(name="orders", alias="o")], select=[SelectItem(expr=Aggregate(func="count"), alias="n")])
SQL = 'SELECT COUNT(*) AS "n" FROM "orders" AS "o"'


def request(rid: str | None = None, **kw) -> ApprovalRequest:
    base = dict(id=rid or request_id("how many orders", SQ, PLAN, SQL), sub_query_id=SQ.id, reason="policy",
                plan=PLAN, sql=SQL, datasource_id="shop", question="how many orders", fingerprint="f1")
    return ApprovalRequest(**{**base, **kw})


def test_the_request_id_changes_with_question_sub_query_plan_and_sql():
    base = request_id("q", SQ, PLAN, SQL)
    assert base == request_id("q", SQ, PLAN.model_copy(), SQL)
    assert len({base, request_id("q2", SQ, PLAN, SQL), request_id("q", SQ.model_copy(update={"intent": "x"}), PLAN, SQL),
                request_id("q", SQ, PLAN.model_copy(update={"limit": 5}), SQL), request_id("q", SQ, PLAN, SQL + " ")}) == 5


def test_approved_requests_become_a_pin_of_their_plans():
    decomposition = DecomposerResponse(sub_queries=[SQ])
    req = request()
    pinned = pinned_from_approvals([Approval(request_id=req.id)], [req], decomposition)
    assert pinned.source == PinnedSource.APPROVED and pinned.plans == {"sq_1": PLAN}
    assert pinned.fingerprints == {"shop": "f1"} and pinned.question == "how many orders"
    assert pinned_from_approvals([Approval(request_id=req.id, approved=False)], [req], decomposition) is None
    assert pinned_from_approvals([Approval(request_id=req.id)], [request(plan=None)], decomposition) is None


def test_pins_persist_by_normalized_question_and_datasource(tmp_path):
    pinned = PinnedRun(source=PinnedSource.CHOSEN, decomposition=DecomposerResponse(sub_queries=[SQ]).model_dump(),
                       plans={"sq_1": PLAN}, fingerprints={"shop": "f1"})
    store = PinStore(tmp_path / ".nl2sql" / "pins")
    path = store.save("How many orders?", pinned)
    assert json.loads(path.read_text())["question"] == "How many orders?"
    reopened = PinStore(tmp_path / ".nl2sql" / "pins")  # a new kernel
    assert reopened.get("  how many ORDERS ") == pinned
    assert reopened.get("How many orders?", datasource="shop") is None
    assert (tmp_path / ".nl2sql" / ".gitignore").read_text().count("artifacts/") == 1
    assert reopened.remove("how many orders") and reopened.get("How many orders?") is None


def test_decisions_persist_and_are_found_by_their_question(tmp_path):
    store = ApprovalStore(tmp_path / "approvals")
    req = request()
    store.record(req, Approval(request_id=req.id, by="lead"))
    again = ApprovalStore(tmp_path / "approvals")
    assert [a.by for a in again.for_question("How many orders?")] == ["lead"]
    assert again.for_question("how many customers") == []
    store.record(req, Approval(request_id=req.id, approved=False, note="too broad"))
    assert again.get(req.id).decision.approved is False
    with pytest.raises(ValueError, match="another request"):
        store.record(req, Approval(request_id="apr_other"))


def test_a_damaged_file_is_reported_not_ignored(tmp_path):
    store = ApprovalStore(tmp_path / "approvals")
    (tmp_path / "approvals").mkdir()
    (tmp_path / "approvals" / "apr_bad.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="apr_bad.json is not a valid ApprovalRecord"):
        store.list()
