"""Fixtures for the logical validator tests."""

from __future__ import annotations

import pytest

from nl2sql.schema.models import SchemaSnapshot

from . import helpers


@pytest.fixture(scope="session")
def shop() -> SchemaSnapshot:
    return helpers.bookshop()
