"""A copy of Spider-format SQLite databases without their FOREIGN KEY declarations (tables,
primary keys and rows unchanged), in a folder outside the repository, to measure what
`nl2sql bench spider --describe` brings on databases that declare no keys.

    python benchmarks/keyless_copy.py ../shared/benchmarks/spider_dev/database /tmp/spider_keyless
    nl2sql bench spider --questions ../shared/benchmarks/spider_dev/questions.json \
        --databases /tmp/spider_keyless [--describe]
"""

from __future__ import annotations

import argparse
import sqlite3
from pathlib import Path

import sqlglot
from sqlglot import exp


def without_foreign_keys(create_sql: str) -> str:
    """The CREATE TABLE statement with its FOREIGN KEY and REFERENCES clauses removed."""
    tree = sqlglot.parse_one(create_sql, read="sqlite")
    for node in list(tree.find_all(exp.ForeignKey, exp.Reference)):
        holder = node.parent
        (holder if isinstance(holder, exp.ColumnConstraint | exp.Constraint) else node).pop()
    return tree.sql(dialect="sqlite")


def copy_database(source: Path, target: Path) -> int:
    """Re-create `source` at `target` without foreign keys; the foreign keys left (0)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    old, new = sqlite3.connect(source), sqlite3.connect(target)
    try:
        tables = old.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table' "
                             "AND sql IS NOT NULL AND name NOT LIKE 'sqlite_%'").fetchall()
        for name, sql in tables:
            new.execute(without_foreign_keys(sql))
            rows = old.execute(f'SELECT * FROM "{name}"').fetchall()
            if rows:
                marks = ",".join("?" * len(rows[0]))
                new.executemany(f'INSERT INTO "{name}" VALUES ({marks})', rows)
        new.commit()
        return sum(len(new.execute(f'PRAGMA foreign_key_list("{name}")').fetchall()) for name, _ in tables)
    finally:
        old.close()
        new.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("databases", type=Path, help="folder of <db_id>/<db_id>.sqlite")
    parser.add_argument("target", type=Path, help="where the key-less copies go (not the repo)")
    args = parser.parse_args()
    for folder in sorted(p for p in args.databases.iterdir() if p.is_dir()):
        source = folder / f"{folder.name}.sqlite"
        if source.is_file():
            left = copy_database(source, args.target / folder.name / source.name)
            print(f"{folder.name}: foreign keys left {left}")


if __name__ == "__main__":
    main()
