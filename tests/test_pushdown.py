"""push_down(): which combine groups run as one query on their engine, and which stay local."""

from __future__ import annotations

import pytest

from nl2sql.decomposition import (
    CombineGroup,
    CombineInput,
    DecomposerResponse,
    JoinKey,
    PostCombineOp,
    SubQuery,
    sub_query_id,
)
from nl2sql.plan import Aggregate, ColumnRef, PlanModel, SelectItem, Star, TableRef
from nl2sql.pushdown import FuseError, fuse_plans, placement, push_down
from nl2sql.schema.models import Column, SchemaSnapshot, Table
from nl2sql.sqlgen import render_plan


def _sq(ds: str, intent: str, pos: int) -> SubQuery:
    return SubQuery(id=sub_query_id(ds, intent, pos), datasource_id=ds, intent=intent)


def _response(op: str, *parts: SubQuery, extra_groups: list[CombineGroup] | None = None,
              ) -> DecomposerResponse:
    group = CombineGroup(
        group_id="g", operation=op,
        inputs=[CombineInput(subquery_id=p.id, role=r) for p, r in zip(parts, ("left", "right"), strict=True)],
        join_keys=[JoinKey(left="region", right="Region")] if op != "union" else [],
    )
    post = PostCombineOp(op_id="p1", group_id="g", op="limit", limit=3)
    return DecomposerResponse(sub_queries=list(parts), combine_groups=[group, *(extra_groups or [])],
                              post_combine_ops=[post])


DIALECTS = {"crm": "postgres", "shop": "sqlite", "legacy": "mysql", "wh": "duckdb"}


@pytest.mark.parametrize("op", ["compare", "join", "union"])
def test_a_group_on_one_source_becomes_one_sub_query(op: str) -> None:
    a, b = _sq("crm", "orders per region", 0), _sq("crm", "tickets per region", 1)
    fused, notes = push_down(_response(op, a, b), DIALECTS)
    (one,) = fused.sub_queries
    assert one.datasource_id == "crm" and one.pushed_down is not None
    assert [p.id for p in one.pushed_down.parts] == [a.id, b.id]
    assert one.pushed_down.roles == ["left", "right"] and one.pushed_down.operation == op
    # the group now stands alone, so its post-combine chain still applies to the fused result
    (group,) = fused.combine_groups
    assert group.group_id == "g" and group.operation == "standalone"
    assert [i.subquery_id for i in group.inputs] == [one.id]
    assert fused.post_combine_ops[0].group_id == "g"
    assert notes == [f"{op} of 2 sub-queries runs as one query in postgres:crm"]
    assert placement(fused, DIALECTS) == {one.id: "postgres:crm"}


def test_groups_across_sources_stay_local() -> None:
    a, b = _sq("crm", "orders per region", 0), _sq("wh", "tickets per region", 1)
    response = _response("compare", a, b)
    assert push_down(response, DIALECTS) == (response, [])
    assert placement(response, DIALECTS) == {a.id: "postgres:crm", b.id: "duckdb:wh",
                                             "g": "local DuckDB"}


def test_a_compare_needs_a_full_outer_join() -> None:
    a, b = _sq("legacy", "orders per region", 0), _sq("legacy", "tickets per region", 1)
    compare = _response("compare", a, b)
    assert push_down(compare, DIALECTS)[1] == []  # MySQL/MariaDB: no FULL OUTER JOIN
    assert len(push_down(_response("join", a, b), DIALECTS)[0].sub_queries) == 1


def test_a_sub_query_another_group_reads_is_not_fused_away() -> None:
    a, b = _sq("crm", "orders per region", 0), _sq("crm", "tickets per region", 1)
    other = CombineGroup(group_id="h", operation="standalone", inputs=[CombineInput(subquery_id=a.id)])
    response = _response("join", a, b, extra_groups=[other])
    assert push_down(response, DIALECTS) == (response, [])


def test_unknown_engine_is_left_alone() -> None:
    a, b = _sq("crm", "orders per region", 0), _sq("crm", "tickets per region", 1)
    response = _response("join", a, b)
    assert push_down(response, {})[1] == []


SNAP = SchemaSnapshot(datasource_id="crm", dialect="postgres", tables=[
    Table(name="orders", columns=[Column(name="region", type="TEXT"), Column(name="amount", type="INTEGER")]),
    Table(name="tickets", columns=[Column(name="Region", type="TEXT")]),
])


def _count_by(table: str, key: str) -> PlanModel:
    return PlanModel(
        tables=[TableRef(name=table, alias="t")],
        select=[SelectItem(expr=ColumnRef(table="t", name=key)), SelectItem(expr=Aggregate(func="count"))],
        group_by=[ColumnRef(table="t", name=key)],
    )


def test_fused_compare_is_one_statement_with_the_local_layout() -> None:
    a, b = _sq("crm", "orders per region", 0), _sq("crm", "tickets per region", 1)
    (one,) = push_down(_response("compare", a, b), DIALECTS)[0].sub_queries
    assert one.pushed_down is not None
    plan = fuse_plans(one.pushed_down, [_count_by("orders", "region"), _count_by("tickets", "Region")], SNAP)
    names = [i.alias for i in plan.select]
    # keys once, then each side's columns with its role, then the difference of the measures
    assert names == ["region", "count_star_left", "count_star_right", "count_star_diff"]
    sql = render_plan(plan, "postgres", SNAP)
    assert sql.count("SELECT") == 3 and " FULL JOIN (SELECT " in sql


def test_a_part_selecting_star_cannot_be_fused() -> None:
    a, b = _sq("crm", "orders", 0), _sq("crm", "tickets", 1)
    (one,) = push_down(_response("join", a, b), DIALECTS)[0].sub_queries
    assert one.pushed_down is not None
    star = PlanModel(tables=[TableRef(name="orders", alias="t")], select=[SelectItem(expr=Star())])
    with pytest.raises(FuseError, match="selects '\\*'"):
        fuse_plans(one.pushed_down, [star, _count_by("tickets", "Region")], SNAP)


def test_a_missing_key_is_named() -> None:
    a, b = _sq("crm", "orders", 0), _sq("crm", "tickets", 1)
    (one,) = push_down(_response("join", a, b), DIALECTS)[0].sub_queries
    assert one.pushed_down is not None
    with pytest.raises(FuseError, match="part2 has no key column 'Region'; it has amount"):
        fuse_plans(one.pushed_down, [_count_by("orders", "region"), _count_by("orders", "amount")], SNAP)


def test_the_plan_tree_shows_each_part_under_its_derived_table() -> None:
    from nl2sql.notebook.plan_tree import plan_tree, tree_text

    a, b = _sq("crm", "orders per region", 0), _sq("crm", "tickets per region", 1)
    (one,) = push_down(_response("compare", a, b), DIALECTS)[0].sub_queries
    assert one.pushed_down is not None
    plan = fuse_plans(one.pushed_down, [_count_by("orders", "region"), _count_by("tickets", "Region")], SNAP)
    lines = tree_text(plan_tree(plan)).splitlines()
    assert "├── FROM (part1)" in lines
    join = next(i for i, line in enumerate(lines) if "FULL JOIN part2 ON" in line)
    assert any("FROM orders AS t" in line for line in lines[:join])  # part1's own query
    assert any("FROM tickets AS t" in line for line in lines[join:])  # part2's, under its join


def test_a_fused_plan_is_validated_part_by_part() -> None:
    """Derived tables do not hide what they read: access and columns are checked inside them."""
    from nl2sql.validation import validate_plan

    a, b = _sq("crm", "orders per region", 0), _sq("crm", "tickets per region", 1)
    (one,) = push_down(_response("compare", a, b), DIALECTS)[0].sub_queries
    assert one.pushed_down is not None
    plan = fuse_plans(one.pushed_down, [_count_by("orders", "region"), _count_by("tickets", "Region")], SNAP)
    assert all(c.passed for c in validate_plan(plan, SNAP))
    denied = [c for c in validate_plan(plan, SNAP, allowed_tables={"orders"}) if not c.passed]
    assert [(c.name, c.details["table"]) for c in denied] == [("access_policy", "tickets")]
    hidden = [c for c in validate_plan(plan, SNAP, allowed_columns={"orders": {"amount"}})
              if not c.passed]
    assert [c.name for c in hidden] == ["access_policy"] and "region" in hidden[0].message
    # a column the part does not output is unknown to the outer query
    broken = plan.model_copy(update={"select": [SelectItem(expr=ColumnRef(table="part1", name="amount"))]})
    assert any(c.details.get("error_code") == "COLUMN_NOT_FOUND" for c in validate_plan(broken, SNAP))
