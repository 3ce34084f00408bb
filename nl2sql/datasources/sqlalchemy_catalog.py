"""Read a database's catalog through SQLAlchemy's inspector into Table models.

One batch of `get_multi_*` calls per schema (columns, primary keys, foreign keys, comments),
so a schema of hundreds of tables costs a handful of catalog queries, not one per table.
Row counts come from catalog statistics (PostgreSQL `pg_class.reltuples`, MySQL
`information_schema.TABLES.TABLE_ROWS`); a table the statistics know nothing about (never
analyzed, or reported empty) is counted exactly up to `COUNT_CAP` rows, never fully scanned.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy import inspect
from sqlalchemy.engine.reflection import ObjectKind
from sqlglot import exp

from nl2sql.datasources.fingerprint import rows_digest
from nl2sql.datasources.sql_builders import normalize_type, table_expr
from nl2sql.schema.models import Column, ForeignKey, Table

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Dialect

log = logging.getLogger(__name__)

#: Rows counted exactly for a table without statistics; beyond it the count stays unknown.
COUNT_CAP = 100_000

Key = tuple[str | None, str]

# A fixed catalog query (PostgreSQL and MySQL/MariaDB both have it); schemas are bound values.
_SHAPE = sa.text(
    "SELECT table_schema, table_name, column_name, data_type FROM information_schema.columns"
    " WHERE table_schema IN :schemas ORDER BY table_schema, table_name, ordinal_position"
).bindparams(sa.bindparam("schemas", expanding=True))


def catalog_fingerprint(conn: Connection, schemas: Sequence[str | None]) -> str | None:
    """Every column's table, name and type in `schemas`; None when a schema has no name."""
    named = [s for s in schemas if s]
    if not named or len(named) != len(schemas):
        return None
    return rows_digest(conn.execute(_SHAPE, {"schemas": named}).fetchall(), named)


def read_catalog(conn: Connection, schemas: Sequence[str | None]) -> list[Table]:
    """Every table and view of `schemas`, without row counts or column statistics."""
    inspector = inspect(conn)
    qualify = len(schemas) > 1  # Table.key carries the schema only when there are several
    tables: list[Table] = []
    for schema in schemas:
        views = set(inspector.get_view_names(schema=schema)) | _materialized(inspector, schema)
        names = sorted(set(inspector.get_table_names(schema=schema)) | views)
        if not names:
            continue
        columns = inspector.get_multi_columns(schema=schema, kind=ObjectKind.ANY)
        primary = inspector.get_multi_pk_constraint(schema=schema, kind=ObjectKind.ANY)
        foreign = inspector.get_multi_foreign_keys(schema=schema, kind=ObjectKind.ANY)
        comments = _comments(inspector, schema)
        for name in names:
            key = (schema, name)
            constraint = primary.get(key)
            pk = list((constraint.get("constrained_columns") if constraint else None) or [])
            tables.append(
                Table(
                    name=name,
                    schema_name=schema if qualify else None,
                    kind="view" if name in views else "table",
                    columns=[_column(c, pk, conn.dialect) for c in columns.get(key, [])],
                    primary_key=pk,
                    foreign_keys=[_foreign_key(f, schema, qualify) for f in foreign.get(key, [])],
                    description=comments.get(key) or None,
                )
            )
    return tables


def with_row_counts(
    tables: list[Table],
    estimates: Mapping[Key, float | None],
    count: Callable[[exp.Table], int | None],
    schemas: Sequence[str | None],
) -> list[Table]:
    """Tables with `row_count` from the statistics, or a bounded count where they are silent."""
    single = schemas[0] if len(schemas) == 1 else None
    out = []
    for table in tables:
        if table.kind != "table":
            out.append(table)
            continue
        estimate = estimates.get((table.schema_name or single, table.name))
        rows = int(estimate) if estimate is not None and estimate > 0 else None
        if rows is None:
            rows = count(table_expr(table.name, table.schema_name))
        out.append(table.model_copy(update={"row_count": rows}))
    return out


def bounded_count_sql(table: exp.Table, dialect: str) -> str:
    """SELECT COUNT(*) over at most COUNT_CAP + 1 rows of the table."""
    bounded = exp.select(exp.Literal.number(1)).from_(table.copy()).limit(COUNT_CAP + 1)
    query = exp.select(exp.Count(this=exp.Star())).from_(bounded.subquery("bounded"))
    return query.sql(dialect)


def capped_count(value: Any) -> int | None:
    """A bounded count, or None when it reached the cap (the table is larger)."""
    count = int(value)
    return count if count <= COUNT_CAP else None


def _column(info: Mapping[str, Any], pk: list[str], dialect: Dialect) -> Column:
    return Column(
        name=info["name"],
        type=normalize_type(_type_name(info["type"], dialect)),
        nullable=bool(info.get("nullable", True)) and info["name"] not in pk,
        primary_key=info["name"] in pk,
        description=info.get("comment") or None,
    )


def _type_name(type_: Any, dialect: Dialect) -> str:
    try:
        rendered: str = type_.compile(dialect=dialect)
        return rendered
    except Exception:  # noqa: BLE001 - a type the dialect cannot render (NullType): its repr
        return str(type_.__class__.__name__).upper() if type_ is not None else ""


def _foreign_key(info: Mapping[str, Any], schema: str | None, qualify: bool) -> ForeignKey:
    ref_schema = info.get("referred_schema") or schema
    ref_table = info["referred_table"]
    return ForeignKey(
        columns=list(info["constrained_columns"]),
        ref_table=f"{ref_schema}.{ref_table}" if qualify and ref_schema else ref_table,
        ref_columns=list(info["referred_columns"]),
    )


def _materialized(inspector: Any, schema: str | None) -> set[str]:
    try:
        return set(inspector.get_materialized_view_names(schema=schema))
    except (NotImplementedError, AttributeError):  # only some dialects have them
        return set()


def _comments(inspector: Any, schema: str | None) -> dict[Key, str | None]:
    try:
        found = inspector.get_multi_table_comment(schema=schema, kind=ObjectKind.ANY)
    except NotImplementedError:  # e.g. SQLite keeps no comments
        return {}
    return {key: (value or {}).get("text") for key, value in found.items()}
