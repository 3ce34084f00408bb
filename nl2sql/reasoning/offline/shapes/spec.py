"""The resolved query the shape parser produces and the plan builder renders into a PlanModel.

Columns here name tables by `Table.key`; aliases are assigned only when the plan is built.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nl2sql.errors import Refusal


class Unclear(ValueError):
    """The question cannot be planned without guessing; the message says what was not understood
    and `refusal`, when teaching could fix it, says so as data."""

    def __init__(self, message: object, refusal: Refusal | None = None):
        super().__init__(message)
        self.refusal = refusal


@dataclass(frozen=True)
class Col:
    table: str
    column: str

    @property
    def ref(self) -> str:
        return f"{self.table}.{self.column}"


@dataclass(frozen=True)
class Agg:
    """An aggregate: COUNT(*) of `table` when col is None, else func(col); with `metric`, the
    semantic layer's metric of that name over `table` (func "metric")."""

    func: str
    table: str
    col: Col | None = None
    distinct: bool = False
    metric: str | None = None


@dataclass(frozen=True)
class Part:
    """A part of a date column (EXTRACT(year|quarter|month|day FROM col))."""

    part: str
    col: Col


Target = Col | Agg | Part


@dataclass(frozen=True)
class GroupExtreme:
    """WHERE measure = (SELECT func(measure) FROM its table WHERE by = the outer row's by): the
    rows holding their group's extreme, ties kept."""

    measure: Col
    func: str  # "max" | "min"
    by: tuple[str, ...]  # columns of measure.table whose equal values make one group


@dataclass
class Cond:
    """One condition: op is = != < <= > >= between in range, or "or" (values: two Conds)."""

    target: Target
    op: str
    values: list[Any] = field(default_factory=list)
    negated: bool = False
    text: str = ""  # the question words it comes from, for the reasoning
    pos: int = -1  # index of its first question token (to find what "or" / "and" connect)
    parts: list[int] = field(default_factory=list)  # token index of each value, when several


@dataclass
class Query:
    root: str
    select: list[tuple[Target, str | None]] = field(default_factory=list)
    where: list[Cond] = field(default_factory=list)
    group: list[Target] = field(default_factory=list)
    having: list[Cond] = field(default_factory=list)
    order: list[tuple[Target, str]] = field(default_factory=list)
    limit: int | None = None
    star: bool = False  # SELECT * of the root table
    distinct: bool = False  # SELECT DISTINCT ("the different genres …")
    in_subquery: tuple[Col, Query] | None = None  # WHERE col IN (sub-query)
    extreme: GroupExtreme | None = None  # WHERE measure = its group's MAX / MIN (correlated)
    anti: list[tuple[Col, Query]] = field(default_factory=list)  # WHERE col NOT IN (sub-query)
    set_op: tuple[str, Query] | None = None  # INTERSECT / UNION / EXCEPT with another query
    joined: list[str] = field(
        default_factory=list
    )  # tables joined for existence ("who have loans")
    preferred: set[str] = field(default_factory=set)  # tables the question mentions
    notes: list[str] = field(default_factory=list)
    shape: str = ""
    penalty: float = 0.0  # confidence lost to tie-breaks and ambiguity

    def tables(self) -> list[str]:
        """Every table the query refers to, root first."""
        out = [self.root] + [t for t in self.joined if t != self.root]
        targets = [t for t, _ in self.select] + self.group + [t for t, _ in self.order]
        targets += [t for c in self.where + self.having for t in _cond_targets(c)]
        if self.in_subquery:
            targets.append(self.in_subquery[0])
        for t in targets:
            for table in _tables_of(t):
                if table not in out:
                    out.append(table)
        return out


def _cond_targets(c: Cond) -> list[Target]:
    """The targets of a condition (both sides of an OR)."""
    if c.op == "or":
        return [t for part in c.values for t in _cond_targets(part)]
    return [c.target]


def _tables_of(t: Target) -> list[str]:
    if isinstance(t, Col):
        return [t.table]
    if isinstance(t, Part):
        return [t.col.table]
    return [t.col.table] if t.col is not None else [t.table]


def iso(day: date) -> str:
    return day.isoformat()
