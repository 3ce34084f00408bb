"""Fitting the offline planner's confidence: a logistic model over its evidence.

Each answered benchmark record carries the planner's evidence (`QuestionRecord.evidence`, see
`reasoning/offline/confidence.py`) and whether the answer was right. `fit()` fits an
L2-regularised logistic regression (standardised features, Newton steps) on such records;
`out_of_fold()` scores every record with a model fitted without its databases' fold, so what the
threshold is chosen on is what an unseen database would get. `choose_min_confidence()` picks the
lowest threshold at which every record set reaches the target precision held out.

    >>> m = fit_arrays([[0.0], [0.0], [1.0], [1.0]], [0, 0, 1, 1], ["x"])
    >>> round(score_one(m, {"x": 1.0}), 2) > 0.5 > round(score_one(m, {"x": 0.0}), 2)
    True
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nl2sql.eval.folds import split
from nl2sql.eval.runner import QuestionRecord
from nl2sql.reasoning.offline.confidence import score, with_interactions

if TYPE_CHECKING:
    from rich.console import Console

L2 = 1.0  # ridge strength (on standardised features): a few hundred records, ~20 features
_STEPS = 50
#: Evidence that can only make a reading less likely (a weight above 0 is fitted noise: with a
#: few hundred records an ambiguous join path can happen to be right more often than not) …
AGAINST = frozenset({"inferred_joins", "ambiguous_join", "fan_out", "weak_links", "synonym_links",
                     "unlinked_share", "values_close", "nested", "tables", "aggregate_over_join",
                     "inferred_share", "unnamed_shown"})
#: … and evidence that can only make it more likely. A feature fitted with the wrong sign is
#: left out and the model refitted without it.
FOR = frozenset({"heuristic", "margin", "values_stored", "values_looked_up"})
#: Evidence the pipeline checks after planning, so it must not stop a run before that check: a
#: value kept as written near a stored one ("Californa") is replaced by the stored value after
#: the executor's VALUE_NOT_FOUND check, or the run is refused there.
CHECKED_LATER = frozenset({"values_close"})


def fit_arrays(rows: Sequence[Sequence[float]], labels: Sequence[int],
               names: Sequence[str]) -> dict[str, Any]:
    """A logistic model of `labels` over `rows` (columns named `names`), as the calibration
    file stores it."""
    import numpy as np

    x = np.asarray(rows, dtype=float).reshape(len(rows), len(names))
    y = np.asarray(labels, dtype=float)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / scale])
    w = np.zeros(z.shape[1])
    ridge = np.eye(z.shape[1]) * L2
    ridge[0, 0] = 0.0  # the intercept is not shrunk
    for _ in range(_STEPS):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -60, 60)))
        grad = z.T @ (p - y) + ridge @ w
        hess = (z.T * (p * (1 - p))) @ z + ridge + np.eye(z.shape[1]) * 1e-9
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return {
        "features": list(names),
        "weights": [round(float(v), 6) for v in w[1:]],
        "bias": round(float(w[0]), 6),
        "mean": [round(float(v), 6) for v in mean],
        "scale": [round(float(v), 6) for v in scale],
        "records": len(rows),
    }


def score_one(model: Mapping[str, Any], evidence: Mapping[str, float]) -> float:
    return score(dict(model), dict(evidence))


def fit(records: Sequence[QuestionRecord]) -> dict[str, Any]:
    """The model fitted on the answered records that carry evidence (ValueError when there are
    too few, or they are all right or all wrong)."""
    usable = [r for r in records if r.answered and r.evidence]
    labels = [int(r.correct) for r in usable]
    if len(usable) < 10 or len(set(labels)) < 2:
        raise ValueError(f"calibration needs at least 10 answered records, right and wrong ones "
                         f"({len(usable)} usable)")
    facts = [with_interactions(r.evidence) for r in usable]
    names = sorted({k for f in facts for k in f} - CHECKED_LATER)
    while True:
        model = fit_arrays([[f.get(n, 0.0) for n in names] for f in facts], labels, names)
        wrong = {n for n, w in zip(names, model["weights"], strict=True)
                 if (n in AGAINST and w > 0) or (n in FOR and w < 0)}
        if not wrong:
            return model
        names = [n for n in names if n not in wrong]


def rescored(records: Sequence[QuestionRecord], model: Mapping[str, Any]) -> list[QuestionRecord]:
    """The records with the confidence `model` gives their evidence."""
    return [r.model_copy(update={"confidence": score_one(model, r.evidence)}) if r.evidence else r
            for r in records]


def out_of_fold(records: Sequence[QuestionRecord], k: int) -> list[QuestionRecord]:
    """Every record scored by a model fitted on the other folds' databases only."""
    out: list[QuestionRecord] = list(records)
    for group in split([r.db_id for r in records], k):
        model = fit([r for r in records if r.db_id not in group])
        held = [i for i, r in enumerate(records) if r.db_id in group]
        # by position: two record files may hold the same question id (a copy of a set)
        for i, r in zip(held, rescored([records[i] for i in held], model), strict=True):
            out[i] = r
    return out


def precision_at(records: Sequence[QuestionRecord], threshold: float) -> tuple[float, float]:
    """(precision, coverage) when runs under `threshold` are not answered."""
    kept = [r for r in records if r.answered and (r.confidence or 0.0) >= threshold]
    right = sum(r.correct for r in kept)
    return (right / len(kept) if kept else 1.0, len(kept) / len(records) if records else 0.0)


def choose_min_confidence(sets: Sequence[Sequence[QuestionRecord]], target: float) -> float:
    """The lowest threshold (in steps of 0.05) at which every set's precision reaches `target`."""
    for step in range(1, 20):
        threshold = step / 20
        if all(precision_at(s, threshold)[0] >= target for s in sets):
            return threshold
    return 0.95


def load_records(path: str | Path) -> list[QuestionRecord]:
    """The records of a `bench spider --out` file."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [QuestionRecord.model_validate_json(line) for line in lines if line.strip()]


def run_calibrate(console: Console, paths: Sequence[str], k: int, target: float, write: bool,
                  curve: str | None = None) -> int:
    """`nl2sql bench calibrate`: held-out precision/coverage per record file at each threshold,
    the min_confidence that reaches `target` on every file, the held-out calibration curve (an
    SVG, with `curve`), and (with `write`) the model fitted on every record stored as the
    package's calibration file."""
    from rich.table import Table

    from nl2sql.reasoning.offline import confidence

    sets = [load_records(p) for p in paths]
    pooled = [r for s in sets for r in s]
    held = out_of_fold(pooled, k)
    by_set, start = [], 0
    for s in sets:
        by_set.append(held[start:start + len(s)])
        start += len(s)
    table = Table(title=f"held-out (leave-databases-out, {k} folds): precision / coverage",
                  title_justify="left")
    table.add_column("min_confidence", justify="right")
    for p in paths:
        table.add_column(Path(p).name, justify="right")
    for step in range(0, 20):
        threshold = step / 20
        table.add_row(f"{threshold:.2f}", *[f"{pr:.1%} / {cov:.1%}" for pr, cov in
                                             (precision_at(s, threshold) for s in by_set)])
    console.print(table)
    chosen = choose_min_confidence(by_set, target)
    console.print(f"lowest min_confidence with held-out precision ≥ {target:.0%} on every file: "
                  f"{chosen:.2f}")
    if curve:
        from nl2sql.eval.curve import bins, curve_svg

        Path(curve).write_text(curve_svg(bins(held), f"held-out calibration, {k} folds"),
                               encoding="utf-8")
        console.print(f"calibration curve: {curve}")
    if write:
        model = fit(pooled)
        path = Path(confidence.__file__).with_name(confidence.CALIBRATION_FILE)
        path.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
        console.print(f"wrote {path} ({model['records']} records)")
    return 0
