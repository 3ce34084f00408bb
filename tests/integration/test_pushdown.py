"""Push-down: a combine whose sub-queries live on one engine runs there as one query.

The same small shop (orders and support tickets, each with a region) is built on SQLite, DuckDB
and PostgreSQL. A compare question on one source runs as one query on that engine (one
sub-query, one SQL statement with a FULL OUTER JOIN, "runs as one query in <engine>" in the
trace) and returns exactly what the local combine returns with `push_down = False`. Join and
union groups (from a scripted decomposer) fuse the same way. Across two engines the sub-queries
are combined locally, within `combine_max_rows` / `combine_max_bytes`, and refused above them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import pandas as pd
import pytest

import nl2sql
from nl2sql.decomposition import (
    CombineGroup,
    CombineInput,
    DecomposerResponse,
    JoinKey,
    SubQuery,
    sub_query_id,
)
from nl2sql.errors import ErrorCode

from ..datasources.conformance.servers import insert_rows, run_all, scratch

REGIONS = ("Coast", "Hills", "Plains", "Valley")
ORDERS = [(i, REGIONS[i % 3], 5 + i) for i in range(1, 25)]  # no Valley orders
TICKETS = [(i, REGIONS[(i * 3) % 4], "high" if i % 2 else "low") for i in range(1, 16)]
DDL = [
    "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, region VARCHAR(20) NOT NULL, "
    "amount INTEGER NOT NULL)",
    "CREATE TABLE support_tickets (ticket_id INTEGER PRIMARY KEY, region VARCHAR(20) NOT NULL, "
    "priority VARCHAR(10) NOT NULL)",
]
COMPARE = "For each region, compare the number of orders with the number of support tickets"


def _sqlite(folder: Path) -> str:
    path = folder / "shop.sqlite"
    con = sqlite3.connect(path)
    for statement in DDL:
        con.execute(statement)
    con.executemany("INSERT INTO orders VALUES (?, ?, ?)", ORDERS)
    con.executemany("INSERT INTO support_tickets VALUES (?, ?, ?)", TICKETS)
    con.commit()
    con.close()
    return f"sqlite:///{path}"


def _duckdb(folder: Path) -> str:
    path = folder / "shop.duckdb"
    con = duckdb.connect(str(path))
    for statement in DDL:
        con.execute(statement)
    con.executemany("INSERT INTO orders VALUES (?, ?, ?)", ORDERS)
    con.executemany("INSERT INTO support_tickets VALUES (?, ?, ?)", TICKETS)
    con.close()
    return f"duckdb:///{path}"


@pytest.fixture(scope="module")
def postgres_shop(postgres_url: str) -> Iterator[str]:
    with scratch(postgres_url) as (engine, url):
        run_all(engine, DDL)
        insert_rows(engine, "orders", ("order_id", "region", "amount"), ORDERS)
        insert_rows(engine, "support_tickets", ("ticket_id", "region", "priority"), TICKETS)
        yield url.render_as_string(hide_password=False)


@pytest.fixture(params=["sqlite", "duckdb", "postgres"])
def shop(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":
        return str(request.getfixturevalue("postgres_shop"))
    return {"sqlite": _sqlite, "duckdb": _duckdb}[request.param](tmp_path)


def _connect(url: str, tmp_path: Path, **kw: object) -> nl2sql.Session:
    settings = {"project_dir": tmp_path / "project", **kw.pop("settings", {})}  # type: ignore[dict-item]
    return nl2sql.connect(sources={"shop": url}, settings=settings, **kw)  # type: ignore[arg-type]


def _rows(result) -> list[tuple]:
    frame = result.to_pandas()
    return sorted(
        tuple(None if pd.isna(v) else (int(v) if isinstance(v, float) and v.is_integer() else v)
              for v in row)
        for row in frame.itertuples(index=False)
    )


def _one_query(result, engine: str) -> str:
    """The single sub-query's SQL, after checking the run says where it ran."""
    assert result.status == "success", [e.one_line() for e in result.errors]
    assert len(result.sub_queries) == 1
    (only,) = result.sub_queries
    assert only.sub_query.pushed_down is not None and len(only.sub_query.pushed_down.parts) == 2
    said = " ".join(r["content"] for r in result.reasoning)
    assert f"runs as one query in {engine}:shop" in said
    assert "combined locally" not in said
    (decomposer,) = [r for r in result.reasoning if r["node"] == "decomposer"]
    assert decomposer["runs_in"] == {only.sub_query.id: f"{engine}:shop"}
    return str(only.sql_draft)


def test_a_compare_on_one_source_runs_as_one_query(shop: str, tmp_path: Path) -> None:
    engine = shop.split(":", 1)[0].split("+")[0].replace("postgresql", "postgres")
    with _connect(shop, tmp_path) as session:
        pushed = session.ask(COMPARE)
    sql = _one_query(pushed, engine)
    assert "FULL OUTER JOIN" in sql.upper() or "FULL JOIN" in sql.upper()
    with _connect(shop, tmp_path, settings={"push_down": False}) as session:
        local = session.ask(COMPARE)
    assert local.status == "success" and len(local.sub_queries) == 2
    assert "combined locally in DuckDB" in " ".join(r["content"] for r in local.reasoning)
    # the same columns and the same rows, wherever the compare ran
    assert list(pushed.to_pandas().columns) == list(local.to_pandas().columns)
    assert _rows(pushed) == _rows(local)
    by_region = {row[0]: row[1:] for row in _rows(pushed)}
    assert by_region["Valley"][0] is None  # a full outer join keeps the region without orders


class Scripted:
    """A decomposer skill with a fixed answer: two parts on `shop` and one group."""

    def __init__(self, operation: str, intents: tuple[str, str], keys: bool = True) -> None:
        self.operation, self.intents, self.keys = operation, intents, keys

    def decompose(self, request) -> DecomposerResponse:
        subs = [SubQuery(id=sub_query_id("shop", t, i), datasource_id="shop", intent=t)
                for i, t in enumerate(self.intents)]
        group = CombineGroup(
            group_id="g", operation=self.operation,
            inputs=[CombineInput(subquery_id=s.id, role=r) for s, r in zip(subs, ("a", "b"), strict=True)],
            join_keys=[JoinKey(left="region", right="region")] if self.keys else [],
        )
        return DecomposerResponse(sub_queries=subs, combine_groups=[group], reasoning="scripted")


CASES: dict[str, Callable[[], Scripted]] = {
    "join": lambda: Scripted("join", ("number of orders per region",
                                      "number of support tickets per region")),
    "union": lambda: Scripted("union", ("number of orders per region",
                                        "number of support tickets per region"), keys=False),
    "totals": lambda: Scripted("compare", ("total amount of orders",
                                           "number of support tickets"), keys=False),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_join_union_and_totals_fuse_with_the_local_result(case: str, shop: str, tmp_path: Path) -> None:
    engine = shop.split(":", 1)[0].split("+")[0].replace("postgresql", "postgres")
    question = " and ".join(CASES[case]().intents)  # what the resolver must find answerable
    with _connect(shop, tmp_path, models={"decomposer": CASES[case]()}) as session:
        pushed = session.ask(question)
    _one_query(pushed, engine)
    with _connect(shop, tmp_path, models={"decomposer": CASES[case]()},
                  settings={"push_down": False}) as session:
        local = session.ask(question)
    assert local.status == "success" and len(local.sub_queries) == 2
    assert list(pushed.to_pandas().columns) == list(local.to_pandas().columns)
    assert _rows(pushed) == _rows(local)


# -- across engines: combined locally, within the budget ---------------------------------------


class AcrossEngines:
    """Orders from one source, tickets from another, compared per region."""

    def decompose(self, request) -> DecomposerResponse:
        parts = (("pg", "number of orders per region"), ("lite", "number of support tickets per region"))
        subs = [SubQuery(id=sub_query_id(ds, t, i), datasource_id=ds, intent=t)
                for i, (ds, t) in enumerate(parts)]
        group = CombineGroup(
            group_id="g", operation="compare",
            inputs=[CombineInput(subquery_id=s.id, role=s.datasource_id) for s in subs],
            join_keys=[JoinKey(left="region", right="region")],
        )
        return DecomposerResponse(sub_queries=subs, combine_groups=[group], reasoning="scripted")


def test_across_engines_combines_locally_within_the_budget(postgres_shop: str, tmp_path: Path) -> None:
    sources = {"pg": postgres_shop, "lite": _sqlite(tmp_path)}
    with nl2sql.connect(sources=sources, models={"decomposer": AcrossEngines()},
                        settings={"project_dir": tmp_path / "p"}) as session:
        result = session.ask("orders and support tickets per region")
    assert result.status == "success", [e.one_line() for e in result.errors]
    assert {o.sub_query.datasource_id for o in result.sub_queries} == {"pg", "lite"}
    said = " ".join(r["content"] for r in result.reasoning)
    assert "compare (combined locally in DuckDB)" in said
    (decomposer,) = [r for r in result.reasoning if r["node"] == "decomposer"]
    assert sorted(decomposer["runs_in"].values()) == ["local DuckDB", "postgres:pg", "sqlite:lite"]
    orders = {r: sum(1 for o in ORDERS if o[1] == r) for r in REGIONS}
    got = {row[0]: row[1] for row in _rows(result)}
    assert got == {r: (n or None) for r, n in orders.items()}


@pytest.mark.parametrize("setting", ["combine_max_rows", "combine_max_bytes"])
def test_across_engines_a_combine_over_the_budget_is_refused(
    setting: str, postgres_shop: str, tmp_path: Path
) -> None:
    sources = {"pg": postgres_shop, "lite": _sqlite(tmp_path)}
    with nl2sql.connect(sources=sources, models={"decomposer": AcrossEngines()},
                        settings={"project_dir": tmp_path / "p", setting: 5}) as session:
        result = session.ask("orders and support tickets per region")
    assert result.status == "error"
    (refusal,) = [e for e in result.errors if e.error_code == ErrorCode.COMBINE_TOO_LARGE]
    message = refusal.message
    assert "\n" not in message
    # both inputs have one row per region: 3 + 4 rows; the sizes and the budget are named
    assert "would combine 7 rows" in message and setting in message
    assert refusal.details["rows"] == 7 and refusal.details["bytes"] > 0


# -- MariaDB: joins fuse; a compare needs FULL OUTER JOIN, which it lacks ----------------------


@pytest.fixture(scope="module")
def mysql_shop(mysql_url: str) -> Iterator[str]:
    with scratch(mysql_url) as (engine, url):
        run_all(engine, DDL)
        insert_rows(engine, "orders", ("order_id", "region", "amount"), ORDERS)
        insert_rows(engine, "support_tickets", ("ticket_id", "region", "priority"), TICKETS)
        yield url.render_as_string(hide_password=False)


def test_mariadb_runs_a_join_as_one_query_and_a_compare_locally(mysql_shop: str, tmp_path: Path) -> None:
    question = " and ".join(CASES["join"]().intents)
    with _connect(mysql_shop, tmp_path, models={"decomposer": CASES["join"]()}) as session:
        joined = session.ask(question)
    _one_query(joined, "mysql")
    with _connect(mysql_shop, tmp_path) as session:
        compared = session.ask(COMPARE)
    assert compared.status == "success", [e.one_line() for e in compared.errors]
    assert len(compared.sub_queries) == 2
    assert "compare (combined locally in DuckDB)" in " ".join(r["content"] for r in compared.reasoning)
    orders = {r: sum(1 for o in ORDERS if o[1] == r) for r in REGIONS}
    assert {row[0]: row[1] for row in _rows(compared)} == {r: (n or None) for r, n in orders.items()}


def test_an_input_of_a_local_combine_never_pulls_more_than_the_budget(
    postgres_shop: str, tmp_path: Path
) -> None:
    sources = {"pg": postgres_shop, "lite": _sqlite(tmp_path)}
    with nl2sql.connect(sources=sources, models={"decomposer": AcrossEngines()},
                        settings={"project_dir": tmp_path / "p", "combine_max_rows": 2}) as session:
        result = session.ask("orders and support tickets per region")
    # each scan fetched at most 2 (+1 to see there were more) rows, not its row cap of 10,000
    assert {o.sub_query.datasource_id: o.artifact.row_count for o in result.sub_queries
            if o.artifact is not None} == {"pg": 2, "lite": 2}
    caps = [r for r in result.reasoning if r["node"] == "executor"]
    assert [r["content"] for r in caps] == ["2 rows (truncated at 2)"] * 2
    (refusal,) = [e for e in result.errors if e.error_code == ErrorCode.COMBINE_TOO_LARGE]
    assert "would combine more than 4 rows" in refusal.message and "2 rows" in refusal.message
