"""`describe` pushes its inclusion checks to PostgreSQL and MariaDB, not only to SQLite."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

import nl2sql
from nl2sql.semantic.describe import draft_file

DDL = [
    "CREATE TABLE {s}customers (id INTEGER, full_name VARCHAR(40))",
    "CREATE TABLE {s}orders (order_id INTEGER, cust_ref INTEGER, stray_ref INTEGER)",
    "INSERT INTO {s}customers VALUES (1, 'Ann'), (2, 'Bo'), (3, 'Cy')",
    # stray_ref names no table: no candidate; cust_ref abbreviates customers and its values agree
    "INSERT INTO {s}orders VALUES (10, 1, 7), (11, 1, 8), (12, 3, 9)",
]


@pytest.fixture(params=["postgres", "mysql"])
def server_source(request: pytest.FixtureRequest) -> Iterator[str]:
    """A URL of a fresh schema (PostgreSQL) or database (MariaDB) holding the two tables."""
    import sqlalchemy as sa

    url = request.getfixturevalue(f"{request.param}_url")
    name = "layer_" + uuid.uuid4().hex[:8]
    engine = sa.create_engine(url)
    try:
        with engine.begin() as con:
            con.exec_driver_sql(f"CREATE {'SCHEMA' if request.param == 'postgres' else 'DATABASE'} {name}")
            for statement in DDL:
                con.exec_driver_sql(statement.format(s=f"{name}."))
        if request.param == "postgres":
            yield f"{url}?options=-csearch_path%3D{name}"
        else:
            yield f"{url.rsplit('/', 1)[0]}/{name}"
    finally:
        with engine.begin() as con:
            con.exec_driver_sql(f"DROP {'SCHEMA' if request.param == 'postgres' else 'DATABASE'} {name}"
                                + (" CASCADE" if request.param == "postgres" else ""))
        engine.dispose()


def test_describe_checks_references_on_a_server(server_source: str, tmp_path: Path) -> None:
    with nl2sql.connect(sources={"db": server_source}, settings={"project_dir": tmp_path}) as session:
        text, draft = draft_file(session.context.datasources["db"], session.context.schemas.get("db"))
    assert [(r.distinct, r.found) for r in draft.relationships] == [(2, 2)]
    layer = yaml.safe_load(text)["sources"]["db"]
    assert layer["relationships"] == [{"from": "orders.cust_ref", "to": "customers.id",
                                       "cardinality": "many-to-one"}]
    with nl2sql.connect(sources={"db": server_source}, settings={"project_dir": tmp_path / "b"},
                        semantic=yaml.safe_load(text)) as described:
        result = described.ask("How many orders does the customer Ann have?")
    assert result.status == "success", result.errors
    assert result.to_pandas().iloc[0, 0] == 2
