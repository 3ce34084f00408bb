"""Write the demo warehouse into a DuckDB file: declared keys, table comments, Arrow bulk loads."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlglot import exp

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

    from nl2sql.demo.warehouse import Warehouse

# Fixed DDL (no interpolated names or values). Load order follows the foreign keys.
DDL = (
    """CREATE TABLE regions (
        region_id INTEGER PRIMARY KEY,
        region_name VARCHAR NOT NULL UNIQUE)""",
    """CREATE TABLE stores (
        store_id INTEGER PRIMARY KEY,
        store_name VARCHAR NOT NULL,
        city VARCHAR NOT NULL,
        state VARCHAR NOT NULL,
        region_id INTEGER NOT NULL REFERENCES regions (region_id))""",
    """CREATE TABLE customers (
        customer_id INTEGER PRIMARY KEY,
        first_name VARCHAR NOT NULL,
        last_name VARCHAR NOT NULL,
        email VARCHAR NOT NULL,
        segment VARCHAR NOT NULL,
        city VARCHAR NOT NULL,
        state VARCHAR NOT NULL,
        region_id INTEGER NOT NULL REFERENCES regions (region_id),
        signup_date DATE NOT NULL)""",
    """CREATE TABLE products (
        product_id INTEGER PRIMARY KEY,
        product_name VARCHAR NOT NULL,
        category VARCHAR NOT NULL,
        brand VARCHAR NOT NULL,
        unit_price DECIMAL(10, 2) NOT NULL)""",
    """CREATE TABLE dates (
        date_key DATE PRIMARY KEY,
        year INTEGER NOT NULL,
        quarter INTEGER NOT NULL,
        month INTEGER NOT NULL,
        month_name VARCHAR NOT NULL,
        day_of_week VARCHAR NOT NULL,
        is_weekend BOOLEAN NOT NULL)""",
    """CREATE TABLE orders (
        order_id INTEGER PRIMARY KEY,
        customer_id INTEGER NOT NULL REFERENCES customers (customer_id),
        store_id INTEGER NOT NULL REFERENCES stores (store_id),
        order_date DATE NOT NULL REFERENCES dates (date_key),
        status VARCHAR NOT NULL,
        channel VARCHAR NOT NULL)""",
    """CREATE TABLE order_items (
        order_item_id INTEGER PRIMARY KEY,
        order_id INTEGER NOT NULL REFERENCES orders (order_id),
        product_id INTEGER NOT NULL REFERENCES products (product_id),
        quantity INTEGER NOT NULL,
        unit_price DECIMAL(10, 2) NOT NULL,
        discount DECIMAL(4, 2) NOT NULL)""",
)
LOAD_ORDER = ("regions", "stores", "customers", "products", "dates", "orders", "order_items")

TABLE_COMMENTS = {
    "regions": "Sales regions (North, South, East, West, Central).",
    "stores": "Physical stores; each belongs to one region. Online orders are fulfilled by a store.",
    "customers": "Customers with their segment, home city and state, region and signup date.",
    "products": "Product catalog with category, brand and current list price in US dollars.",
    "dates": "Calendar of every day from 2023-01-01 to 2025-06-30 (year, quarter, month, weekday).",
    "orders": "One row per order: customer, store, order date, status and sales channel.",
    "order_items": "Order lines. Revenue of a line = quantity * unit_price * (1 - discount).",
}
COLUMN_COMMENTS = {
    (
        "orders",
        "status",
    ): "completed, returned, cancelled or pending; revenue counts completed orders",
    ("orders", "channel"): "online or in-store",
    ("order_items", "unit_price"): "price per unit at the time of sale, US dollars",
    ("order_items", "discount"): "fraction taken off the unit price, 0.00 to 0.25",
    ("products", "unit_price"): "current list price, US dollars",
    ("customers", "segment"): "Consumer, Corporate or Small Business",
}


def write_warehouse(path: Path, warehouse: Warehouse) -> None:
    """Create the DuckDB file at `path` (which must not exist) and load every table."""
    import duckdb

    con = duckdb.connect(str(path))
    try:
        for statement in DDL:
            con.execute(statement)
        for name in LOAD_ORDER:
            _load(con, name, warehouse.tables[name])
        for statement in _comments():
            con.execute(statement)
        con.execute("CHECKPOINT")
    finally:
        con.close()


def _load(con: duckdb.DuckDBPyConnection, name: str, table: pa.Table) -> None:
    """INSERT INTO name (columns) SELECT columns FROM the registered Arrow table."""
    columns = [exp.to_identifier(c, quoted=True) for c in table.column_names]
    source = "demo_source"
    query = exp.select(*(exp.column(c, quoted=True) for c in table.column_names)).from_(source)
    insert = exp.insert(query, exp.table_(name, quoted=True), columns=columns)
    con.register(source, table)
    try:
        con.execute(insert.sql("duckdb"))
    finally:
        con.unregister(source)


def _comments() -> list[str]:
    statements = [
        exp.Comment(
            this=exp.table_(t, quoted=True), kind="TABLE", expression=exp.Literal.string(text)
        )
        for t, text in TABLE_COMMENTS.items()
    ]
    statements += [
        exp.Comment(
            this=exp.column(c, table=t, quoted=True),
            kind="COLUMN",
            expression=exp.Literal.string(text),
        )
        for (t, c), text in COLUMN_COMMENTS.items()
    ]
    return [s.sql("duckdb") for s in statements]
