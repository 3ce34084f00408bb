"""The combine engine: union, join and compare sub-query results, then the post-combine chain."""

from nl2sql.aggregation.engine import CombineOutcome, run_combine

__all__ = ["CombineOutcome", "run_combine"]
