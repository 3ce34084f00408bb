"""Fixtures for the governance tests: a small shop schema (no database needed)."""

from __future__ import annotations

import pytest

from nl2sql.schema.models import Column, ForeignKey, SchemaSnapshot, Table


def _cols(*spec: str) -> list[Column]:
    return [Column(name=n, type="VARCHAR" if n in {"email", "name", "status", "state"} else "INTEGER")
            for n in spec]


@pytest.fixture(scope="session")
def shop() -> SchemaSnapshot:
    return SchemaSnapshot(
        datasource_id="shop",
        dialect="duckdb",
        tables=[
            Table(name="customers", columns=_cols("customer_id", "name", "email", "state"),
                  primary_key=["customer_id"], row_count=500),
            Table(name="orders", columns=_cols("order_id", "customer_id", "status", "amount"),
                  primary_key=["order_id"], row_count=50_000,
                  foreign_keys=[ForeignKey(columns=["customer_id"], ref_table="customers",
                                           ref_columns=["customer_id"])]),
            Table(name="salaries", columns=_cols("employee_id", "amount"), row_count=40),
        ],
    )
