"""The plan as a readable tree of clauses."""

from __future__ import annotations

from nl2sql.notebook.plan_tree import plan_tree, tree_text
from nl2sql.plan import (
    Aggregate,
    BoolOp,
    Comparison,
    Join,
    OrderItem,
    PlanModel,
    SelectItem,
    SetOperation,
    TableRef,
    col,
    lit,
)


def _orders_by_customer() -> PlanModel:
    return PlanModel(
        tables=[TableRef(name="orders", alias="o"), TableRef(name="customers", alias="c")],
        joins=[Join(alias="c", on=Comparison(op="=", left=col("customer_id", "o"), right=col("customer_id", "c")))],
        select=[SelectItem(expr=col("name", "c")), SelectItem(expr=Aggregate(func="count"), alias="n")],
        where=BoolOp(op="and", items=[Comparison(op=">", left=col("total", "o"), right=lit(10)),
                                      Comparison(op="=", left=col("status", "o"), right=lit("paid"))]),
        group_by=[col("name", "c")],
        order_by=[OrderItem(expr=col("name", "c"), direction="desc")],
        limit=5,
    )


def test_every_clause_is_a_branch_and_conditions_are_split():
    assert tree_text(plan_tree(_orders_by_customer())).splitlines() == [
        "query",
        "├── SELECT",
        "│   ├── c.name",
        "│   └── COUNT(*) AS n",
        "├── FROM orders AS o",
        "│   └── INNER JOIN customers AS c ON o.customer_id = c.customer_id",
        "├── WHERE",
        "│   ├── o.total > 10",
        "│   └── o.status = 'paid'",
        "├── GROUP BY",
        "│   └── c.name",
        "├── ORDER BY",
        "│   └── c.name DESC",
        "└── LIMIT 5",
    ]


def test_set_operations_show_both_sides():
    left = PlanModel(tables=[TableRef(name="a", alias="a")], select=[SelectItem(expr=col("id", "a"))])
    right = PlanModel(tables=[TableRef(name="b", alias="b")], select=[SelectItem(expr=col("id", "b"))])
    union = left.model_copy(update={"set_operation": SetOperation(op="union", right=right)})
    tree = plan_tree(union)
    assert [child.label for child in tree.children] == ["left", "UNION", "right"]
    assert "FROM b AS b" in tree_text(tree)


def test_names_that_need_quotes_keep_them():
    plan = PlanModel(tables=[TableRef(name="Order Items", alias="t1")], select=[SelectItem(expr=col("Qty", "t1"))])
    text = tree_text(plan_tree(plan))
    assert 'FROM "Order Items" AS t1' in text and 't1."Qty"' in text
