"""The SQL guard's rules over a parsed statement: no writes anywhere, only allowed functions, no
session variables, only real tables of the datasource (see `sql_guard_tables`)."""

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
from nl2sql.security.sql_guard_lexical import session_variable_refusal
from nl2sql.security.sql_guard_result import GuardCode, GuardResult, refuse, shown
from nl2sql.security.sql_guard_tables import cte_references, table_verdict

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
_PRIORITY = (
    GuardCode.NOT_A_QUERY,
    GuardCode.SESSION_VARIABLE,
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
    ctes = cte_references(root)
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
            verdict = table_verdict(cast(exp.Table, node), dialect, sql, allowed_tables, id(node) in ctes)
        elif cls is exp.SessionParameter:
            verdict = session_variable_refusal(node.sql(dialect))
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
