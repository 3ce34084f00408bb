"""Every run returns a result whatever the question's characters.

Undecodable shell bytes reach Python as lone surrogates (`"caf\\udce9"`), which raised
UnicodeEncodeError from the first hash of the question (the pin key, the sub-query id).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import nl2sql
from nl2sql.governance.stores import PinStore
from nl2sql.question import clean_question

QUESTIONS = [
    "how many orders caf\udce9?",  # a Latin-1 byte from a shell
    "how many orders caf\udcc3\udca9?",  # UTF-8 bytes decoded as surrogates
    "how many\ud800 orders?",  # a surrogate that is no byte at all
    "how many\x00 orders?",
    "how many orders\x07\x1b[31m?\x7f\x85",
    "how many orders? " + "very " * 750,  # just under the max_question_chars limit (4000)
]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "shop.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE orders (order_id INTEGER PRIMARY KEY, city TEXT)")
    con.executemany("INSERT INTO orders VALUES (?, ?)", [(1, "Oslo"), (2, "Rome")])
    con.commit()
    con.close()
    return path


def test_clean_question_gives_encodable_text_without_control_characters():
    for question in QUESTIONS:
        cleaned = clean_question(question)
        cleaned.encode("utf-8")  # raised for every surrogate
        assert not any(ord(ch) < 32 and ch not in "\t\n" for ch in cleaned)
    assert clean_question("caf\udcc3\udca9") == "café"
    assert PinStore.key("caf\udce9") != PinStore.key("caf\udcea")  # no UnicodeEncodeError


@pytest.mark.parametrize("question", QUESTIONS, ids=range(len(QUESTIONS)))
def test_ask_returns_a_result_for_any_characters(db: Path, tmp_path: Path, question: str):
    session = nl2sql.connect(sources={"shop": f"sqlite:///{db}"},
                             settings={"project_dir": tmp_path / "p"})
    try:
        result = session.ask(question, timeout_s=60)
        json.loads(result.to_json())  # the whole result serializes
        assert result.status in ("success", "not_answerable", "error")
        assert not [e for e in result.errors if e.error_code in ("ORCHESTRATOR_CRASH", "UNKNOWN_ERROR")]
        if "\x00" in question or "\ud800" in question:
            assert result.status == "success", result.errors  # the question reads fine once cleaned
        session.pin(result) if result.status == "success" else None  # pins hash the question
    finally:
        session.close()


@pytest.mark.parametrize("raw", [b"how many orders caf\xe9?", b"how many\x01 orders?\x1b[2J"])
def test_cli_ask_with_undecodable_or_control_bytes_prints_a_result(db: Path, tmp_path: Path,
                                                                   raw: bytes):
    (tmp_path / "nl2sql.toml").write_text(
        f'[sources.shop]\npath = "{db}"\n[settings]\nproject_dir = "{tmp_path / "p"}"\n'
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1]), "LC_ALL": "C.UTF-8"}
    done = subprocess.run([sys.executable, "-m", "nl2sql.cli.main", "ask", raw, "--json"],
                          cwd=tmp_path, env=env, capture_output=True, timeout=300)
    assert b"Traceback" not in done.stderr, done.stderr.decode(errors="replace")
    payload = json.loads(done.stdout)
    assert payload["status"] in ("success", "not_answerable", "error")
    assert not [e for e in payload["errors"] if e["error_code"] in ("ORCHESTRATOR_CRASH", "UNKNOWN_ERROR")]
    assert done.returncode == (0 if payload["status"] == "success" else 1)
