"""Clarification: the readings a run offers when it is not sure, and choosing one.

A run whose planner confidence is under the `min_confidence` setting is not answered: it ends
with status `needs_clarification` and a `CLARIFICATION_NEEDED` error whose details list the
candidate readings (the planner's own first). `candidates()` turns them into `Candidate`s with
a number, a one-line description and the SQL each would run; `Session.choose(result, n)` runs
the chosen plan as a supplied plan, so it is validated, guarded and executed read-only like
any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nl2sql.errors import ErrorCode
from nl2sql.plan import PlanModel

if TYPE_CHECKING:
    from nl2sql.result import QueryResult


@dataclass(frozen=True)
class Candidate:
    """One reading to choose: `number` as shown (1 first), what it computes, its SQL."""

    number: int
    description: str
    sql: str | None  # None when the plan cannot be rendered (choosing it fails as that run would)
    plan: PlanModel
    confidence: float
    datasource: str

    def line(self) -> str:
        """"2. count of orders per region (confidence 0.41)"."""
        return f"{self.number}. {self.description} (confidence {self.confidence:.2f})"


def candidates(result: QueryResult) -> list[Candidate]:
    """The readings `result` offers (empty unless its status is needs_clarification)."""
    from nl2sql.sqlgen import render_plan

    out: list[Candidate] = []
    for err in result.errors:
        if err.error_code != ErrorCode.CLARIFICATION_NEEDED:
            continue
        ds = datasource_of(result, err.sub_query_id)
        adapter = result.session.context.datasources.get(ds) if ds else None
        for item in err.details.get("candidates") or []:
            plan = PlanModel.model_validate(item["plan"])
            try:
                sql = render_plan(plan, adapter.dialect, result.session.context.schemas.get(ds)) \
                    if adapter is not None and ds is not None else None
            except Exception:  # noqa: BLE001 - shown as "no SQL"; choosing it reports the failure
                sql = None
            out.append(Candidate(len(out) + 1, str(item["description"]), sql, plan,
                                 float(item["confidence"]), ds or ""))
        break  # one sub-query's readings: a question with several parts is asked part by part
    return out


def pick(result: QueryResult, number: int) -> Candidate:
    """Candidate `number` (1 first) of `result`; ValueError naming the choices otherwise."""
    found = candidates(result)
    if not found:
        raise ValueError(f"this run has no readings to choose from (status {result.status})")
    if len(result.sub_queries) > 1:
        raise ValueError("the question has several parts; ask each part on its own to choose "
                         "a reading")
    if not isinstance(number, int) or isinstance(number, bool) or not 1 <= number <= len(found):
        raise ValueError(f"choose a reading between 1 and {len(found)}, not {number!r}")
    return found[number - 1]


def datasource_of(result: QueryResult, sub_query_id: str | None) -> str | None:
    """The datasource of sub-query `sub_query_id` of `result` (any when None), else the run's."""
    for out in result.sub_queries:
        sq: Any = out.sub_query
        if sq is not None and (sub_query_id is None or sq.id == sub_query_id):
            return str(sq.datasource_id)
    return result.datasource
