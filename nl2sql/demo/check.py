"""Check a demo answer against its hand-written reference SQL (execution match)."""

from __future__ import annotations

from collections import Counter
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

    from nl2sql.demo.questions import DemoQuestion
    from nl2sql.result import QueryResult
    from nl2sql.session import Session


def normalize_rows(table: pa.Table) -> Counter[tuple[Any, ...]]:
    """Rows as a multiset; column order and names ignored, numbers rounded to 4 places."""
    rows: Counter[tuple[Any, ...]] = Counter()
    for row in table.to_pylist():
        rows[tuple(sorted((_norm(v) for v in row.values()), key=repr))] += 1
    return rows


def _norm(value: object) -> object:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float | Decimal):
        return round(float(value), 4)
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


def check(session: Session, item: DemoQuestion, result: QueryResult) -> tuple[bool, str]:
    """(passed, why) — the result's rows must equal the reference's, per datasource."""
    if result.status != item.expect_status:
        return False, f"status {result.status}, expected {item.expect_status}"
    if not item.references:
        return True, "refused as expected"
    by_source = {o.sub_query.datasource_id: o for o in result.sub_queries if o.sub_query}
    if len(item.references) == 1:
        ((source, sql),) = item.references.items()
        actual = result.table()
        if actual is None:
            return False, "no result table"
        return _compare(session, source, sql, actual)
    for source, sql in item.references.items():
        out = by_source.get(source)
        if out is None or out.artifact is None:
            return False, f"no sub-query result from {source}"
        ok, why = _compare(session, source, sql, session.context.artifacts.read(out.artifact))
        if not ok:
            return False, f"{source}: {why}"
    return True, "every source matches its reference"


def _compare(session: Session, source: str, sql: str, actual: pa.Table) -> tuple[bool, str]:
    expected = session.context.datasources[source].execute(sql, row_cap=100_000, timeout_s=60).table
    if normalize_rows(actual) == normalize_rows(expected):
        return True, f"matches the reference ({expected.num_rows} rows)"
    return False, f"differs from the reference ({actual.num_rows} vs {expected.num_rows} rows)"
