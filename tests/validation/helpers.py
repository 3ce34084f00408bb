"""A small hand-made bookshop schema, and helpers to write plans and read checks tersely."""

from __future__ import annotations

from nl2sql.plan import PlanModel, SelectItem, TableRef
from nl2sql.schema.models import Column, SchemaSnapshot, Table
from nl2sql.validation.checks import ValidationCheck


def _table(name: str, columns: str, schema: str | None = None) -> Table:
    cols = [Column(name=spec.split(":")[0], type=spec.split(":")[1]) for spec in columns.split()]
    return Table(name=name, schema_name=schema, columns=cols)


def bookshop() -> SchemaSnapshot:
    """authors, books, sales and the schema-qualified hr.staff."""
    return SchemaSnapshot(
        datasource_id="bookshop",
        dialect="postgres",
        tables=[
            _table("authors", "author_id:INTEGER full_name:VARCHAR country:VARCHAR"),
            _table(
                "books",
                "book_id:INTEGER author_id:INTEGER title:VARCHAR genre:VARCHAR price:DECIMAL published_on:DATE",
            ),
            _table(
                "sales",
                "sale_id:INTEGER book_id:INTEGER sold_at:TIMESTAMP copies:INTEGER store:VARCHAR",
            ),
            _table("staff", "staff_id:INTEGER name:VARCHAR salary:DECIMAL", schema="hr"),
        ],
    )


def plan(tables: list[tuple[str, str]], select: list, **fields) -> PlanModel:
    """A plan from (table, alias) pairs and select expressions (or SelectItems)."""
    items = [s if isinstance(s, SelectItem) else SelectItem(expr=s) for s in select]
    refs = [TableRef(name=n, alias=a) for n, a in tables]
    return PlanModel(tables=refs, select=items, **fields)


def failed(checks: list[ValidationCheck], name: str | None = None) -> list[ValidationCheck]:
    """The failed checks (of rule `name`, when given)."""
    return [c for c in checks if not c.passed and (name is None or c.name == name)]


def passed(checks: list[ValidationCheck], name: str) -> bool:
    """True when rule `name` reported one passed check and no failure."""
    mine = [c for c in checks if c.name == name]
    return len(mine) == 1 and mine[0].passed
