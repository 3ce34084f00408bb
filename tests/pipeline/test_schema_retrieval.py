"""The schema retriever keeps the relevant tables of a large schema (chromadb, offline)."""

from __future__ import annotations

import sqlite3

import nl2sql

TOPICS = ["invoice", "supplier", "warehouse_bin", "shipment", "carrier", "payment", "refund",
          "coupon", "campaign", "employee", "department", "timesheet", "vehicle", "route",
          "maintenance_job", "insurance_policy", "claim", "branch", "audit_log", "budget"]


def _large_db(path):
    con = sqlite3.connect(path)
    for i, topic in enumerate(TOPICS):
        con.execute(f'CREATE TABLE "{topic}" ("{topic}_id" INTEGER PRIMARY KEY, "name" TEXT, "amount" REAL)')
        con.executemany(f'INSERT INTO "{topic}" VALUES (?, ?, ?)',
                        [(k, f"{topic} {k}", float(k * (i + 1))) for k in range(1, 4 + i)])
    con.commit()
    con.close()


def test_large_schema_keeps_relevant_tables_and_answers(tmp_path):
    db = tmp_path / "ops.sqlite"
    _large_db(db)
    session = nl2sql.connect(sources={"ops": f"sqlite:///{db}"},
                             settings={"project_dir": tmp_path / "p", "exact_search_max_tables": 0})
    result = session.ask("How many carriers are there?")
    assert result.status == "success", [e.one_line() for e in result.errors]
    assert result.table().column(0)[0].as_py() == 3 + TOPICS.index("carrier")
    note = next(r["content"] for r in result.reasoning if r["node"] == "schema_retriever")
    assert note.startswith("retrieved") and f"of {len(TOPICS)} tables" in note
    kept = int(note.split(":")[1].split()[0])
    assert kept < len(TOPICS) and "carrier" in note
    assert (tmp_path / "p" / "chroma").is_dir()  # persisted in the project folder


def test_small_schema_uses_every_table_without_a_vector_store(tmp_path):
    db = tmp_path / "small.sqlite"
    con = sqlite3.connect(db)
    con.execute('CREATE TABLE "carrier" ("carrier_id" INTEGER PRIMARY KEY, "name" TEXT)')
    con.execute("INSERT INTO carrier VALUES (1, 'a')")
    con.commit()
    con.close()
    session = nl2sql.connect(sources={"s": str(db)}, settings={"project_dir": tmp_path / "p"})
    result = session.ask("How many carriers are there?")
    assert result.status == "success"
    assert not (tmp_path / "p" / "chroma").exists()  # one small source: no vector store needed
