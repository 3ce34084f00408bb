"""A copy of a Spider-format benchmark whose identifiers are renamed into another naming style,
without FOREIGN KEY declarations, with the gold queries rewritten to the new names. Questions
and rows are unchanged, so the figures measure how much of the offline engine depends on the
naming style of the databases it was developed on. `--style` chooses the convention:

* `camel` (default): tables `tblCustomerOrder`, columns camelCase behind a code of their table
  (the first four letters of a one-word name, the initials of a longer one): `custName`,
  `ordCustomerId`;
* `snake`: tables as they are, columns lower snake behind the table's initials (its first letter
  for a one-word name), the column's words glued: `c_name`, `co_orderdate`, `oli_unitprice`;
* `upper`: tables `T_CUSTOMER_ORDER`, columns UPPER_SNAKE behind a three-letter consonant code of
  the table (its first letter, then the next consonants): `CST_NAME`, `CST_ORDER_DATE`.

    python benchmarks/renamed_copy.py ../shared/benchmarks/classical /tmp/classical_coded
    python benchmarks/renamed_copy.py ../shared/benchmarks/classical /tmp/classical_upper --style upper
    nl2sql bench spider --questions /tmp/classical_coded/questions.json \
        --databases /tmp/classical_coded/database --folds 4

The copy goes outside the repository (benchmark data is never committed). A gold query that
sqlglot cannot qualify against the schema, or whose rewrite returns other rows than the
original on the original, is left out, and counted.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
from pathlib import Path

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.qualify import qualify

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def words(identifier: str) -> list[str]:
    """The lower-case words of an identifier (snake_case, camelCase, digits apart)."""
    return [w.lower() for w in _WORD.findall(identifier.replace("_", " "))]


def camel(parts: list[str]) -> str:
    return "".join(p if i == 0 else p.capitalize() for i, p in enumerate(parts))


STYLES = ("camel", "snake", "upper")


def table_code(table: str, taken: set[str], style: str = "camel") -> str:
    """A short code of a table, unique in its database: for `camel` the first four letters of a
    one-word name (`customer` -> `cust`), the initials of a longer one (`order_line_item` ->
    `oli`); for `snake` the initials (`c`, `oli`); for `upper` the first letter and the next two
    consonants of the glued name (`customer` -> `cst`, `order_line_item` -> `ord`).
    A code already taken grows by the letters that follow, then by a number."""
    parts = words(table) or ["t"]
    glued = "".join(parts)
    if style == "upper":
        skeleton = glued[0] + "".join(ch for ch in glued[1:] if ch.isalpha() and ch not in "aeiou")
        base, tail = skeleton[:3], skeleton[3:] + glued[1:]
    elif style == "snake" or len(parts) > 1:
        base = "".join(p[0] for p in parts)
        tail = parts[-1][1:] if len(parts) > 1 else parts[0][1:]
    else:
        base, tail = parts[0][:4], parts[0][4:]
    candidates = [base] + [base + tail[:n] for n in range(1, len(tail) + 1)]
    candidates += [f"{base}{n}" for n in range(2, 100)]
    code = next(c for c in candidates if c not in taken)
    taken.add(code)
    return code


def table_name(table: str, style: str) -> str:
    if style == "snake":
        return table
    if style == "upper":
        return "T_" + "_".join(w.upper() for w in words(table))
    return "tbl" + camel([w.capitalize() for w in words(table)])


def column_name(code: str, parts: list[str], style: str) -> str:
    if style == "snake":
        return f"{code}_{''.join(parts)}"
    if style == "upper":
        return "_".join([code.upper()] + [p.upper() for p in parts])
    return camel([code] + [p.capitalize() for p in parts])


def new_names(
    con: sqlite3.Connection, style: str = "camel"
) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """(old table -> new table, old table -> {old column -> new column}), keys lower-case."""
    tables = [r[0] for r in con.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    codes: set[str] = set()
    table_map, column_map = {}, {}
    for table in tables:
        code = table_code(table, codes, style)
        table_map[table.lower()] = table_name(table, style)
        own = words(table)
        columns = {}
        for (_, name, *_rest) in con.execute(f'PRAGMA table_info("{table}")'):
            parts = words(name) or ["col"]
            if parts[: len(own)] == own and len(parts) > len(own):
                parts = parts[len(own):]  # customer_name of customers -> custName
            candidate = column_name(code, parts, style)
            while candidate.lower() in {c.lower() for c in columns.values()}:
                candidate += "X"
            columns[name.lower()] = candidate
        column_map[table.lower()] = columns
    return table_map, column_map


def copy_database(
    source: Path, target: Path, keys: bool = False, style: str = "camel"
) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """Re-create `source` at `target` with the new names, its primary keys and (with `keys`)
    its foreign keys renamed too; without `keys`, no foreign keys."""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    old, new = sqlite3.connect(source), sqlite3.connect(target)
    old.text_factory = lambda b: b.decode("utf-8", "replace")  # text as stored, any encoding
    try:
        table_map, column_map = new_names(old, style)
        for table in [r[0] for r in old.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]:
            info = list(old.execute(f'PRAGMA table_info("{table}")'))
            cols = column_map[table.lower()]
            pk = [r for r in sorted(info, key=lambda r: r[5]) if r[5]]
            defs = [f'"{cols[r[1].lower()]}" {r[2] or ""}'.strip() for r in info]
            if pk:
                defs.append("PRIMARY KEY (" + ", ".join(
                    f'"{cols[r[1].lower()]}"' for r in pk) + ")")
            if keys:
                defs += _foreign_keys(old, table, table_map, column_map)
            new.execute(f'CREATE TABLE "{table_map[table.lower()]}" ({", ".join(defs)})')
            rows = old.execute(f'SELECT * FROM "{table}"').fetchall()
            if rows:
                marks = ",".join("?" * len(rows[0]))
                new.executemany(f'INSERT INTO "{table_map[table.lower()]}" VALUES ({marks})',
                                rows)
        new.commit()
        return table_map, column_map
    finally:
        old.close()
        new.close()


def _foreign_keys(con: sqlite3.Connection, table: str, table_map: dict[str, str],
                  column_map: dict[str, dict[str, str]]) -> list[str]:
    """The FOREIGN KEY clauses of `table` over the new names (a reference to an unknown table
    or column is left out)."""
    out = []
    for row in con.execute(f'PRAGMA foreign_key_list("{table}")'):
        ref, src, dst = row[2].lower(), row[3].lower(), (row[4] or "").lower()
        if ref not in table_map or src not in column_map[table.lower()]:
            continue
        ref_cols = column_map[ref]
        dst_col = ref_cols.get(dst) if dst else None
        target = f'"{table_map[ref]}"' + (f' ("{dst_col}")' if dst_col else "")
        out.append(f'FOREIGN KEY ("{column_map[table.lower()][src]}") REFERENCES {target}')
    return out


def rewrite(sql: str, table_map: dict[str, str], column_map: dict[str, dict[str, str]]) -> str:
    """The gold query over the renamed schema (ValueError when it cannot be qualified)."""
    schema = {t: {c: "TEXT" for c in cols} for t, cols in column_map.items()}
    try:
        tree = qualify(sqlglot.parse_one(sql, read="sqlite"), schema=schema, dialect="sqlite",
                       quote_identifiers=False, identify=False, validate_qualify_columns=True,
                       expand_stars=True)
    except Exception as exc:  # noqa: BLE001 - any failure leaves the question out
        raise ValueError(str(exc)) from exc
    aliases: dict[str, str] = {}
    for table in tree.find_all(exp.Table):
        name = table.name.lower()
        if name in table_map:
            aliases[(table.alias or table.name).lower()] = name
    for column in tree.find_all(exp.Column):
        owner = aliases.get(column.table.lower()) if column.table else None
        if owner and column.name.lower() in column_map[owner]:
            column.set("this", exp.to_identifier(column_map[owner][column.name.lower()]))
    for table in tree.find_all(exp.Table):
        name = table.name.lower()
        if name in table_map:
            table.set("this", exp.to_identifier(table_map[name]))
    return tree.sql(dialect="sqlite")


def _same_result(old_root: Path, new_root: Path, db: str, old_sql: str, new_sql: str) -> bool:
    """Whether the rewritten gold returns the original gold's rows on the renamed copy."""
    def rows(root: Path, sql: str) -> list[tuple[object, ...]] | None:
        con = sqlite3.connect(root / "database" / db / f"{db}.sqlite")
        con.text_factory = lambda b: b.decode("utf-8", "replace")
        try:
            return sorted(con.execute(sql).fetchall(), key=repr)
        except sqlite3.Error:
            return None
        finally:
            con.close()

    before = rows(old_root, old_sql)
    return before is not None and before == rows(new_root, new_sql)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("benchmark", type=Path, help="folder with questions.json and database/")
    parser.add_argument("target", type=Path, help="where the renamed copy goes (not the repo)")
    parser.add_argument("--questions", default="questions.json")
    parser.add_argument("--keys", action="store_true", help="keep the foreign keys (renamed)")
    parser.add_argument("--style", choices=STYLES, default="camel", help="the naming convention")
    args = parser.parse_args()
    maps = {}
    for folder in sorted(p for p in (args.benchmark / "database").iterdir() if p.is_dir()):
        source = folder / f"{folder.name}.sqlite"
        if source.is_file():
            maps[folder.name] = copy_database(
                source, args.target / "database" / folder.name / source.name, args.keys,
                args.style)
    kept, dropped = [], 0
    for q in json.loads((args.benchmark / args.questions).read_text()):
        table_map, column_map = maps[q["db_id"]]
        try:
            renamed = {**q, "query": rewrite(q["query"], table_map, column_map)}
            if q.get("query_alternatives"):
                renamed["query_alternatives"] = [rewrite(a, table_map, column_map)
                                                 for a in q["query_alternatives"]]
            same = _same_result(args.benchmark, args.target, q["db_id"], q["query"],
                                renamed["query"])
        except ValueError:
            same = False
        if not same:
            dropped += 1
            continue
        kept.append(renamed)
    (args.target / args.questions).write_text(json.dumps(kept, indent=1))
    print(f"{len(maps)} databases, {len(kept)} questions kept, {dropped} left out "
          f"(gold not qualifiable, or not the same rows) -> {args.target / args.questions}")


if __name__ == "__main__":
    main()
