"""Scripted skills for pipeline tests: deterministic stand-ins for one node's model."""

from __future__ import annotations

import time

from nl2sql.plan import (
    Aggregate,
    Arithmetic,
    ColumnRef,
    Comparison,
    Join,
    Literal_,
    PlanModel,
    SelectItem,
    TableRef,
)
from nl2sql.reasoning.base import ASTPlannerResponse


def slow_cross_join_plan() -> PlanModel:
    """COUNT(*) over order_items x order_items x order_items: runs for a long time."""
    on = Comparison(op=">", left=Arithmetic(op="+", left=ColumnRef(table="a", name="quantity"),
                                              right=ColumnRef(table="b", name="quantity")),
                    right=Literal_(value=-1))
    on2 = Comparison(op=">", left=ColumnRef(table="c", name="quantity"), right=Literal_(value=-1))
    return PlanModel(
        tables=[TableRef(name="order_items", alias="a"), TableRef(name="order_items", alias="b"),
                TableRef(name="order_items", alias="c")],
        joins=[Join(alias="b", on=on), Join(alias="c", on=on2)],
        select=[SelectItem(expr=Aggregate(func="count"), alias="n")],
    )


class FixedPlanner:
    """Returns the same plan every time, counting its calls."""

    def __init__(self, plan: PlanModel, delay_s: float = 0.0):
        self._plan = plan
        self.delay_s = delay_s
        self.calls = 0

    def plan(self, request) -> ASTPlannerResponse:
        self.calls += 1
        time.sleep(self.delay_s)
        return ASTPlannerResponse(plan=self._plan, reasoning="scripted")


class VaryingPlanner:
    """The offline engine's plan with new column aliases on every call: equivalent plans whose
    SQL (and so approval request id) differs from call to call, as a sampling model's would."""

    def __init__(self):
        from nl2sql.reasoning.offline.engine import OfflineEngine

        self._engine = OfflineEngine()
        self.calls = 0

    def plan(self, request) -> ASTPlannerResponse:
        self.calls += 1
        response = self._engine.plan(request)
        if response.plan is None:
            return response
        select = [item.model_copy(update={"alias": f"{item.alias or 'value'}_v{self.calls}"})
                  for item in response.plan.select]
        return response.model_copy(update={"plan": response.plan.model_copy(update={"select": select})})
