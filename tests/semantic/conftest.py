"""A small shop database without declared keys, in two naming styles across its tables."""

from __future__ import annotations

import sqlite3
from pathlib import Path

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
    con.executemany("INSERT INTO customers VALUES (?, ?, ?, ?)",
                    [(i, f"Client {i}", states[i % 3], f"000-{i:04d}") for i in range(1, 31)])
    con.executemany("INSERT INTO orders VALUES (?, ?, ?, ?)",
                    [(100 + i, 1 + i % 30, f"2025-0{1 + i % 6}-1{i % 9}", ["open", "shipped"][i % 2])
                     for i in range(60)])
    con.executemany("INSERT INTO products VALUES (?, ?, ?, ?)",
                    [(f"SKU-{i}", f"Gadget {i}", 5.0 * i, 0.5 * i) for i in range(1, 11)])
    con.executemany("INSERT INTO order_items VALUES (?, ?, ?, ?, ?)",
                    [(i, 100 + i % 60, f"SKU-{1 + i % 10}", 1 + i % 4, 5.0 * (1 + i % 10))
                     for i in range(150)])
    con.commit()
    con.close()
    return path


@pytest.fixture
def shop_db(tmp_path: Path) -> Path:
    return build_shop(tmp_path / "shop.sqlite")
