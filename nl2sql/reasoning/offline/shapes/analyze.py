"""One question's reading: the rules, in the order they run, over one `Analysis` state.

A rule is a function `rule(a: Analysis) -> None` that reads the question (`a.question`) and what
earlier rules wrote, and writes its own fields of the state (see `state.py`); it raises Unclear
when the question cannot be read without guessing. `analyze` starts the state and runs the rules
one after the other, as sqlglot's optimizer runs its `RULES`. To add a rule, write it in a module
of its own and put it in `RULES` where what it reads is already written; a rule can be left out
(`analyze(..., rules=...)`) or run alone on a state to test it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from nl2sql.reasoning.offline.catalog.index import SchemaIndex
from nl2sql.reasoning.offline.linking.linker import Linking
from nl2sql.reasoning.offline.shapes.checks import (
    check_alternatives,
    check_columns_read,
    check_negations,
)
from nl2sql.reasoning.offline.shapes.dependent import dependent_columns
from nl2sql.reasoning.offline.shapes.existence import existence_joins
from nl2sql.reasoning.offline.shapes.intersect import intersect_both
from nl2sql.reasoning.offline.shapes.measures import read_measure
from nl2sql.reasoning.offline.shapes.negation import reserve_negated_tables
from nl2sql.reasoning.offline.shapes.select import read_shape
from nl2sql.reasoning.offline.shapes.state import Analysis, start
from nl2sql.reasoning.offline.words.scan import Scan

Rule = Callable[[Analysis], None]

RULES: tuple[Rule, ...] = (
    # before the shape: what the shape chooses between
    reserve_negated_tables,  # table mentions inside a negation are not the entity
    read_measure,  # the count / aggregate cue and what it applies to
    # the shape: ranking, aggregate or listing -> Analysis.query (with its conditions and order)
    read_shape,
    # after the shape: complete the query
    dependent_columns,  # columns beside a grouped key are grouped too
    intersect_both,  # "both A and B": one query per condition, intersected
    # refuse a reading that dropped words
    check_negations,  # a negation no condition took
    check_alternatives,  # an "or" no condition took
    check_columns_read,  # a column named that the query does not read
    # last, when every role is given: a named table left over restricts to rows with a match
    existence_joins,
)


def analyze(
    s: Scan,
    linking: Linking,
    idx: SchemaIndex,
    hints: Mapping[str, Any],
    rules: Sequence[Rule] = RULES,
) -> Analysis:
    """Read one question (scan, linking) into `Analysis.query`, or raise Unclear.

    The scan's numeric cues gain the bare numbers (see `state.start`)."""
    a = start(s, linking, idx, hints)
    for rule in rules:
        rule(a)
    return a
