"""Teaching from refusals given as data: the planner's reason travels as a `Refusal` on the error,
so the offline engine's refusals and a chat model's both get suggestions, whatever their wording;
a question with two readings suggests one term per reading, and teaching one answers that
reading from then on."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

import nl2sql
from nl2sql.errors import ErrorCode, Refusal, RefusalCode
from nl2sql.reasoning.llm.config import ModelConfig
from nl2sql.reasoning.llm.skill import ChatModelSkill
from tests.reasoning.llm.fake_chat import ScriptedChatModel
from tests.semantic.test_teach import JOIN_QUESTION, _direct, _ledger, _rows

# no declared keys; three naming styles: snake_case, a coded prefix, CamelCase
BILLING_DDL = """
CREATE TABLE Clients (ClientNo INTEGER, ClientName TEXT, City TEXT);
CREATE TABLE payments (pay_id INTEGER, client_no INTEGER, amount REAL, paid_on DATE);
CREATE TABLE tblInvoices (InvNo INTEGER, ClientNo INTEGER, Amount REAL, IssuedOn DATE);
"""
AMBIGUOUS = "What is the total amount per city?"
BY_CITY = {
    "payments.amount": "SELECT c.City, SUM(p.amount) FROM payments p "
                       "JOIN Clients c ON p.client_no = c.ClientNo GROUP BY c.City",
    "tblInvoices.Amount": "SELECT c.City, SUM(i.Amount) FROM tblInvoices i "
                          "JOIN Clients c ON i.ClientNo = c.ClientNo GROUP BY c.City",
}


@pytest.fixture
def billing(tmp_path: Path) -> Path:
    path = tmp_path / "billing.sqlite"
    con = sqlite3.connect(path)
    con.executescript(BILLING_DDL)
    con.executemany("INSERT INTO Clients VALUES (?, ?, ?)",
                    [(i, f"Client {i}", ["Oslo", "Rome", "Lima"][i % 3]) for i in range(1, 10)])
    con.executemany("INSERT INTO payments VALUES (?, ?, ?, ?)",
                    [(i, 1 + i % 9, 10.0 * i, f"2025-01-{1 + i % 28:02d}") for i in range(1, 25)])
    con.executemany("INSERT INTO tblInvoices VALUES (?, ?, ?, ?)",
                    [(i, 1 + i * 4 % 9, 7.5 * i, f"2025-02-{1 + i % 28:02d}") for i in range(1, 31)])
    con.commit()
    con.close()
    return path


def _session(db: Path, project: Path, **kw: Any) -> nl2sql.Session:
    settings = {"project_dir": project, **kw.pop("settings", {})}
    return nl2sql.connect(sources={"billing": str(db)}, settings=settings, **kw)


def test_a_disputed_word_suggests_one_term_per_reading(billing: Path, tmp_path: Path) -> None:
    with _session(billing, tmp_path / "first") as session:
        asked = session.ask(AMBIGUOUS)
        assert asked.status == "needs_clarification"
        readings, found = asked.candidates, asked.suggestions
        assert len(found) == len(readings) == 2
        meant = [s.entry["means"] for s in found]
        assert sorted(meant) == sorted(BY_CITY)
        for n, (reading, suggestion) in enumerate(zip(readings, found, strict=True), 1):
            assert suggestion.section == "terms" and suggestion.entry["term"] == "amount"
            assert suggestion.text == f"'amount' here means `{suggestion.entry['means']}`"
            assert suggestion.evidence == f"reading {n}: {reading.description}"
            assert suggestion.entry["means"] in reading.description  # the reading it stands for
        answered = asked.teach(1)
        assert answered.status == "success", answered.first_error
        assert _rows(answered) == _direct(billing, BY_CITY[meant[0]])
        # the term stays: the next run answers that reading without asking
        again = session.ask(AMBIGUOUS, follow_up=False)
        assert again.status == "success" and _rows(again) == _rows(answered)
        written = (tmp_path / "first" / "semantic.yaml").read_text()
        assert f"means: {meant[0]}" in written
    with _session(billing, tmp_path / "second") as session:
        other = session.ask(AMBIGUOUS).teach(2)
        assert other.status == "success", other.first_error
        assert _rows(other) == _direct(billing, BY_CITY[meant[1]])
        assert _rows(other) != _rows(answered)


def test_without_clarification_an_ambiguous_word_is_a_refusal_with_its_meanings(
        billing: Path, tmp_path: Path) -> None:
    """With `min_confidence` 0 nothing is asked back: the planner refuses the disputed word, its
    possible meanings given as data, and each is a term to teach."""
    with _session(billing, tmp_path / "p", settings={"min_confidence": 0}) as session:
        refused = session.ask(AMBIGUOUS)
        assert refused.status == "error"
        refusal = Refusal.of(refused.first_error)  # type: ignore[arg-type]
        assert refusal is not None and refusal.code == RefusalCode.AMBIGUOUS_TERM
        assert refusal.words == ["amount"] and sorted(refusal.means) == sorted(BY_CITY)
        found = refused.suggestions
        assert [s.entry for s in found] == [{"term": "amount", "means": ref} for ref in refusal.means]
        assert found[0].evidence == f"'amount' could mean {', '.join(refusal.means)}"
        answered = refused.teach(2)
        assert answered.status == "success", answered.first_error
        assert _rows(answered) == _direct(billing, BY_CITY[refusal.means[1]])


def test_the_cli_lists_the_readings_terms_and_teaches_one(
        billing: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from nl2sql.cli.main import main

    project = tmp_path / "cli"
    project.mkdir()
    config = project / "nl2sql.toml"
    config.write_text(f'[sources.billing]\nurl = "sqlite:///{billing}"\n\n[semantic]\nfile = "layer.yaml"\n')
    (project / "layer.yaml").write_text("sources: {}\n")
    assert main(["ask", AMBIGUOUS, "--config", str(config)]) != 0
    out = capsys.readouterr().out
    assert "Did you mean" in out and "2. 'amount' here means `" in out
    assert main(["teach", AMBIGUOUS, "2", "--config", str(config)]) == 0
    assert "success" in capsys.readouterr().out
    written = (project / "layer.yaml").read_text()
    assert "term: amount" in written and written.count("means:") == 1
    assert main(["ask", AMBIGUOUS, "--config", str(config)]) == 0  # a new session reads it


def test_a_term_decides_for_its_own_words_only(billing: Path, tmp_path: Path) -> None:
    """'amount' taught as the invoices' column: the bare word reads it, while "payment amount"
    still names the payments' column and "payments" their table."""
    layer = {"sources": {"billing": {"terms": [{"term": "amount", "means": "tblInvoices.Amount"}]}}}
    with _session(billing, tmp_path / "p", semantic=layer) as session:
        total = session.ask("What is the total amount?")
        assert total.status == "success" and _rows(total) == _direct(billing, "SELECT SUM(Amount) FROM tblInvoices")
        paid = session.ask("What is the total payment amount?", follow_up=False)
        assert paid.status == "success" and _rows(paid) == _direct(billing, "SELECT SUM(amount) FROM payments")
        count = session.ask("How many payments are there?", follow_up=False)
        assert count.status == "success" and _rows(count) == [(24,)]


def test_offline_refusals_carry_their_reason_as_data(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path / "ledger.sqlite")
    with _session(ledger, tmp_path / "p") as session:
        unknown = session.ask("What is the total amuonteur of ledger entries?")
        error = unknown.first_error
        assert error is not None and error.error_code == ErrorCode.PLANNING_FAILURE
        assert Refusal.of(error) == Refusal(code=RefusalCode.UNKNOWN_TERM, words=["amuonteur"])
        no_path = session.ask(JOIN_QUESTION, follow_up=False)
        refusal = Refusal.of(no_path.first_error)  # type: ignore[arg-type]
        assert refusal is not None and refusal.code == RefusalCode.NO_JOIN_PATH
        assert {t.lower() for t in refusal.tables + refusal.unreached} == {"accounts", "ledger_entries"}


def _chat_planner(*script: Any) -> tuple[ChatModelSkill, ScriptedChatModel]:
    fake = ScriptedChatModel(script=list(script))
    return ChatModelSkill(ModelConfig(model="scripted:planner"), chat_model=fake), fake


def _chat_session(db: Path, project: Path, planner: ChatModelSkill, layer: Path) -> nl2sql.Session:
    settings = {"project_dir": project, "sql_agent_retry_base_delay_sec": 0, "sql_agent_retry_jitter_sec": 0}
    return nl2sql.connect(sources={"books": str(db)}, models={"default": "offline", "ast_planner": planner},
                          settings=settings, semantic=layer)


PLAN_BY_BRANCH = {
    "tables": [{"name": "ledger_entries", "alias": "e"}, {"name": "Accounts", "alias": "a"}],
    "joins": [{"alias": "a", "on": {"kind": "comparison", "op": "=",
                                    "left": {"kind": "column", "table": "e", "name": "payer"},
                                    "right": {"kind": "column", "table": "a", "name": "AcctCode"}}}],
    "select": [{"expr": {"kind": "column", "table": "a", "name": "Branch"}, "alias": "branch"},
               {"expr": {"kind": "aggregate", "func": "count"}, "alias": "entries"}],
    "group_by": [{"kind": "column", "table": "a", "name": "Branch"}],
}


def test_a_chat_models_refusal_gets_suggestions_from_its_data_not_its_wording(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path / "ledger.sqlite")
    layer = tmp_path / "layer.yaml"
    layer.write_text("sources: {}\n")
    refused = {"reasoning": "I see no way to relate the entries to the accounts.", "plan": None,
               "confidence": 0.0, "refusal": {"code": "NO_JOIN_PATH", "tables": ["ledger_entries"],
                                              "unreached": ["Accounts"]}}
    planner, fake = _chat_planner(refused, {"reasoning": "along the taught join", "plan": PLAN_BY_BRANCH,
                                            "confidence": 0.9})
    with _chat_session(ledger, tmp_path / "p", planner, layer) as session:
        asked = session.ask(JOIN_QUESTION)
        assert asked.status == "error" and "no foreign-key path" not in asked.first_error.message  # type: ignore[union-attr]
        first = asked.suggestions[0]
        assert first.entry == {"from": "ledger_entries.payer", "to": "Accounts.AcctCode",
                               "cardinality": "many-to-one"}
        assert "checked in the data" in first.evidence
        answered = asked.teach(1)
        assert answered.status == "success", answered.first_error
        # the taught relationship is in the prompt of the model's next run
        assert "ledger_entries.payer = Accounts.AcctCode" in fake.prompts()[-1]
        assert "ledger_entries.payer = Accounts.AcctCode" not in fake.prompts()[0]
        assert _rows(answered) == _direct(ledger, "SELECT a.Branch, COUNT(*) FROM ledger_entries e "
                                                  "JOIN Accounts a ON e.payer = a.AcctCode GROUP BY a.Branch")


def test_a_chat_models_unknown_word_is_mapped_and_its_wording_alone_suggests_nothing(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path / "ledger.sqlite")
    layer = tmp_path / "layer.yaml"
    layer.write_text("sources: {}\n")
    question = "What is the total amuonteur of ledger entries?"
    with_data = {"reasoning": "Nothing in the schema is called amuonteur.", "plan": None, "confidence": 0.0,
                 "refusal": {"code": "UNKNOWN_TERM", "words": ["amuonteur"]}}
    # the offline engine's own wording, but no refusal data: not read as one
    wording_only = {"reasoning": "could not plan: 'amuonteur' matches no table, column or stored value",
                    "plan": None, "confidence": 0.0}
    planner, _ = _chat_planner(with_data, wording_only)
    with _chat_session(ledger, tmp_path / "p", planner, layer) as session:
        asked = session.ask(question)
        assert [s.entry for s in asked.suggestions][:1] == [{"term": "amuonteur",
                                                             "means": "ledger_entries.amount_eur"}]
        assert session.ask(question, follow_up=False).suggestions == []


def test_a_refusal_that_does_not_read_is_ignored() -> None:
    from nl2sql.errors import error

    bad = error("ast_planner", ErrorCode.PLANNING_FAILURE, "no", refusal={"code": "GUESS", "words": ["x"]})
    assert Refusal.of(bad) is None
    assert Refusal.of(error("ast_planner", ErrorCode.PLANNING_FAILURE, "no", refusal="UNKNOWN_TERM")) is None
