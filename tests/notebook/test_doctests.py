"""The examples in the notebook layer's docstrings run and say what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["nl2sql.notebook.args", "nl2sql.notebook.cells", "nl2sql.notebook.chart_draw", "nl2sql.notebook.completion", "nl2sql.notebook.exports",
           "nl2sql.notebook.formatting", "nl2sql.labels", "nl2sql.notebook.highlight",
           "nl2sql.notebook.hints", "nl2sql.notebook.inputs",
           "nl2sql.notebook.plan_tree", "nl2sql.progress"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
