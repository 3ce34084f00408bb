"""Logical validation: a PlanModel checked against a SchemaSnapshot before SQL is generated."""

from __future__ import annotations

from nl2sql.validation.rules import checks_to_errors, validate_plan

__all__ = ["checks_to_errors", "validate_plan"]
