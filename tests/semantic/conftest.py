"""Small databases without declared keys: a shop in two naming styles across its tables, and
stores with coded camelCase names (on SQLite or DuckDB)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

SHOP_DDL = """
CREATE TABLE customers (id INTEGER, full_name TEXT, state TEXT, ssn TEXT);
CREATE TABLE orders (order_id INTEGER, custRef INTEGER, ship_date DATE, status TEXT);
CREATE TABLE order_items (item_id INTEGER, order_ref INTEGER, sku TEXT, quantity INTEGER,
                          unit_price REAL);
CREATE TABLE products (sku TEXT, title TEXT, unit_price REAL, weight_kg REAL);
"""


def build_shop(path: Path) -> Path:
    con = sqlite3.connect(path)
    con.executescript(SHOP_DDL)
    states = ["California", "Texas", "Oregon"]
    con.executemany(
        "INSERT INTO customers VALUES (?, ?, ?, ?)",
        [(i, f"Client {i}", states[i % 3], f"000-{i:04d}") for i in range(1, 31)],
    )
    con.executemany(
        "INSERT INTO orders VALUES (?, ?, ?, ?)",
        [
            (100 + i, 1 + i % 30, f"2025-0{1 + i % 6}-1{i % 9}", ["open", "shipped"][i % 2])
            for i in range(60)
        ],
    )
    con.executemany(
        "INSERT INTO products VALUES (?, ?, ?, ?)",
        [(f"SKU-{i}", f"Gadget {i}", 5.0 * i, 0.5 * i) for i in range(1, 11)],
    )
    con.executemany(
        "INSERT INTO order_items VALUES (?, ?, ?, ?, ?)",
        [(i, 100 + i % 60, f"SKU-{1 + i % 10}", 1 + i % 4, 5.0 * (1 + i % 10)) for i in range(150)],
    )
    con.commit()
    con.close()
    return path


# the layers the metric tests read: metrics over a join the database does not declare
SHOP_LAYER: dict[str, Any] = {
    "relationships": [
        {"from": "orders.custRef", "to": "customers.id"},
        {"from": "order_items.order_ref", "to": "orders.order_id"},
        {"from": "order_items.sku", "to": "products.sku"},
    ],
    "metrics": [
        {
            "name": "revenue",
            "expression": "SUM(quantity * unit_price)",
            "table": "order_items",
            "description": "money taken, before returns",
        }
    ],
}

STORE_LAYER: dict[str, Any] = {
    "relationships": [{"from": "tblSale.storeRef", "to": "tblStore.storeId"}],
    "metrics": [
        {"name": "grossSales", "expression": "SUM(qtySold * unitPrice)", "table": "tblSale"},
        {"name": "units_moved", "expression": "SUM(qtySold)", "table": "tblSale"},
    ],
}

STORES_DDL = (
    "CREATE TABLE tblStore (storeId INTEGER, storeName TEXT, salesRegion TEXT);"
    "CREATE TABLE tblSale (saleId INTEGER, storeRef INTEGER, qtySold INTEGER, unitPrice REAL, "
    "saleDate DATE);"
)


def build_stores(path: Path) -> Path:
    """Coded camelCase names, no declared keys: the layer's relationship is the only join. A
    `.duckdb` path is a DuckDB file with the same rows."""
    import duckdb

    con = duckdb.connect(str(path)) if path.suffix == ".duckdb" else sqlite3.connect(path)
    for statement in STORES_DDL.split(";")[:-1]:
        con.execute(statement)
    regions = ["North", "South", "East"]
    con.executemany(
        "INSERT INTO tblStore VALUES (?, ?, ?)",
        [(i, f"Shop {chr(64 + i)}", regions[i % 3]) for i in range(1, 8)],
    )
    con.executemany(
        "INSERT INTO tblSale VALUES (?, ?, ?, ?, ?)",
        [
            (i, 1 + i % 7, 1 + i % 5, 2.5 * (1 + i % 4), f"2025-0{1 + i % 9}-1{i % 9}")
            for i in range(80)
        ],
    )
    con.commit()
    con.close()
    return path


@pytest.fixture
def shop_db(tmp_path: Path) -> Path:
    return build_shop(tmp_path / "shop.sqlite")
