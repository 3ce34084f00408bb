"""SQL generation: render a PlanModel as SQL for a dialect with sqlglot expressions."""

from __future__ import annotations

from nl2sql.dialects import sqlglot_dialect
from nl2sql.errors import SQLGenError
from nl2sql.sqlgen.render import plan_to_expression, render_plan

__all__ = ["SQLGenError", "plan_to_expression", "render_plan", "sqlglot_dialect"]
