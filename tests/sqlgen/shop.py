"""The small shop database the SQL generation tests render against and execute on.

One definition of the tables and rows, created on DuckDB, SQLite, PostgreSQL and MariaDB with
DDL and INSERTs that sqlglot writes for each dialect, and the SchemaSnapshot that describes it.
"""

from __future__ import annotations

from sqlglot import exp

from nl2sql.schema.models import Column, SchemaSnapshot, Table

# table -> [(column, neutral type)]; dates are ISO strings (SQLite keeps them as text)
COLUMNS: dict[str, list[tuple[str, str]]] = {
    "customers": [
        ("customer_id", "INT"),
        ("name", "VARCHAR(40)"),
        ("city", "VARCHAR(40)"),
        ("signup_date", "DATE"),
        ("tier", "VARCHAR(20)"),
    ],
    "products": [
        ("product_id", "INT"),
        ("title", "VARCHAR(40)"),
        ("category", "VARCHAR(20)"),
        ("price", "DOUBLE"),
    ],
    "orders": [
        ("order_id", "INT"),
        ("customer_id", "INT"),
        ("order_date", "DATE"),
        ("status", "VARCHAR(20)"),
        ("amount", "DOUBLE"),
    ],
    "order_items": [("order_id", "INT"), ("product_id", "INT"), ("quantity", "INT")],
}

ROWS: dict[str, list[tuple]] = {
    "customers": [
        (1, "Ada", "London", "2023-01-15", "gold"),
        (2, "Bo", "Paris", "2023-03-02", "silver"),
        (3, "Cy", None, "2023-07-20", "silver"),
        (4, "Dee", "Berlin", "2024-02-11", "bronze"),
        (5, "Eve", "London", "2024-05-30", "gold"),
        (6, "Finn", "Madrid", "2024-08-01", "bronze"),
    ],
    "products": [
        (10, "Lamp", "home", 25.5),
        (11, "Desk", "home", 180.0),
        (12, "Pen", "office", 2.25),
        (13, "Notebook", "office", 4.75),
        (14, "Chair", "home", 95.0),
        (15, "Stapler", "office", 7.5),
    ],
    "orders": [
        (100, 1, "2024-01-05", "shipped", 120.5),
        (101, 1, "2024-02-14", "shipped", 80.0),
        (102, 2, "2024-02-20", "cancelled", 15.25),
        (103, 3, "2024-04-01", "shipped", 200.0),
        (104, 4, "2024-05-09", "pending", None),
        (105, 5, "2024-07-18", "shipped", 55.75),
        (106, 2, "2024-11-30", "shipped", 310.0),
        (107, 5, "2023-12-24", "shipped", 42.0),
    ],
    "order_items": [
        (100, 10, 2),
        (100, 12, 10),
        (101, 13, 4),
        (102, 12, 1),
        (103, 11, 1),
        (103, 14, 1),
        (105, 10, 1),
        (106, 11, 1),
        (106, 14, 2),
        (107, 13, 3),
    ],
}

_KEYS = {"customers": "customer_id", "products": "product_id", "orders": "order_id"}


def snapshot(dialect: str = "duckdb") -> SchemaSnapshot:
    """The SchemaSnapshot of the shop, with the engine-neutral type names."""
    tables = [
        Table(
            name=name,
            columns=[
                Column(name=c, type=t.split("(")[0], primary_key=c == _KEYS.get(name))
                for c, t in columns
            ],
            primary_key=[_KEYS[name]] if name in _KEYS else [],
        )
        for name, columns in COLUMNS.items()
    ]
    return SchemaSnapshot(datasource_id="shop", dialect=dialect, tables=tables)


def setup_statements(dialect: str) -> list[str]:
    """CREATE TABLE and INSERT statements for the shop, written by sqlglot for `dialect`."""
    statements = []
    for name, columns in COLUMNS.items():
        table = exp.to_table(name, quoted=True)
        defs = [
            exp.ColumnDef(this=exp.to_identifier(c, quoted=True), kind=exp.DataType.build(t))
            for c, t in columns
        ]
        create = exp.Create(this=exp.Schema(this=table, expressions=defs), kind="TABLE")
        insert = exp.insert(exp.values(ROWS[name]), table)
        statements += [create.sql(dialect, identify=True), insert.sql(dialect, identify=True)]
    return statements
