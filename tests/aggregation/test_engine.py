"""The DAG walk: row-cap rule, missing inputs, terminal results, groups failing independently."""

from __future__ import annotations

import pyarrow as pa

from nl2sql.decomposition import PostCombineOp
from nl2sql.errors import ErrorCode, ErrorSeverity
from nl2sql.plan import OrderItem, col

from .helpers import group, run

LEFT = pa.table({"k": [1, 2, 3], "a": [10, 20, 30]})
RIGHT = pa.table({"k": [3, 1], "b": ["c", "a"]})
OTHER = pa.table({"k": [7], "a": [70]})


def test_a_capped_join_input_is_a_truncated_error_and_the_group_has_no_result():
    groups = [
        group("j", "join", "l", "r", keys=[("k", "k")]),
        group("solo", "standalone", "o"),
    ]
    out = run(groups, {"l": LEFT, "r": RIGHT, "o": OTHER}, truncated={"r": True})
    assert list(out.results) == ["combine:solo"]
    [error] = out.errors
    assert error.error_code == ErrorCode.RESULT_TRUNCATED
    assert error.severity == ErrorSeverity.ERROR
    assert error.node == "aggregator" and error.sub_query_id == "r"
    assert error.details["group_id"] == "j"
    assert "row cap" in error.message and "\n" not in error.message


def test_a_capped_compare_input_is_a_truncated_error_too():
    g = group("c", "compare", "l", "r", keys=[("k", "k")])
    out = run([g], {"l": LEFT, "r": RIGHT}, truncated={"l": True, "r": False})
    assert out.results == {}
    assert [e.error_code for e in out.errors] == [ErrorCode.RESULT_TRUNCATED]


def test_a_capped_union_input_still_unions_and_warns():
    out = run([group("u", "union", "l", "o")], {"l": LEFT, "o": OTHER}, truncated={"o": True})
    assert out.errors == []
    assert out.results["combine:u"].column("k").to_pylist() == [1, 2, 3, 7]
    [warning] = out.warnings
    assert warning.code == "RESULT_TRUNCATED" and warning.sub_query_id == "o"
    assert warning.node == "aggregator"
    assert out.truncated == {"combine:u": True}


def test_a_missing_input_fails_only_the_groups_that_need_it():
    groups = [
        group("j", "join", "l", "r", keys=[("k", "k")]),
        group("solo", "standalone", "o"),
    ]
    out = run(groups, {"l": LEFT, "o": OTHER}, sub_queries=["l", "r", "o"])
    assert list(out.results) == ["combine:solo"]
    assert out.results["combine:solo"].equals(OTHER)
    [error] = out.errors
    assert error.error_code == ErrorCode.AGGREGATOR_FAILED
    assert error.sub_query_id == "r"
    assert "join group 'j' cannot run: sub-query 'r' produced no result" == error.message
    assert out.truncated == {"combine:solo": False}


def test_only_terminal_nodes_are_results_and_a_chain_ends_at_its_last_step():
    ops = [
        PostCombineOp(
            op_id="s",
            group_id="u",
            op="sort",
            order_by=[OrderItem(expr=col("a"), direction="desc")],
        ),
        PostCombineOp(op_id="top", group_id="u", op="limit", limit=2),
    ]
    out = run([group("u", "union", "l", "o")], {"l": LEFT, "o": OTHER}, ops=ops)
    assert list(out.results) == ["post:top"]
    assert out.results["post:top"].column("a").to_pylist() == [70, 30]
    assert out.operations == {"combine:u": "union", "post:s": "sort", "post:top": "limit"}


def test_sub_queries_without_groups_each_stand_alone():
    out = run([], {"l": LEFT, "r": RIGHT})
    assert set(out.results) == {"combine:l", "combine:r"}
    assert out.results["combine:r"].equals(RIGHT)
    assert set(out.operations.values()) == {"standalone"}


def test_a_post_op_on_a_capped_standalone_result_keeps_the_capped_flag():
    ops = [PostCombineOp(op_id="top", group_id="solo", op="limit", limit=1)]
    out = run([group("solo", "standalone", "l")], {"l": LEFT}, ops=ops, truncated={"l": True})
    assert out.errors == [] and out.warnings == []
    assert out.truncated == {"post:top": True}


def test_combines_on_one_pool_see_only_their_own_tables():
    import pyarrow as pa

    from nl2sql.aggregation.duck import DuckPool, DuckSession
    from nl2sql.aggregation.engine import run_combine  # noqa: F401 - the pool's user

    pool = DuckPool()
    try:
        first, second = DuckSession(pool), DuckSession(pool)
        name = first.register(pa.table({"x": [1, 2]}))
        other = second.register(pa.table({"x": [7]}))
        assert name.name == other.name  # the same generated name on two cursors
        from sqlglot import exp

        query = exp.select("x").from_(name)
        assert first.query(query).column("x").to_pylist() == [1, 2]
        assert second.query(query).column("x").to_pylist() == [7]
        first.close()
        assert second.query(query).column("x").to_pylist() == [7]  # closing one keeps the other
        second.close()
        assert pool.opened == 1
    finally:
        pool.close()
