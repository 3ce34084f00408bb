"""The SQL guard's rules over a parsed statement: no writes anywhere, only allowed functions, only
real tables of the datasource (no files, URLs or unlisted table functions)."""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from typing import cast

import sqlglot.expressions as exp
from sqlglot.expressions import ddl, dml

from nl2sql.security.sql_guard_functions import (
    ANONYMOUS_CLASSES,
    DENIED_CLASSES,
    TABLE_FUNCTION_CLASSES,
    is_allowed_scalar,
    is_allowed_table_function,
    is_denied,
)
from nl2sql.security.sql_guard_result import GuardCode, GuardResult, refuse, shown

# Statements that only read (they are still not queries: the root check refuses them).
READ_STATEMENT_CLASSES = frozenset({exp.Describe, exp.Show, exp.Summarize})
# Helpers defined beside the DDL classes that also occur inside ordinary queries.
_QUERY_HELPERS = {exp.Comprehension, exp.CharacterSet, exp.Heredoc}
_WRITE_EXTRAS = """
    Into Lock Grant Revoke Analyze Put Get ListStage Cache Uncache Refresh LockingStatement
    StoredProcedure Block IfBlock WhileBlock LoopBlock RepeatBlock ConditionalInsert
    MultitableInserts AddPartition DropPartition ReplacePartition
""".split()
_LABELS = {
    "into": "SELECT ... INTO",
    "lock": "a row-locking clause (FOR UPDATE/SHARE)",
    "truncatetable": "TRUNCATE",
    "loaddata": "LOAD DATA",
}
# Suffixes DuckDB (or an extension it may autoload) reads as a file when used as a table name.
_FILE_EXTENSIONS = frozenset(
    "csv tsv txt parquet json jsonl ndjson gz zst zstd bz2 xz lz4 arrow feather ipc avro orc "
    "xlsx xls db sqlite sqlite3 duckdb ddb".split()
)
# DuckDB runs `FROM (SHOW TABLES)`; sqlglot reads it as a table named SHOW aliased TABLES.
_DUCKDB_STATEMENT_WORDS = frozenset({"show", "summarize", "describe", "desc"})
_PRIORITY = (
    GuardCode.NOT_A_QUERY,
    GuardCode.FORBIDDEN_FUNCTION,
    GuardCode.FORBIDDEN_TABLE_SOURCE,
    GuardCode.UNKNOWN_TABLE,
)


def _with_subclasses(classes: Iterable[type]) -> frozenset[type]:
    found: set[type] = set()
    todo = list(classes)
    while todo:
        cls = todo.pop()
        if cls not in found:
            found.add(cls)
            todo.extend(cls.__subclasses__())
    return frozenset(found)


def _write_classes() -> frozenset[type]:
    # Everything sqlglot defines as DDL/DML (statements, their clauses, Command for the rest),
    # so a statement type added by a newer sqlglot is refused by default.
    defined = {
        c
        for module in (ddl, dml)
        for c in vars(module).values()
        if inspect.isclass(c) and c.__module__ == module.__name__ and issubclass(c, exp.Expr)
    }
    extras = {getattr(exp, name) for name in _WRITE_EXTRAS if hasattr(exp, name)}
    return _with_subclasses(defined - _QUERY_HELPERS - READ_STATEMENT_CLASSES | extras)


WRITE_CLASSES = _write_classes()


def write_label(node: exp.Expr) -> str:
    """What a write node is, for a message: "DELETE", "SELECT ... INTO", "VACUUM"."""
    if isinstance(node, exp.Command):
        return str(node.this).upper()
    label = _LABELS.get(node.key, node.key.upper())
    return f"{label} inside a WITH clause" if node.find_ancestor(exp.CTE) else label


def first_write(root: exp.Expr) -> exp.Expr | None:
    """The first node anywhere in the tree that writes or changes state, if any."""
    return next((n for n in root.walk() if type(n) in WRITE_CLASSES), None)


def inspect_query(
    root: exp.Expr, dialect: str, sql: str, allowed_tables: frozenset[str] | None
) -> GuardResult | None:
    """The refusal for a query tree (writes first, then functions, then tables), or None."""
    found: dict[GuardCode, GuardResult] = {}
    for node in root.walk():
        cls = type(node)
        if cls in WRITE_CLASSES:
            return refuse(
                GuardCode.WRITE_OPERATION,
                f"Only read-only queries may run; the SQL contains {write_label(node)}.",
            )
        if cls in READ_STATEMENT_CLASSES:
            # DESCRIBE/SHOW/SUMMARIZE nested in a query would list objects past the table checks
            return refuse(
                GuardCode.NOT_A_QUERY,
                f"A {node.key.upper()} statement may not be used inside a query.",
            )
        if isinstance(node, exp.Func):
            verdict = _function_verdict(node, dialect)
        elif cls is exp.Table:
            verdict = _table_verdict(cast(exp.Table, node), dialect, sql, allowed_tables)
        else:
            continue
        if verdict is not None:
            found.setdefault(GuardCode(verdict.code), verdict)
    return next((found[c] for c in _PRIORITY if c in found), None)


def _function_verdict(node: exp.Func, dialect: str) -> GuardResult | None:
    cls = type(node)
    as_table = node.arg_key == "this" and isinstance(node.parent, (exp.Table, exp.Lateral))
    if cls in DENIED_CLASSES:
        return _denied(node.sql_name().lower())
    if cls not in ANONYMOUS_CLASSES:
        if as_table and cls not in TABLE_FUNCTION_CLASSES:
            return refuse(
                GuardCode.FORBIDDEN_TABLE_SOURCE,
                f"Function {shown(node.sql_name().lower())}() may not be used as a table.",
            )
        return None
    name = node.name
    if is_denied(name, dialect):
        return _denied(name)
    if as_table:
        if is_allowed_table_function(name, dialect):
            return None
        return refuse(
            GuardCode.FORBIDDEN_TABLE_SOURCE,
            f"Table function {shown(name)}() is not an allowed table source for {dialect}.",
        )
    qualifier = _qualifier(node)
    if qualifier is not None and qualifier.lower() != "pg_catalog":
        return refuse(
            GuardCode.FORBIDDEN_FUNCTION,
            f"Function {shown(qualifier)}.{shown(name)}() is not allowed: only built-in "
            "functions may be called.",
        )
    if is_allowed_scalar(name, dialect):
        return None
    return refuse(
        GuardCode.FORBIDDEN_FUNCTION,
        f"Function {shown(name)}() is not on the allow-list of standard {dialect} functions.",
    )


def _denied(name: str) -> GuardResult:
    return refuse(
        GuardCode.FORBIDDEN_FUNCTION,
        f"Function {shown(name)}() is not allowed: it can read files, reach the network, "
        "run other SQL or change server state.",
    )


def _qualifier(node: exp.Func) -> str | None:
    """The schema (or object) a function call is qualified with: `s.f(x)`, `x.f()`."""
    parent = node.parent
    if isinstance(parent, exp.Dot) and node.arg_key == "expression":
        left = parent.this
        if isinstance(left, (exp.Identifier, exp.Column, exp.Dot)):
            return left.sql()
    return None


def _table_verdict(
    table: exp.Table, dialect: str, sql: str, allowed: frozenset[str] | None
) -> GuardResult | None:
    source = table.this
    if source is None or isinstance(source, exp.Func):
        return None  # ROWS FROM (...) wraps tables; functions are judged where they are visited
    if not isinstance(source, exp.Identifier):
        return refuse(
            GuardCode.FORBIDDEN_TABLE_SOURCE,
            f"A table given by an expression ({shown(source.sql())}) is not allowed.",
        )
    parts = [p.name for p in table.parts]
    dotted = ".".join(parts)
    if dialect == "duckdb" and not source.quoted and dotted.lower() in _DUCKDB_STATEMENT_WORDS:
        return refuse(
            GuardCode.NOT_A_QUERY,
            f"A {dotted.upper()} statement may not be used inside a query.",
        )
    if _is_file_like(parts, dialect) or (dialect == "duckdb" and _is_string_literal(source, sql)):
        return refuse(
            GuardCode.FORBIDDEN_TABLE_SOURCE,
            f"Table source {shown(dotted)!r} looks like a file path or URL; only the "
            "datasource's tables may be read.",
        )
    if allowed is None or table_is_cte(table):
        return None
    names = {dotted.lower(), parts[-1].lower()}
    if len(parts) > 1:
        names.add(".".join(parts[-2:]).lower())
    if names & allowed:
        return None
    return refuse(
        GuardCode.UNKNOWN_TABLE,
        f"Table {shown(dotted)} is not one of the tables this query may read.",
    )


def _is_file_like(parts: list[str], dialect: str) -> bool:
    for part in parts:
        if any(ch in part for ch in "/\\*?") or part.startswith("~") or ":" in part:
            return True
    if dialect == "duckdb":
        # DuckDB reads a file for an unknown name that looks like one, even unquoted (data.csv)
        if any("." in part for part in parts):
            return True
        return len(parts) > 1 and parts[-1].lower() in _FILE_EXTENSIONS
    return False


def _is_string_literal(ident: exp.Identifier, sql: str) -> bool:
    # sqlglot turns FROM 'x' into a quoted identifier; the source text still shows the quote.
    # DuckDB reads such a string as a file; SQLite takes it as a table name.
    start = ident.meta.get("start")
    return isinstance(start, int) and 0 <= start < len(sql) and sql[start] == "'"


def table_is_cte(table: exp.Table) -> bool:
    """True when an unqualified table name refers to a CTE visible where it is used."""
    if table.args.get("db") or table.args.get("catalog"):
        return False
    name = table.name.lower()
    prev: exp.Expr = table
    node = table.parent
    while node is not None:
        if isinstance(node, exp.With):
            ctes = node.expressions
            at = next((i for i, cte in enumerate(ctes) if cte is prev), len(ctes))
            # without RECURSIVE a CTE sees only the CTEs before it; its own name is a table
            visible = ctes if node.args.get("recursive") else ctes[:at]
            if any(cte.alias.lower() == name for cte in visible):
                return True
        else:
            with_ = node.args.get("with_") or node.args.get("with")
            if isinstance(with_, exp.With) and with_ is not prev:
                if any(cte.alias.lower() == name for cte in with_.expressions):
                    return True
        prev, node = node, node.parent
    return False
