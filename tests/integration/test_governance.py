"""Governance flows on the demo data through the public API: approvals, pins, RBAC, hooks,
curated answers.

What the models saw is recorded by a skill object wrapping the offline engine (passed with
`connect(models=...)`); what the databases executed is recorded by wrapping each adapter.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

import nl2sql
from nl2sql.demo import build_demo, demo_sources
from nl2sql.errors import ErrorCode
from nl2sql.governance.hooks import Decision
from nl2sql.plan import Aggregate, ColumnRef, Comparison, Literal_, PlanModel, SelectItem, TableRef
from nl2sql.reasoning.offline.engine import OfflineEngine
from nl2sql.reasoning.registry import MODEL_NODES
from nl2sql.security.rbac import UserContext

CANCELLED = "How many orders were cancelled?"
COMPARE = "For each region, compare the number of orders with the number of support tickets"
VERIFIED_SQL = "SELECT COUNT(*) AS cancelled_orders FROM orders WHERE status = 'cancelled'"


class Recorder:
    """Every skill, answered by the offline engine; every request kept."""

    def __init__(self) -> None:
        self.engine = OfflineEngine()
        self.requests: list[tuple[str, object]] = []

    def _call(self, kind: str, request):
        self.requests.append((kind, request))
        return getattr(self.engine, kind)(request)

    def check_answerability(self, request):
        return self._call("check_answerability", request)

    def decompose(self, request):
        return self._call("decompose", request)

    def plan(self, request):
        return self._call("plan", request)

    def refine(self, request):
        return self._call("refine", request)

    def synthesize(self, request):
        return self._call("synthesize", request)

    def calls(self, kind: str) -> int:
        return sum(1 for k, _ in self.requests if k == kind)

    def snapshots(self):
        """Every schema snapshot any model was shown."""
        for _, request in self.requests:
            yield from getattr(request, "datasources", {}).values()
            for name in ("snapshot", "full_snapshot"):
                if getattr(request, name, None) is not None:
                    yield getattr(request, name)


class RecordingAdapter:
    """A datasource adapter that keeps every statement and value look-up it is asked to run."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.statements: list[str] = []
        self.lookups: list[tuple[str, str]] = []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def execute(self, sql, **kw):
        self.statements.append(sql)
        return self.inner.execute(sql, **kw)

    def lookup_values(self, table_key, column, needle, limit=10):
        self.lookups.append((table_key, column))
        return self.inner.lookup_values(table_key, column, needle, limit)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return build_demo(tmp_path_factory.mktemp("governance-demo"), scale=0.05)


def open_session(folder: Path, sources: dict[str, str], *, toml: str = "", files: dict[str, str] | None = None,
                 user: UserContext | None = None):
    """A session on `sources` with `toml` as its config, recording models and databases."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in (files or {}).items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "nl2sql.toml").write_text(toml, encoding="utf-8")
    recorder = Recorder()
    session = nl2sql.connect(config=folder / "nl2sql.toml", sources=sources, user=user,
                             models=dict.fromkeys(MODEL_NODES, recorder))
    dbs = {ds: RecordingAdapter(adapter) for ds, adapter in session.context.datasources.items()}
    session.context.datasources.update(dbs)
    return session, recorder, dbs


def executed(dbs) -> list[str]:
    return [sql for db in dbs.values() for sql in db.statements]


def main_nodes(result) -> list[str]:
    return [n.name for n in result.trace.main_nodes()]


def planner_sources(result) -> list[str]:
    """plan_source of every ast_planner step in the trace."""
    steps = [n.delta["ast_planner_response"] for n in result.trace.nodes if n.name == "ast_planner"]
    return [s.plan_source if hasattr(s, "plan_source") else s["plan_source"] for s in steps]


def warehouse_only(demo) -> dict[str, str]:
    return {"warehouse": demo_sources(demo)["warehouse"]}


# -- approvals -------------------------------------------------------------------------------
def test_a_policy_requiring_approval_holds_each_sub_query_and_executes_nothing(demo, tmp_path):
    session, _, dbs = open_session(tmp_path, demo_sources(demo), toml="[policies]\nrequire_approval = true\n")
    result = session.ask(COMPARE)
    assert result.status == "needs_approval"
    held = {a.sub_query_id: a for a in result.approvals_needed}
    assert set(held) == {o.sub_query.id for o in result.sub_queries} and len(held) == 2
    for out in result.sub_queries:
        assert held[out.sub_query.id].sql == out.sql_draft and held[out.sub_query.id].plan == out.plan
    assert executed(dbs) == []
    assert result.to_dict()["sub_queries"][0]["status"] == "needs_approval"


def test_approve_executes_the_planned_sql_without_planning_again(demo, tmp_path):
    session, recorder, dbs = open_session(tmp_path, warehouse_only(demo), toml="[policies]\nrequire_approval = true\n")
    held = session.ask(CANCELLED)
    (request,) = held.approvals_needed
    plans_before = recorder.calls("plan")
    approved = held.approve(by="lead")
    assert approved.status == "success" and "orders were cancelled" in approved.answer
    assert executed(dbs) == [request.sql]
    assert recorder.calls("plan") == plans_before  # no planner call
    assert "decomposer" not in main_nodes(approved) and "pinned_entry" in main_nodes(approved)
    assert planner_sources(approved) == ["pinned"] and approved.pinned.source == "approved"


def test_an_approval_persists_and_lets_the_same_query_run_in_a_new_session(demo, tmp_path):
    first, _, _ = open_session(tmp_path, warehouse_only(demo), toml="[policies]\nrequire_approval = true\n")
    first.ask(CANCELLED).approve(by="lead")
    first.close()
    again, _, dbs = open_session(tmp_path, warehouse_only(demo), toml="[policies]\nrequire_approval = true\n")
    result = again.ask(CANCELLED)
    assert result.status == "success" and len(executed(dbs)) == 1


def test_a_hook_sees_the_approval_and_lets_that_query_run(demo, tmp_path):
    session, _, dbs = open_session(tmp_path, warehouse_only(demo))
    session.hooks.add("execute.before", lambda sq, plan, sql, ctx: "allow" if ctx.approved else "require_approval")
    held = session.ask(CANCELLED)
    assert held.status == "needs_approval" and executed(dbs) == []
    assert held.approve().status == "success" and len(executed(dbs)) == 1


def test_reject_records_the_refusal_and_the_query_stays_refused(demo, tmp_path):
    session, _, dbs = open_session(tmp_path, warehouse_only(demo), toml="[policies]\nrequire_approval = true\n")
    rejected = session.ask(CANCELLED).reject(by="owner", note="not this quarter")
    assert rejected.status == "error" and rejected.approvals_needed == []
    assert rejected.errors[0].error_code == ErrorCode.SECURITY_VIOLATION
    assert "rejected by owner: not this quarter" in rejected.errors[0].message
    assert [o.status for o in rejected.sub_queries] == ["dropped"]
    later = session.ask(CANCELLED)
    assert later.status == "error" and later.errors[0].error_code == ErrorCode.SECURITY_VIOLATION
    assert [o.status for o in later.sub_queries] == ["dropped"] and executed(dbs) == []


# -- pins ------------------------------------------------------------------------------------
def test_a_pinned_question_runs_its_plan_until_the_schema_changes(demo, tmp_path):
    copy = tmp_path / "warehouse.duckdb"
    shutil.copy(demo.warehouse, copy)
    sources = {"warehouse": str(copy)}
    first, _, _ = open_session(tmp_path, sources)
    planned = first.ask(CANCELLED)
    assert planned.pin().source == "chosen"
    first.close()

    second, recorder, dbs = open_session(tmp_path, sources)  # a new kernel: the pin is on disk
    pinned = second.ask("how many orders were cancelled")
    assert pinned.status == "success" and pinned.answer == planned.answer
    assert executed(dbs) == [planned.sql]
    assert "decomposer" not in main_nodes(pinned) and planner_sources(pinned) == ["pinned"]
    assert recorder.calls("plan") == recorder.calls("decompose") == 0
    second.close()

    with duckdb.connect(str(copy)) as con:
        con.execute("ALTER TABLE orders ADD COLUMN note VARCHAR")
    third, _, dbs = open_session(tmp_path, sources)
    stale = third.ask(CANCELLED)
    assert stale.status == "error" and executed(dbs) == []
    assert stale.errors[0].error_code == ErrorCode.INVALID_STATE and "stale" in stale.errors[0].message
    assert third.unpin(CANCELLED) and third.ask(CANCELLED).status == "success"
    third.close()


def test_a_supplied_plan_runs_as_given(demo, tmp_path):
    session, recorder, dbs = open_session(tmp_path, warehouse_only(demo))
    plan = PlanModel(
        tables=[TableRef(name="orders", alias="o")],
        select=[SelectItem(expr=Aggregate(func="count"), alias="cancelled")],
        where=Comparison(op="=", left=ColumnRef(table="o", name="status"), right=Literal_(value="cancelled")),
    )
    result = session.ask(CANCELLED, plan=plan)
    assert result.status == "success" and result.pinned.source == "supplied"
    assert result.to_pandas()["cancelled"][0] == session.ask(CANCELLED).to_pandas().iloc[0, 0]
    assert executed(dbs)[0] == result.sql and recorder.calls("plan") == 1  # only the second ask planned


# -- RBAC ------------------------------------------------------------------------------------
POLICIES = """\
roles:
  analyst:
    datasources:
      warehouse:
        tables: [orders, order_items, products, regions, stores, dates]
      crm:
        tables: "*"
        columns:
          contacts: [contact_id, account_id, role]
"""
ANALYST = UserContext(user_id="ann", roles=("analyst",))


def test_denied_tables_and_columns_never_reach_a_model_a_plan_sql_or_a_database(demo, tmp_path):
    session, recorder, dbs = open_session(tmp_path, demo_sources(demo), user=ANALYST, files={"policies.yaml": POLICIES},
                                          toml='[policies]\nfile = "policies.yaml"\n')
    results = [session.ask(q) for q in ("Top 5 customer segments by number of orders", CANCELLED,
                                        "How many contacts have an email?",
                                        "List all the information of the contacts",
                                        "List the email of contacts")]
    shown = list(recorder.snapshots())
    assert shown and recorder.calls("plan") >= 3
    for snapshot in shown:
        assert snapshot.table("customers") is None
        contacts = snapshot.table("contacts")
        assert contacts is None or contacts.column("email") is None
    for result in results:
        for out in result.sub_queries:
            assert "customers" not in (out.plan.model_dump_json() if out.plan else "")
            assert "customers" not in (out.sql_draft or "") and "email" not in (out.sql_draft or "")
    statements = " ".join(executed(dbs))
    assert "customers" not in statements and "email" not in statements
    assert all(t != "customers" and c != "email" for db in dbs.values() for t, c in db.lookups)
    refused, allowed, _, star, email = results
    assert refused.status in ("error", "not_answerable") and refused.table() is None
    assert allowed.status == "success"
    assert star.errors[0].error_code == ErrorCode.SECURITY_VIOLATION and star.table() is None
    # The planner never saw the column, so it cannot plan it: a refusal, never data.
    assert email.status in ("error", "not_answerable") and email.table() is None


def test_a_plan_touching_a_denied_table_is_a_security_violation_and_never_runs(demo, tmp_path):
    session, _, dbs = open_session(tmp_path, demo_sources(demo), user=ANALYST, files={"policies.yaml": POLICIES},
                                   toml='[policies]\nfile = "policies.yaml"\n')
    plan = PlanModel(tables=[TableRef(name="customers", alias="c")],
                     select=[SelectItem(expr=ColumnRef(table="c", name="email"))])
    result = session.ask("Customer emails", datasource="warehouse", plan=plan)
    assert result.status == "error" and result.errors[0].error_code == ErrorCode.SECURITY_VIOLATION
    assert executed(dbs) == []
    nobody = session.ask(CANCELLED, user=UserContext(roles=("intern",)))
    assert nobody.errors[0].error_code == ErrorCode.SECURITY_VIOLATION and executed(dbs) == []


# -- hooks -----------------------------------------------------------------------------------
def test_a_deny_drops_the_sub_query_with_security_violation_first(demo, tmp_path):
    session, _, dbs = open_session(tmp_path, warehouse_only(demo))
    session.hooks.add("execute.before", lambda sq, plan, sql, ctx: Decision.deny("no order data today")
                      if ctx.touches.touches("orders") else "allow")
    result = session.ask(CANCELLED)
    assert result.status == "error" and [o.status for o in result.sub_queries] == ["dropped"]
    assert result.errors[0].error_code == ErrorCode.SECURITY_VIOLATION
    assert "no order data today" in result.errors[0].message and executed(dbs) == []
    assert session.ask("What is the average unit price of products in the Electronics category?").status == "success"


def test_a_hook_that_raises_stops_the_query_with_a_clear_error(demo, tmp_path):
    session, _, dbs = open_session(tmp_path, warehouse_only(demo))

    def audit(sub_query, plan, sql, ctx):
        raise ConnectionError("audit log unreachable")

    session.hooks.add("execute.before", audit)
    result = session.ask(CANCELLED)
    assert result.status == "error" and executed(dbs) == []
    assert "'audit' raised ConnectionError: audit log unreachable" in result.first_error.message


def test_run_before_rewrites_the_question_or_denies_the_run(demo, tmp_path):
    session, recorder, dbs = open_session(tmp_path, warehouse_only(demo))
    session.hooks.add("run.before", lambda q, ctx: q.replace("scrapped", "cancelled"), name="glossary")
    rewritten = session.ask("How many orders were scrapped?")
    assert rewritten.status == "success" and "cancelled" in rewritten.answer
    assert any("glossary rewrote" in r["content"] for r in rewritten.reasoning)
    session.hooks.add("run.before", lambda q, ctx: "deny" if ctx.user.user_id is None else "allow")
    denied = session.ask(CANCELLED)
    assert denied.errors[0].error_code == ErrorCode.SECURITY_VIOLATION and main_nodes(denied) == ["__root__"]
    assert len(executed(dbs)) == 1


def test_config_policies_hold_sensitive_reads_and_unbounded_big_scans(demo, tmp_path):
    toml = "[policies]\nmax_rows_without_limit = 1000\n[policies.sensitive.warehouse]\ncustomers = [\"email\"]\n"
    session, _, dbs = open_session(tmp_path, warehouse_only(demo), toml=toml)
    sensitive = session.ask("List the email of customers in California")
    assert sensitive.status == "needs_approval" and "customers.email" in sensitive.approvals_needed[0].reason
    unbounded = session.ask("List the orders")
    assert unbounded.status == "needs_approval" and "no LIMIT" in unbounded.approvals_needed[0].reason
    assert session.ask("Top 5 products by unit price").status == "success"
    assert session.ask("How many customers are in california?").status == "success"
    assert len(executed(dbs)) == 2


# -- curated answers -------------------------------------------------------------------------
CURATED = f"""\
answers:
  - question: {CANCELLED}
    datasource: warehouse
    sql: {VERIFIED_SQL}
    verified_by: data-team
"""
CURATED_TOML = '[curated]\nfile = "curated.yaml"\n'


def test_a_curated_question_in_other_words_runs_the_verified_sql(demo, tmp_path):
    session, recorder, dbs = open_session(tmp_path, demo_sources(demo), toml=CURATED_TOML, files={"curated.yaml": CURATED})
    result = session.ask("What is the number of cancelled orders?")
    assert result.status == "success" and executed(dbs) == [VERIFIED_SQL]
    assert result.verified_match.method == "embedding" and result.verified_match.score >= 0.9
    assert [o.plan_source for o in result.sub_queries] == ["verified"]
    assert main_nodes(result) == ["__root__", "curated_matcher", "layer_router", "aggregator", "answer_synthesizer"]
    assert recorder.calls("check_answerability") == recorder.calls("decompose") == recorder.calls("plan") == 0
    assert result.to_pandas()["cancelled_orders"][0] == session.ask(CANCELLED).to_pandas().iloc[0, 0]


def test_no_curated_match_falls_back_with_the_state_unchanged(demo, tmp_path):
    session, _, dbs = open_session(tmp_path, warehouse_only(demo), toml=CURATED_TOML, files={"curated.yaml": CURATED})
    result = session.ask("How many orders were cancelled in 2024?")
    matcher = [n for n in result.trace.nodes if n.name == "curated_matcher"]
    assert matcher[0].delta == {} and result.verified_match is None
    assert "decomposer" in main_nodes(result) and VERIFIED_SQL not in executed(dbs)


def test_a_curated_answer_the_user_may_not_read_is_never_run(demo, tmp_path):
    policies = "roles:\n  support:\n    datasources:\n      warehouse:\n        tables: [products]\n"
    session, _, dbs = open_session(tmp_path, warehouse_only(demo), user=UserContext(roles=("support",)),
                                   toml=CURATED_TOML + '[policies]\nfile = "policies.yaml"\n',
                                   files={"curated.yaml": CURATED, "policies.yaml": policies})
    result = session.ask(CANCELLED)
    assert result.verified_match is None and result.status != "success"
    assert not any("orders" in sql for sql in executed(dbs))


def test_a_curated_answer_goes_through_the_approval_hooks(demo, tmp_path):
    session, _, dbs = open_session(tmp_path, warehouse_only(demo), toml=CURATED_TOML + "[policies]\nrequire_approval = true\n",
                                   files={"curated.yaml": CURATED})
    held = session.ask(CANCELLED)
    assert held.status == "needs_approval" and held.approvals_needed[0].sql == VERIFIED_SQL
    assert held.approvals_needed[0].plan is None and executed(dbs) == []
    approved = held.approve()
    assert approved.status == "success" and executed(dbs) == [VERIFIED_SQL]


def test_verify_promotes_a_run_that_then_answers_its_paraphrases(demo, tmp_path):
    question = "What is the average unit price of products in the Electronics category?"
    session, _, _ = open_session(tmp_path, warehouse_only(demo))
    answer = session.ask(question).verify(by="ann")
    assert answer.verified_by == "ann" and (tmp_path / ".nl2sql" / "curated.yaml").is_file()
    session.close()
    again, recorder, dbs = open_session(tmp_path, warehouse_only(demo))
    result = again.ask("What's the average unit price of the products in category Electronics?")
    assert result.verified_match is not None and executed(dbs) == [answer.sql]
    assert recorder.calls("plan") == 0
    with pytest.raises(ValueError, match="only a successful"):
        again.ask("What is the weather today?").verify()


def test_the_example_policy_and_curated_files_work_on_the_demo(demo, tmp_path):
    examples = Path(__file__).resolve().parents[2] / "examples"
    toml = f'[policies]\nfile = "{examples / "policies.yaml"}"\n[curated]\nfile = "{examples / "curated.yaml"}"\n'
    session, _, dbs = open_session(tmp_path, demo_sources(demo), toml=toml, user=ANALYST)
    customers = session.schema("warehouse").table("customers")
    assert {c.name for c in customers.columns}.isdisjoint({"first_name", "last_name", "email"})
    tickets = session.ask("How many support tickets are there per priority?")
    assert tickets.status == "success" and tickets.verified_match.method == "exact"
    assert executed(dbs) == [tickets.verified_match.sql]
    assert session.ask("How many contacts are there?").status != "success"  # contacts: not granted
    returned = session.ask("How many orders were returned in 2025?")  # the template, other values
    assert returned.verified_match.method == "template"
    assert returned.verified_match.bindings == {"status": "returned", "year": 2025}
    assert returned.verified_match.sql == ("SELECT COUNT(*) AS order_count FROM orders WHERE status = "
                                           "'returned' AND EXTRACT(YEAR FROM order_date) = 2025")
    assert returned.verified_match.sql in executed(dbs)
    assert session.ask("How many orders were teleported in 2025?").verified_match is None


def test_after_approval_asking_again_runs_the_approved_plan_even_when_the_model_varies(demo, tmp_path):
    from tests.pipeline.scripted import VaryingPlanner

    (tmp_path / "nl2sql.toml").write_text("[policies]\nrequire_approval = true\n", encoding="utf-8")
    planner = VaryingPlanner()
    session = nl2sql.connect(config=tmp_path / "nl2sql.toml", sources=warehouse_only(demo),
                             models={"ast_planner": planner})
    held = session.ask(CANCELLED)
    assert held.status == "needs_approval"
    (request,) = held.approvals_needed
    assert session.ask(CANCELLED).approvals_needed[0].id != request.id  # the model does vary
    approved = session.approve(session.ask(CANCELLED), by="lead")
    assert approved.status == "success"
    calls = planner.calls
    again = session.ask(CANCELLED)
    assert again.status == "success", [e.one_line() for e in again.errors]
    assert again.approvals_needed == [] and planner.calls == calls  # no new plan, nothing held
    assert again.pinned is not None and again.pinned.source == "approved"
    assert again.table().num_rows == approved.table().num_rows
