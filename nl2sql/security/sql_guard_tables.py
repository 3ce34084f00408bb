"""The SQL guard's rules for table sources: the datasource's own tables, nothing else.

A table is named exactly as the snapshot keys it (`Table.key`: the bare name, or `schema.name`
when the source reads several schemas). A bare reference matches a bare key; a qualified one
must equal a qualified key, so `hr.t` never passes for a key `t` (the bare-key source's schema
is the engine's default one, reached by the bare name; `main.t` is accepted for DuckDB and
SQLite, whose own database is always called `main`). System catalogs (pg_catalog,
information_schema, mysql, performance_schema, sys, SQLite's `sqlite_*` tables, DuckDB's
`duckdb_*` views and its `system`/`temp` catalogs) are refused whatever the allowed tables say,
and so are file paths and URLs used as table names.
"""

from __future__ import annotations

from collections.abc import Collection

import sqlglot.expressions as exp

from nl2sql.security.sql_guard_result import GuardCode, GuardResult, refuse, shown

# Suffixes DuckDB (or an extension it may autoload) reads as a file when used as a table name.
_FILE_EXTENSIONS = frozenset(
    "csv tsv txt parquet json jsonl ndjson gz zst zstd bz2 xz lz4 arrow feather ipc avro orc "
    "xlsx xls db sqlite sqlite3 duckdb ddb".split()
)
# DuckDB runs `FROM (SHOW TABLES)`; sqlglot reads it as a table named SHOW aliased TABLES.
_DUCKDB_STATEMENT_WORDS = frozenset({"show", "summarize", "describe", "desc"})
# Schemas and catalogs that hold the engine's own metadata, users or settings, in any engine.
_SYSTEM_SCHEMAS = frozenset(
    "information_schema pg_catalog pg_toast performance_schema mysql sys system temp "
    "pg_temp".split()
)
_SYSTEM_SCHEMA_PREFIXES = ("pg_temp_", "pg_toast_")
# Table names an engine resolves to its catalog even unqualified (PostgreSQL searches
# pg_catalog first; DuckDB's search path ends in the system catalog).
_SYSTEM_TABLE_PREFIXES = {
    "postgres": ("pg_",),
    "duckdb": ("duckdb_", "pg_", "sqlite_"),
    "sqlite": ("sqlite_",),
}
_SYSTEM_TABLES = {"sqlite": frozenset({"dbstat"})}
# The name the engine gives the connection's own database, usable before a bare key.
_OWN_DATABASE = {"duckdb": "main", "sqlite": "main"}


def table_verdict(
    table: exp.Table, dialect: str, sql: str, allowed: frozenset[str] | None, is_cte: bool
) -> GuardResult | None:
    """The refusal for one table source, or None when it may be read."""
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
            GuardCode.NOT_A_QUERY, f"A {dotted.upper()} statement may not be used inside a query."
        )
    if _is_file_like(parts, dialect) or (dialect == "duckdb" and _is_string_literal(source, sql)):
        return refuse(
            GuardCode.FORBIDDEN_TABLE_SOURCE,
            f"Table source {shown(dotted)!r} looks like a file path or URL; only the "
            "datasource's tables may be read.",
        )
    if is_cte:
        return None
    if _is_system(parts, dialect):
        return refuse(
            GuardCode.FORBIDDEN_TABLE_SOURCE,
            f"Table {shown(dotted)} belongs to the database's system catalog; only the "
            "datasource's tables may be read.",
        )
    if allowed is None or _is_allowed(parts, dialect, allowed):
        return None
    other = " (another schema or database)" if len(parts) > 1 else ""
    return refuse(
        GuardCode.UNKNOWN_TABLE,
        f"Table {shown(dotted)}{other} is not one of the tables this query may read.",
    )


def _is_allowed(parts: list[str], dialect: str, allowed: Collection[str]) -> bool:
    lowered = [p.lower() for p in parts]
    if ".".join(lowered) in allowed:
        return True
    own = _OWN_DATABASE.get(dialect)
    return len(lowered) == 2 and lowered[0] == own and lowered[1] in allowed


def _is_system(parts: list[str], dialect: str) -> bool:
    lowered = [p.lower() for p in parts]
    for qualifier in lowered[:-1]:
        if qualifier in _SYSTEM_SCHEMAS or qualifier.startswith(_SYSTEM_SCHEMA_PREFIXES):
            return True
    name = lowered[-1]
    return name.startswith(_SYSTEM_TABLE_PREFIXES.get(dialect, ())) or name in _SYSTEM_TABLES.get(
        dialect, frozenset()
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


def cte_references(root: exp.Expr) -> set[int]:
    """ids of the unqualified Table nodes that name a CTE visible where they are used.

    One pass down the tree carrying the visible CTE names (linear, unlike walking up from each
    table): without RECURSIVE a CTE sees only the CTEs before it, so its own name is a table.
    """
    found: set[int] = set()
    stack: list[tuple[exp.Expr, frozenset[str]]] = [(root, frozenset())]
    while stack:
        node, visible = stack.pop()
        if isinstance(node, exp.Table) and node.name.lower() in visible:
            if not (node.args.get("db") or node.args.get("catalog")):
                found.add(id(node))
        with_ = None if isinstance(node, exp.With) else node.args.get("with_") or node.args.get("with")
        inner = visible
        if isinstance(with_, exp.With):
            names = [cte.alias.lower() for cte in with_.expressions]
            inner = visible | frozenset(names)
            recursive = bool(with_.args.get("recursive"))
            for i, cte in enumerate(with_.expressions):
                stack.append((cte, inner if recursive else visible | frozenset(names[:i])))
        for child in node.iter_expressions():
            if child is not with_:
                stack.append((child, inner))
    return found
