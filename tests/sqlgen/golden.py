"""The one loader for the golden SQL generation cases in tests/fixtures/sqlgen/*.yaml.

A case file holds a plan, the SQL expected per dialect, and the rows the query returns on the
shop database (tests/sqlgen/shop.py). SQL is compared after a sqlglot round trip, so layout and
keyword case do not matter; rows are compared after normalising driver types.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import sqlglot
import yaml

from nl2sql.plan import PlanModel

CASES_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "sqlgen"
DIALECTS = ("duckdb", "sqlite", "postgres", "mysql")


@dataclass(frozen=True)
class GoldenCase:
    name: str
    description: str
    plan: PlanModel
    expected: dict[str, str]
    rows: list[tuple] | None  # None: not executed (the shop lacks what the plan names)
    use_snapshot: bool

    @property
    def ordered(self) -> bool:
        return bool(self.plan.order_by)


def load_cases(folder: Path = CASES_DIR) -> list[GoldenCase]:
    """Every *.yaml case in `folder`, sorted by file name."""
    cases = []
    for path in sorted(folder.glob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        rows = data.get("rows")
        cases.append(
            GoldenCase(
                name=path.stem,
                description=data["description"],
                plan=PlanModel.model_validate(data["plan"]),
                expected={d: data["expected"][d] for d in DIALECTS},
                rows=[tuple(r) for r in rows] if rows is not None else None,
                use_snapshot=data.get("snapshot", True),
            )
        )
    return cases


def canonical(sql: str, dialect: str) -> str:
    """`sql` parsed and generated again by sqlglot in `dialect`."""
    return sqlglot.parse_one(sql, read=dialect).sql(dialect=dialect, identify=True)


def _value(value: object) -> object:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float | Decimal):
        number = float(value)
        return int(number) if number.is_integer() else round(number, 6)
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    return value


def normalize_rows(rows: list, ordered: bool) -> list[tuple]:
    """Driver rows as plain tuples (numbers rounded, dates ISO); sorted unless `ordered`."""
    out = [tuple(_value(v) for v in row) for row in rows]
    return out if ordered else sorted(out, key=repr)
