"""MySQL/MariaDB: nothing one call leaves in its session reaches the next call.

User variables (`@a := 1`) outlive a rolled-back transaction; with a plain connection pool a
later run (another user's, perhaps) would read them. The guard refuses them, and the adapter,
as the second line, gives every call a new session. Checked on the live server, calling the
adapter directly (past the guard), with a pool of one connection.
"""

from __future__ import annotations

from nl2sql.datasources.sqlalchemy import SQLAlchemyAdapter
from nl2sql.security.sql_guard import check_sql


def test_a_user_variable_set_in_one_call_is_gone_in_the_next(mysql_url: str) -> None:
    adapter = SQLAlchemyAdapter("m", mysql_url, pool_size=1)
    try:
        adapter.execute("SELECT @nl2sql_leak := 'secret-of-run-1' AS v", row_cap=1, timeout_s=5)
        for _ in range(3):
            rows = adapter.execute("SELECT @nl2sql_leak AS v", row_cap=1, timeout_s=5)
            assert rows.table.to_pylist() == [{"v": None}]
    finally:
        adapter.close()


def test_the_guard_refuses_the_variables_in_the_first_place() -> None:
    for sql in ("SELECT @nl2sql_leak := 'x' AS v", "SELECT @nl2sql_leak AS v", "SELECT @@version"):
        assert check_sql(sql, "mysql").code == "SESSION_VARIABLE"
