"""Dialect names: the one table from SQLAlchemy's and users' names to sqlglot's.

Datasources, the SQL guard, the SQL generator, governance and the notebook all name dialects; the
aliases (postgresql→postgres, mariadb→mysql, sqlite3→sqlite, mssql→tsql, …) live only here, below
all of them, so a name one part accepts is never read differently by another.
"""

from __future__ import annotations

from nl2sql.errors import SQLGenError

#: SQLAlchemy dialect names (and sqlglot's own names) -> sqlglot dialect names.
DIALECTS: dict[str, str] = {
    "duckdb": "duckdb",
    "sqlite": "sqlite",
    "sqlite3": "sqlite",
    "postgresql": "postgres",
    "postgres": "postgres",
    "mysql": "mysql",
    "mariadb": "mysql",
    "mssql": "tsql",
    "tsql": "tsql",
    "bigquery": "bigquery",
    "snowflake": "snowflake",
    "redshift": "redshift",
    "oracle": "oracle",
    "trino": "trino",
    "presto": "presto",
    "awsathena": "athena",
    "athena": "athena",
    "databricks": "databricks",
    "spark": "spark",
    "hive": "hive",
    "clickhouse": "clickhouse",
    "teradata": "teradata",
    "exasol": "exasol",
    "doris": "doris",
    "starrocks": "starrocks",
    "singlestore": "singlestore",
    "materialize": "materialize",
    "risingwave": "risingwave",
}


def _key(name: str | None) -> str:
    """`postgresql+psycopg` → `postgresql`: the driver never changes the dialect."""
    return (name or "").strip().lower().split("+", 1)[0]


def sqlglot_dialect(name: str) -> str:
    """Map a SQLAlchemy or sqlglot dialect name (`postgresql+psycopg` too) to sqlglot's name.

    Raises SQLGenError for a name outside the table.

    >>> sqlglot_dialect("postgresql+psycopg"), sqlglot_dialect("mariadb"), sqlglot_dialect("mssql")
    ('postgres', 'mysql', 'tsql')
    """
    try:
        return DIALECTS[_key(name)]
    except KeyError:
        known = ", ".join(sorted(DIALECTS))
        raise SQLGenError(
            f"Unknown SQL dialect {name!r}; use one of: {known}.", dialect=name
        ) from None


def dialect_name(name: str) -> str:
    """sqlglot's name for `name`, or `name` itself (lower case) when the table does not know it.

    For code that hands the name straight to sqlglot, which accepts dialects beyond the table
    and raises its own error for the rest.

    >>> dialect_name("sqlite3"), dialect_name("Dremio")
    ('sqlite', 'dremio')
    """
    key = _key(name)
    return DIALECTS.get(key, key)
