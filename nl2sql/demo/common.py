"""Constants and random streams shared by the demo generators."""

from __future__ import annotations

import numpy as np

from nl2sql.demo.data import REFERENCE_DATE, SEED

START = np.datetime64("2023-01-01", "D")
END = np.datetime64(REFERENCE_DATE, "D")  # the fixed reference date: the last day with orders


def rng_for(part: int) -> np.random.Generator:
    """The generator of one table: its own stream, so tables never shift each other's data."""
    return np.random.default_rng([SEED, part])


def zipf(n: int, exponent: float, offset: float = 0.0) -> np.ndarray:
    """Probabilities falling off as 1 / (rank + offset) ** exponent (rank 1 most likely)."""
    weights = 1.0 / (np.arange(1, n + 1) + offset) ** exponent
    probabilities: np.ndarray = weights / weights.sum()
    return probabilities
