"""How often the pipeline refuses (or asks to clarify) questions its databases cannot answer.

For each database of a Spider-format folder, questions are made about an attribute the database
does not hold: a column word of *another* database, one that is only ever a noun, that neither this database's identifiers nor
a WordNet synonym of them name, asked of one of this database's tables in a few plain forms
("What is the <attribute> of each <table>?", "Which <tables> have the highest <attribute>?",
"How many <tables> have a <attribute> above 5?", "List the <attribute> of every <table>."). A
right outcome is any status but `success`: refused, not answerable, or needs clarification.

    python benchmarks/unanswerable.py ../shared/benchmarks/spider_dev/database [--per-db 12]

Prints the share refused per database and overall, and every question that was answered (with
its SQL), so a wrong "answer" can be read.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import tempfile
from pathlib import Path

FORMS = (
    "What is the {attr} of each {table}?",
    "Which {tables} have the highest {attr}?",
    "How many {tables} have a {attr} above 5?",
    "List the {attr} of every {table}.",
)


def identifiers(db: Path) -> tuple[list[str], list[str]]:
    """(table names, column names) of a SQLite file."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in con.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        columns = [r[1] for t in tables for r in con.execute(f'PRAGMA table_info("{t}")')]
        return tables, columns
    finally:
        con.close()


def questions(databases: Path, per_db: int, seed: int) -> dict[str, list[str]]:
    """db id -> questions about attributes it does not hold."""
    from nl2sql.inflection import inflect_engine
    from nl2sql.reasoning.offline.words import wordnet
    from nl2sql.reasoning.offline.words.text import (
        FRAME,
        STOP,
        canon,
        parts_of_speech,
        split_identifier,
    )

    files = {p.name: p / f"{p.name}.sqlite" for p in sorted(databases.iterdir())
             if (p / f"{p.name}.sqlite").is_file()}
    names = {db: identifiers(path) for db, path in files.items()}
    words = {db: {w.lower() for n in tables + columns for w in split_identifier(n)}
             for db, (tables, columns) in names.items()}
    rng = random.Random(seed)
    out: dict[str, list[str]] = {}
    for db, (tables, _) in names.items():
        own = {canon(w) for w in words[db]}
        # an attribute is a word that can only be a noun (lemminflect), named nowhere here
        foreign = sorted({w for other, ws in words.items() if other != db for w in ws
                          if w.isalpha() and len(w) > 3 and w not in STOP | FRAME
                          and parts_of_speech(w) == {"NOUN"} and canon(w) not in own
                          and not any(wordnet.share_sense(w, o, "n") for o in words[db])})
        rng.shuffle(foreign)
        made = []
        for attr in foreign[:per_db]:
            table = " ".join(split_identifier(rng.choice(tables))).lower()
            form = rng.choice(FORMS)
            made.append(form.format(attr=attr, table=table,
                                    tables=inflect_engine().plural_noun(table) or table))
        out[db] = made
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("databases", type=Path, help="folder of <db_id>/<db_id>.sqlite")
    parser.add_argument("--per-db", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    import nl2sql

    asked = questions(args.databases, args.per_db, args.seed)
    refused = total = 0
    with tempfile.TemporaryDirectory() as project:
        for db, made in asked.items():
            session = nl2sql.connect(
                sources={db: str(args.databases / db / f"{db}.sqlite")},
                settings={"project_dir": project})
            kept = 0
            for q in made:
                result = session.ask(q)
                if result.status != "success":
                    kept += 1
                else:
                    print(f"  answered [{db}] {q}\n    {result.sql}")
            print(f"{db}: {kept}/{len(made)} refused or sent to clarification")
            refused, total = refused + kept, total + len(made)
            session.close()
    print(f"all: {refused}/{total} = {refused / max(total, 1):.1%} refused or sent to clarification")
    sys.exit(0)


if __name__ == "__main__":
    main()
