"""A layer relationship's cardinality reaches the foreign key it becomes: a one-to-one join does
not repeat rows, so a sum over it is neither flagged nor retried."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import nl2sql
from nl2sql.schema.models import Column, ForeignKey, SchemaSnapshot, Table

STAFF = """
CREATE TABLE staff (staffId INTEGER PRIMARY KEY, fullName TEXT, salary REAL);
CREATE TABLE staffProfile (profileId INTEGER PRIMARY KEY, staffRef INTEGER, department TEXT);
INSERT INTO staff VALUES (1, 'Ann', 100), (2, 'Bo', 200), (3, 'Cy', 300), (4, 'Di', 400);
INSERT INTO staffProfile VALUES (10, 1, 'Sales'), (11, 2, 'Sales'), (12, 3, 'Ops'), (13, 4, 'Ops');
"""
QUESTION = "What is the total salary of staff whose department is Ops?"


def _ask(tmp_path: Path, cardinality: str) -> nl2sql.QueryResult:
    db = tmp_path / "staff.db"
    with sqlite3.connect(db) as connection:
        connection.executescript(STAFF)
    layer = {"sources": {"hr": {"relationships": [
        {"from": "staffProfile.staffRef", "to": "staff.staffId", "cardinality": cardinality}]}}}
    with nl2sql.connect(sources={"hr": f"sqlite:///{db}"}, settings={"project_dir": tmp_path / "p"},
                        semantic=layer) as session:
        fk = session.schema("hr").table("staffProfile").foreign_keys[0]
        assert (fk.ref_table, fk.from_layer, fk.cardinality) == ("staff", True, cardinality)
        return session.ask(QUESTION)


def test_a_sum_over_a_one_to_one_join_is_not_taken_for_a_fan_out(tmp_path: Path) -> None:
    result = _ask(tmp_path, "one-to-one")
    assert result.status == "success"
    assert result.to_pandas().values.tolist() == [[700.0]]
    assert result.warnings == [] and result.to_dict()["sub_queries"][0]["retries"] == 0


def test_a_sum_over_a_many_to_one_join_is_still_checked(tmp_path: Path) -> None:
    result = _ask(tmp_path, "many-to-one")
    assert [w.code for w in result.warnings] == ["JOIN_FAN_OUT"]


def _snapshot(fk: ForeignKey) -> SchemaSnapshot:
    return SchemaSnapshot(datasource_id="d", dialect="sqlite", tables=[
        Table(name="a", columns=[Column(name="id", type="INTEGER")], primary_key=["id"]),
        Table(name="b", columns=[Column(name="id", type="INTEGER"), Column(name="a_id", type="INTEGER")],
              primary_key=["id"], foreign_keys=[fk])])


def test_a_many_to_one_key_dumps_and_hashes_as_before_and_a_one_to_one_key_does_not() -> None:
    declared = ForeignKey(columns=["a_id"], ref_table="a", ref_columns=["id"])
    assert declared.model_dump() == {"columns": ["a_id"], "ref_table": "a", "ref_columns": ["id"]}
    assert not declared.repeats_referencing and declared.repeats_referenced
    one = declared.model_copy(update={"cardinality": "one-to-one"})
    assert one.model_dump()["cardinality"] == "one-to-one" and not one.repeats_referenced
    explicit = ForeignKey(columns=["a_id"], ref_table="a", ref_columns=["id"], cardinality="many-to-one")
    assert _snapshot(explicit).fingerprint == _snapshot(declared).fingerprint != _snapshot(one).fingerprint


def test_a_declared_key_the_layer_restates_as_one_to_one_takes_that_cardinality() -> None:
    from nl2sql.pipeline.subgraphs.nodes.executor.checks import join_fan_out
    from nl2sql.plan import Aggregate, ColumnRef, Comparison, Join, PlanModel, SelectItem, TableRef
    from nl2sql.semantic.apply import apply_source_layer
    from nl2sql.semantic.models import SourceLayer

    declared = _snapshot(ForeignKey(columns=["a_id"], ref_table="a", ref_columns=["id"]))
    layer = SourceLayer.model_validate({"relationships": [{"from": "b.a_id", "to": "a.id",
                                                           "cardinality": "one-to-one"}]})
    restated = apply_source_layer(declared, layer)
    table = restated.table("b")
    assert table is not None and [f.cardinality for f in table.foreign_keys] == ["one-to-one"]
    plan = PlanModel(tables=[TableRef(name="a", alias="t1"), TableRef(name="b", alias="t2")],
                     joins=[Join(alias="t2", on=Comparison(op="=", left=ColumnRef(table="t1", name="id"),
                                                           right=ColumnRef(table="t2", name="a_id")))],
                     select=[SelectItem(expr=Aggregate(func="count"), alias="n")])
    assert join_fan_out(plan, declared) is not None
    assert join_fan_out(plan, restated) is None
