from __future__ import annotations

import pytest

from nl2sql.dag import DAGError, build_dag
from nl2sql.decomposition import (
    CombineGroup,
    CombineInput,
    DecomposerResponse,
    JoinKey,
    PostCombineOp,
    SubQuery,
    sub_query_id,
)


def _sq(i: str, ds: str = "w") -> SubQuery:
    return SubQuery(id=i, datasource_id=ds, intent=f"intent {i}")


def test_single_subquery_becomes_scan_then_standalone_combine():
    dag = build_dag(DecomposerResponse(sub_queries=[_sq("a")]))
    assert dag.layers == [["scan:a"], ["combine:a"]]
    assert [n.id for n in dag.terminal_nodes] == ["combine:a"]


def test_join_group_and_post_ops_form_a_chain_in_list_order():
    response = DecomposerResponse(
        sub_queries=[_sq("a"), _sq("b", "c")],
        combine_groups=[CombineGroup(group_id="g", operation="join",
                                     inputs=[CombineInput(subquery_id="a"), CombineInput(subquery_id="b")],
                                     join_keys=[JoinKey(left="region", right="region")])],
        post_combine_ops=[PostCombineOp(op_id="s", group_id="g", op="sort"),
                          PostCombineOp(op_id="l", group_id="g", op="limit", limit=3)],
    )
    dag = build_dag(response)
    assert dag.layers == [["scan:a", "scan:b"], ["combine:g"], ["post:s"], ["post:l"]]
    assert dag.node("post:l").inputs == ["post:s"]  # a chain, not siblings
    assert [n.id for n in dag.terminal_nodes] == ["post:l"]


@pytest.mark.parametrize("operation", ["join", "compare"])
def test_join_or_compare_with_one_input_cannot_be_built(operation):
    response = DecomposerResponse(
        sub_queries=[_sq("a")],
        combine_groups=[CombineGroup(group_id="g", operation=operation,
                                     inputs=[CombineInput(subquery_id="a")],
                                     join_keys=[JoinKey(left="k", right="k")])],
    )
    with pytest.raises(DAGError, match="fewer than two inputs"):
        build_dag(response)


def test_unknown_inputs_and_empty_decompositions_are_refused():
    with pytest.raises(DAGError, match="no sub-queries"):
        build_dag(DecomposerResponse())
    bad = DecomposerResponse(
        sub_queries=[_sq("a")],
        combine_groups=[CombineGroup(group_id="g", operation="union",
                                     inputs=[CombineInput(subquery_id="a"), CombineInput(subquery_id="zz")])],
    )
    with pytest.raises(DAGError, match="unknown sub-queries"):
        build_dag(bad)


def test_content_hash_is_a_pure_function_of_the_decomposition():
    r = DecomposerResponse(sub_queries=[_sq("a"), _sq("b")])
    assert build_dag(r).content_hash == build_dag(r.model_copy(deep=True)).content_hash
    assert build_dag(r).content_hash != build_dag(DecomposerResponse(sub_queries=[_sq("a")])).content_hash


def test_sub_query_ids_are_stable_and_position_sensitive():
    assert sub_query_id("w", "Orders  per region", 0) == sub_query_id("w", "orders per region", 0)
    assert sub_query_id("w", "orders per region", 0) != sub_query_id("w", "orders per region", 1)
