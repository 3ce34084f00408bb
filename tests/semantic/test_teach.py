"""Teaching from a refusal: a refused run suggests layer entries, teach() writes one (checked
first, shown as a diff) and the question is answered on the next run."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

import nl2sql
from nl2sql.errors import ConfigError

# a ledger without declared keys: the reference column is named after neither table nor key
LEDGER_DDL = """
CREATE TABLE Accounts (AcctCode TEXT, Holder TEXT, Branch TEXT);
CREATE TABLE ledger_entries (entry_no INTEGER, payer TEXT, amount_eur REAL, booked DATE);
"""


def _ledger(path: Path) -> Path:
    con = sqlite3.connect(path)
    con.executescript(LEDGER_DDL)
    con.executemany("INSERT INTO Accounts VALUES (?, ?, ?)",
                    [(f"AC-{i:02d}", f"Holder {i}", ["Harbour", "Hill", "Lake"][i % 3]) for i in range(1, 16)])
    con.executemany("INSERT INTO ledger_entries VALUES (?, ?, ?, ?)",
                    [(i, f"AC-{1 + i * 7 % 15:02d}", 2.5 * i, f"2025-03-{1 + i % 27:02d}")
                     for i in range(1, 46)])
    con.commit()
    con.close()
    return path


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    return _ledger(tmp_path / "ledger.sqlite")


def _session(db: Path, tmp_path: Path, **kw: Any) -> nl2sql.Session:
    return nl2sql.connect(sources={"books": str(db)}, settings={"project_dir": tmp_path / "project"}, **kw)


def _rows(result: Any) -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in result.to_pandas().itertuples(index=False))


def _direct(db: Path, sql: str) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(db)
    try:
        return sorted(con.execute(sql).fetchall())
    finally:
        con.close()


JOIN_QUESTION = "How many ledger entries per account branch?"


def test_a_missing_join_is_suggested_taught_and_answered(ledger: Path, tmp_path: Path) -> None:
    with _session(ledger, tmp_path) as session:
        refused = session.ask(JOIN_QUESTION)
        assert refused.status == "error"
        assert "no foreign-key path" in refused.first_error.message  # type: ignore[union-attr]
        found = refused.suggestions
        assert found and found[0].section == "relationships"
        first = found[0]
        assert first.entry == {"from": "ledger_entries.payer", "to": "Accounts.AcctCode",
                               "cardinality": "many-to-one"}
        assert first.text == "join `ledger_entries.payer` = `Accounts.AcctCode`"
        assert "15 of 15 distinct values" in first.evidence and "checked in the data" in first.evidence
        listed = refused.to_dict()["suggestions"]
        assert listed[0]["number"] == 1 and listed[0]["entry"] == first.entry
        answered = refused.teach(1)
        assert answered.status == "success", answered.first_error
        assert _rows(answered) == _direct(ledger, "SELECT a.Branch, COUNT(*) FROM ledger_entries e "
                                                  "JOIN Accounts a ON e.payer = a.AcctCode GROUP BY a.Branch")
        written = (tmp_path / "project" / "semantic.yaml").read_text()
        assert "from: ledger_entries.payer" in written
    # the file is the project's layer from now on: a new session of the project reads it
    with _session(ledger, tmp_path) as again:
        assert again.ask(JOIN_QUESTION).status == "success"
        assert again.layer_file == tmp_path / "project" / "semantic.yaml"


def test_an_unknown_word_is_mapped_to_the_nearest_column(ledger: Path, tmp_path: Path) -> None:
    question = "What is the total amuonteur of ledger entries?"
    with _session(ledger, tmp_path) as session:
        refused = session.ask(question)
        assert refused.status == "error"
        assert "'amuonteur' matches no table" in refused.first_error.message  # type: ignore[union-attr]
        first = refused.suggestions[0]
        assert first.section == "terms"
        assert first.entry == {"term": "amuonteur", "means": "ledger_entries.amount_eur"}
        assert first.text == "map 'amuonteur' to `ledger_entries.amount_eur`"
        diff = session.teach(first)
        assert "+    - term: amuonteur" in diff and "+      means: ledger_entries.amount_eur" in diff
        answered = session.ask(question, follow_up=False)
        assert answered.status == "success", answered.first_error
        assert _rows(answered) == _direct(ledger, "SELECT SUM(amount_eur) FROM ledger_entries")


def test_dry_run_shows_the_diff_and_writes_nothing(ledger: Path, tmp_path: Path) -> None:
    layer = tmp_path / "layer.yaml"
    original = "# reviewed by the analyst\nsources:\n  books:\n    labels:\n      Accounts: [Holder]\n"
    layer.write_text(original)
    with _session(ledger, tmp_path, semantic=layer) as session:
        refused = session.ask(JOIN_QUESTION)
        diff = session.teach(refused.suggestions[0], dry_run=True)
        assert "+    - from: ledger_entries.payer" in diff and diff.startswith("--- a/layer.yaml")
        assert layer.read_text() == original
        assert session.ask(JOIN_QUESTION, follow_up=False).status == "error"  # not taught
        session.teach(refused.suggestions[0])
        assert "from: ledger_entries.payer" in layer.read_text()
        assert "Holder" in layer.read_text()  # the existing entries are kept
        assert session.ask(JOIN_QUESTION, follow_up=False).status == "success"


@pytest.mark.parametrize(("what", "message"), [
    ({"source": "books", "section": "terms", "entry": {"term": "cash", "means": "ledger_entries.amout"}},
     "did you mean 'amount_eur'"),
    ({"source": "books", "section": "relationships", "entry": {"form": "a.b", "to": "c.d"}},
     "unknown key 'form'"),
    ({"source": "bookz", "section": "terms", "entry": {"term": "cash", "means": "ledger_entries"}},
     "unknown datasource 'bookz'"),
    ({"source": "books", "section": "labels", "entry": {}}, "cannot teach a `labels` entry"),
    ({"source": "books", "entry": {}}, "missing: section"),
])
def test_a_bad_entry_is_one_line_and_leaves_the_file_untouched(
        ledger: Path, tmp_path: Path, what: dict[str, Any], message: str) -> None:
    layer = tmp_path / "layer.yaml"
    original = "sources:\n  books:\n    terms:\n    - term: holder\n      means: Accounts.Holder\n"
    layer.write_text(original)
    with _session(ledger, tmp_path, semantic=layer) as session:
        with pytest.raises(ConfigError) as caught:
            session.teach(what)
        assert message in str(caught.value) and "\n" not in str(caught.value)
    assert layer.read_text() == original


def test_teaching_by_number_is_checked(ledger: Path, tmp_path: Path) -> None:
    with _session(ledger, tmp_path) as session:
        answered = session.ask("How many ledger entries are there?")
        assert answered.status == "success" and answered.suggestions == []
        with pytest.raises(ValueError, match="no suggestions"):
            answered.teach(1)
        refused = session.ask(JOIN_QUESTION, follow_up=False)
        with pytest.raises(ValueError, match="between 1 and"):
            refused.teach(len(refused.suggestions) + 1)


def test_the_cli_lists_suggestions_and_teach_writes_and_answers(
        ledger: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from nl2sql.cli.main import main

    project = tmp_path / "cli"
    project.mkdir()
    config = project / "nl2sql.toml"
    config.write_text(f'[sources.books]\nurl = "sqlite:///{ledger}"\n\n[semantic]\nfile = "layer.yaml"\n')
    (project / "layer.yaml").write_text("sources: {}\n")
    assert main(["ask", JOIN_QUESTION, "--config", str(config)]) == 1
    out = capsys.readouterr().out
    assert "1. join `ledger_entries.payer` = `Accounts.AcctCode`" in out
    assert "nl2sql teach" in out and "N" in out
    assert main(["teach", JOIN_QUESTION, "1", "--config", str(config), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "+    - from: ledger_entries.payer" in out and "nothing was written" in out
    assert (project / "layer.yaml").read_text() == "sources: {}\n"
    assert main(["teach", JOIN_QUESTION, "1", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "success" in out and "Harbour" in out
    assert "from: ledger_entries.payer" in (project / "layer.yaml").read_text()
    assert main(["ask", JOIN_QUESTION, "--config", str(config)]) == 0  # a new session reads it
    assert main(["teach", JOIN_QUESTION, "1", "--config", str(config)]) == 0  # nothing to teach
    assert "nothing to teach" in capsys.readouterr().out


def test_the_widget_shows_one_button_per_suggestion_with_its_diff(ledger: Path, tmp_path: Path) -> None:
    from nl2sql.notebook.widgets import RunView

    layer = tmp_path / "layer.yaml"
    layer.write_text("sources: {}\n")
    with _session(ledger, tmp_path, semantic=layer) as session:
        view = RunView(session.ask(JOIN_QUESTION))
        assert view.status == "error"
        buttons = view.actions.teach_buttons
        assert [b.description for b in buttons] == [f"Teach {n}" for n in range(1, len(buttons) + 1)]
        html = "".join(getattr(w, "value", "") for row in view.actions.children
                       for w in getattr(row, "children", ()))
        assert "+    - from: ledger_entries.payer" in html  # the diff, shown before the click
        assert layer.read_text() == "sources: {}\n"
        buttons[0].click()
        assert view.status == "success", view.notice.value
        assert view.notice.value.startswith("<p>Wrote the suggestion")
        assert "+    - from: ledger_entries.payer" in view.notice.value  # the diff it wrote
        assert view.result.taught is not None and "+    - from: ledger_entries.payer" in view.result.taught
        assert _rows(view.result) == _direct(ledger, "SELECT a.Branch, COUNT(*) FROM ledger_entries e "
                                                     "JOIN Accounts a ON e.payer = a.AcctCode GROUP BY a.Branch")
        assert "from: ledger_entries.payer" in layer.read_text()
        assert view.actions.teach_buttons == []


def test_a_layer_given_as_a_mapping_cannot_be_taught(ledger: Path, tmp_path: Path) -> None:
    given = {"sources": {"books": {"labels": {"Accounts": ["Holder"]}}}}
    with _session(ledger, tmp_path, semantic=given) as session:
        refused = session.ask(JOIN_QUESTION)
        with pytest.raises(ConfigError, match="as a mapping"):
            session.teach(refused.suggestions[0])
    assert not (tmp_path / "project" / "semantic.yaml").exists()
