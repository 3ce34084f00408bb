"""Values with a backslash next to a quote can be asked about on PostgreSQL and MySQL/MariaDB.

Whether `\\'` ends a literal depends on server settings there, so the SQL guard refuses such
literals; the renderer spells each backslash as CHR(92) / CHAR(92 USING utf8mb4) instead. Checked
end to end on the live servers: render, guard, execute through the read-only adapter.
"""

from __future__ import annotations

import pytest

from nl2sql.datasources.factory import open_datasource
from nl2sql.plan import PlanModel
from nl2sql.security.sql_guard import check_sql
from nl2sql.sqlgen import render_plan
from tests.datasources.conformance.servers import insert_rows, run_all, scratch

VALUES = ["O\\'Brien\\", "\\", "a\\\\'b", "\\'", "end\\", "plain 'quote'"]


def _plan(value: str) -> PlanModel:
    column = {"kind": "column", "table": "n", "name": "label"}
    return PlanModel.model_validate({
        "tables": [{"name": "names", "alias": "n"}],
        "select": [{"expr": column}],
        "where": {"kind": "comparison", "op": "=", "left": column,
                  "right": {"kind": "literal", "value": value}},
    })


@pytest.mark.parametrize("server", ["postgres_url", "mysql_url"])
def test_each_value_is_found_exactly_on_the_live_server(server: str, request) -> None:
    with scratch(request.getfixturevalue(server)) as (engine, url):
        run_all(engine, ["CREATE TABLE names (label VARCHAR(40))"])
        insert_rows(engine, "names", ["label"], [(v,) for v in VALUES])
        adapter = open_datasource("names", url.render_as_string(hide_password=False))
        try:
            for value in VALUES:
                sql = render_plan(_plan(value), adapter.dialect)
                verdict = check_sql(sql, adapter.dialect, allowed_tables=["names"])
                assert verdict.allowed, (value, sql, verdict)
                rows = adapter.execute(sql, row_cap=10, timeout_s=10).table.to_pylist()
                assert rows == [{"label": value}], (value, sql)
        finally:
            adapter.close()


@pytest.mark.parametrize("dialect", ["postgres", "mysql"])
def test_the_rendered_sql_holds_no_backslash(dialect: str) -> None:
    sql = render_plan(_plan("O\\'Brien\\"), dialect)
    assert "\\" not in sql and "92" in sql
