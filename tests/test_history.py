"""The run history: recorded per project folder, kept across sessions, without rows or secrets;
listed by `session.history`, `%nl2sql_history` and `nl2sql history`; entries open and re-run."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import nl2sql
from nl2sql.history import HistoryEntry


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("hist") / "shop.sqlite"
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE member (member_id INTEGER PRIMARY KEY, full_name TEXT, email TEXT, city TEXT);
        CREATE TABLE purchase (purchase_id INTEGER PRIMARY KEY, member_id INTEGER REFERENCES member(member_id),
                               bought_on DATE, total REAL);
    """)
    con.executemany("INSERT INTO member VALUES (?,?,?,?)", [
        (1, "Ada Byron", "ada@secret-mail.test", "Lisbon"), (2, "Alan Turing", "alan@secret-mail.test", "Porto"),
        (3, "Grace Hopper", "grace@secret-mail.test", "Lisbon")])
    con.executemany("INSERT INTO purchase VALUES (?,?,?,?)", [
        (i, 1 + i % 3, f"202{3 + i % 2}-0{1 + i % 9}-1{i % 10}", 10.0 + i) for i in range(1, 41)])
    con.commit()
    con.close()
    return path


def _connect(shop: Path, folder: Path):
    return nl2sql.connect(sources={"shop": str(shop)}, settings={"project_dir": folder})


def test_runs_are_numbered_and_survive_a_new_session(shop, tmp_path):
    with _connect(shop, tmp_path) as s:
        first = s.ask("How many purchases were made in 2024?")
        follow = s.ask("And in 2023?")
        refused = s.ask("only the top 3")
        assert [first.run_number, follow.run_number, refused.run_number] == [1, 2, 3]
        assert [r.question for r in s.history] == ["How many purchases were made in 2024?",
                                                   "And in 2023?", "only the top 3"]
    with _connect(shop, tmp_path) as again:
        entries = again.history.entries
        assert [e.number for e in entries] == [1, 2, 3]
        assert entries[0].status == "success" and entries[0].row_count == 1 and "SELECT" in entries[0].sql
        assert entries[1].follow_up_of == 1 and entries[1].edits == ["year 2024 → 2023"]
        assert entries[2].status == "not_answerable" and entries[2].error.startswith("QUESTION_NOT_ANSWERABLE")
        assert entries[0].trace_id == first.trace_id and entries[0].seconds > 0
        # a new session starts a new conversation: nothing of the old one to follow
        assert again.ask("And in 2022?").status == "not_answerable"
        assert again.ask("How many purchases were made in 2024?").run_number == 5


def test_the_file_holds_no_rows_and_no_secrets(shop, tmp_path, monkeypatch):
    monkeypatch.setenv("SHOP_DB", str(shop))
    with nl2sql.connect(sources={"shop": "sqlite:///${SHOP_DB}"}, settings={"project_dir": tmp_path}) as s:
        listing = s.ask("List the members in Lisbon")
        assert listing.status == "success" and listing.table().num_rows == 2
    path = tmp_path / "history.jsonl"
    assert path.stat().st_mode & 0o777 == 0o600  # private, like every file of the project folder
    text = path.read_text(encoding="utf-8")
    assert "secret-mail" not in text and "Ada Byron" not in text and str(shop) not in text
    record = json.loads(text.splitlines()[0])
    assert set(record) == set(HistoryEntry.model_fields)
    assert record["row_count"] == 2


def test_open_gives_this_sessions_result_and_reruns_an_older_one(shop, tmp_path):
    with _connect(shop, tmp_path) as s:
        first = s.ask("How many purchases were made in 2024?")
        follow = s.ask("And in 2023?")
        assert s.history[0].open() is first and s.history.run(2).open() is follow
        again = s.history[-1].rerun()
        assert again.table() == follow.table() and again.run_number == 3
    with _connect(shop, tmp_path) as later:
        reopened = later.history.run(2).open()  # not in this session: run again on its plan
        assert reopened.status == "success" and reopened.table() == follow.table()
        assert reopened.sql == follow.sql
        with pytest.raises(IndexError, match="no run 99"):
            later.history.run(99)


def test_a_damaged_line_is_skipped_and_the_table_lists_the_rest(shop, tmp_path):
    with _connect(shop, tmp_path) as s:
        s.ask("How many purchases were made in 2024?")
        with (tmp_path / "history.jsonl").open("a", encoding="utf-8") as out:
            out.write('{"number": 2, "quest\n')
        s.ask("And in 2023?")
        assert [e.number for e in s.history.entries] == [1, 3]  # the damaged line kept its number
        html = s.history._repr_html_()
        assert "And in 2023?" in html and "run 1" in html and s.history.run(3).question == "And in 2023?"
        frame = s.history.to_pandas()
        assert frame["follows"].tolist()[1] == 1 and frame["rows"].tolist() == [1, 1]
        assert frame["follows"].isna().tolist() == [True, False]
        assert "↳ 1 And in 2023?" in repr(s.history)


def test_two_sessions_on_one_folder_number_their_runs_in_turn(shop, tmp_path):
    # each session counts only what it appended itself; what another one wrote is counted again
    with _connect(shop, tmp_path) as a, _connect(shop, tmp_path) as b:
        numbers = [a.ask("How many purchases were made in 2024?").run_number,
                   a.ask("How many members are there?").run_number,
                   b.ask("How many purchases were made in 2024?").run_number,
                   a.ask("How many members are there?").run_number]
        assert numbers == [1, 2, 3, 4]
        path = tmp_path / "history.jsonl"
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        path.write_text("".join(lines[:1]), encoding="utf-8")  # cut by hand to one run
        assert a.ask("How many members are there?").run_number == 2
        assert [e.number for e in b.history.entries] == [1, 2]


def test_the_cli_lists_and_reruns_the_history(shop, tmp_path, capsys, monkeypatch):
    from nl2sql.cli.main import main

    config = tmp_path / "nl2sql.toml"
    config.write_text(f'[sources.shop]\nurl = "{shop}"\n[settings]\nproject_dir = "{tmp_path / "p"}"\n',
                      encoding="utf-8")
    assert main(["history", "-c", str(config)]) == 0
    assert "no runs recorded" in capsys.readouterr().out
    assert main(["ask", "How many purchases were made in 2024?", "-c", str(config)]) == 0
    capsys.readouterr()
    assert main(["history", "-c", str(config), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [e["question"] for e in listed] == ["How many purchases were made in 2024?"]
    assert main(["history", "-c", str(config)]) == 0
    assert "How many purchases" in capsys.readouterr().out
    assert main(["history", "-c", str(config), "--rerun", "1"]) == 0
    assert "success" in capsys.readouterr().out
    assert main(["history", "-c", str(config), "--rerun", "7"]) == 1
    assert "no run 7" in capsys.readouterr().err


def test_a_long_session_keeps_only_its_latest_runs_in_memory(shop, tmp_path):
    from nl2sql.history import KEEP_RESULTS, THREAD_RUNS

    with _connect(shop, tmp_path) as s:
        first = s.ask("How many purchases were made in 2024?")
        for _ in range(THREAD_RUNS + 2):
            s.ask("And the weather?")  # refused at once: a cheap run
        assert len(s.history) == THREAD_RUNS + 3
        assert len(s._thread) == THREAD_RUNS and s.history.kept(first.trace_id) is None
        assert len([r for r in s.history if s.history.kept(r.trace_id)]) == KEEP_RESULTS
        assert s.ask("And in 2023?").status == "not_answerable"  # run 1 is no longer followed
        assert s.history[0].open().table() == first.table()  # run again on its recorded plan
