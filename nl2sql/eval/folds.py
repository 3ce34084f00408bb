"""Leave-databases-out scoring: what a fitted choice is worth on databases it was not fitted on.

The databases are split into K groups (sorted ids dealt round-robin, so a split is reproducible);
each group is scored with everything fitted on the other groups only. What is fitted today is the
confidence threshold below which a run should not answer (the `min_confidence` a deployment would
set): the lowest threshold whose precision on the fitting groups reaches the target. A held-out
record whose confidence is under its fold's threshold counts as not answered.

    >>> split(["d", "a", "c", "b", "e"], 2)
    [['a', 'c', 'e'], ['b', 'd']]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nl2sql.eval.report import Figures, figures
from nl2sql.eval.runner import QuestionRecord

if TYPE_CHECKING:
    from rich.console import Console

NEVER = 1.01  # a threshold no confidence reaches: answer nothing


def split(db_ids: Sequence[str], k: int) -> list[list[str]]:
    """The databases in `k` groups (ValueError when there are fewer databases than groups)."""
    ids = sorted(set(db_ids))
    if k < 2 or k > len(ids):
        raise ValueError(f"--folds must be between 2 and the number of databases ({len(ids)}), not {k}")
    return [ids[i::k] for i in range(k)]


def _confidence(record: QuestionRecord) -> float:
    return 1.0 if record.confidence is None else record.confidence


def fit_threshold(records: Sequence[QuestionRecord], target: float) -> float:
    """The lowest confidence threshold at which the answered records' precision reaches `target`
    (NEVER when no threshold does)."""
    answered = [r for r in records if r.answered]
    for threshold in sorted({_confidence(r) for r in answered}):
        above = [r for r in answered if _confidence(r) >= threshold]
        if sum(r.correct for r in above) / len(above) >= target:
            return threshold
    return NEVER


def withheld(records: Sequence[QuestionRecord], threshold: float) -> list[QuestionRecord]:
    """The records as a run with `min_confidence = threshold` would leave them."""
    return [
        r.model_copy(update={"answered": False, "correct": False})
        if r.answered and _confidence(r) < threshold else r
        for r in records
    ]


@dataclass(frozen=True)
class Fold:
    """One held-out group: its databases, the threshold fitted without them, and its figures
    as answered and as withheld below that threshold."""

    databases: tuple[str, ...]
    threshold: float
    answered: Figures
    withheld: Figures


def leave_databases_out(records: Sequence[QuestionRecord], k: int, target: float) -> list[Fold]:
    """Score each group of databases with the threshold fitted on the others."""
    folds = []
    for group in split([r.db_id for r in records], k):
        held = [r for r in records if r.db_id in group]
        threshold = fit_threshold([r for r in records if r.db_id not in group], target)
        folds.append(Fold(tuple(group), threshold, figures(held), figures(withheld(held, threshold))))
    return folds


def in_sample(records: Sequence[QuestionRecord], target: float) -> Fold:
    """The same, fitted and scored on all the databases (what the folds are compared with)."""
    threshold = fit_threshold(records, target)
    dbs = tuple(sorted({r.db_id for r in records}))
    return Fold(dbs, threshold, figures(records), figures(withheld(records, threshold)))


def pooled(folds: Sequence[Fold]) -> Figures:
    """The held-out figures of every fold added up."""
    return Figures(
        total=sum(f.withheld.total for f in folds),
        answered=sum(f.withheld.answered for f in folds),
        correct=sum(f.withheld.correct for f in folds),
    )


def render_folds(console: Console, records: Sequence[QuestionRecord], k: int, target: float) -> None:
    """Print the per-fold table, the pooled held-out figures and the in-sample ones, then the
    databases of each fold."""
    from rich.table import Table

    folds = leave_databases_out(records, k, target)
    table = Table(title=f"leave-databases-out, {k} folds: threshold for precision ≥ {target:.0%} "
                  "fitted on the other folds", title_justify="left")
    for head in ("fold", "n", "EX", "prec.", "threshold", "EX", "cov.", "prec."):
        table.add_column(head, justify="right", no_wrap=True)
    for pos, fold in enumerate(folds, 1):
        table.add_row(str(pos), *_row(fold))
    total = pooled(folds)
    table.add_row("held out", str(total.total), "", "", "", f"{total.accuracy:.1%}",
                  f"{total.coverage:.1%}", f"{total.precision:.1%}", style="bold")
    table.add_row("in-sample", *_row(in_sample(records, target)), style="dim")
    console.print(table)
    console.print("[dim]EX/prec. as answered, then with runs under the fitted confidence "
                  "threshold counted as not answered. The confidences come from the shipped "
                  "calibration; `nl2sql bench calibrate` refits it per fold as well[/dim]")
    for pos, fold in enumerate(folds, 1):
        console.print(f"  fold {pos}: {', '.join(fold.databases)}")


def _row(fold: Fold) -> list[str]:
    a, w = fold.answered, fold.withheld
    threshold = "none" if fold.threshold >= NEVER else f"{fold.threshold:.2f}"
    return [str(a.total), f"{a.accuracy:.1%}", f"{a.precision:.1%}", threshold,
            f"{w.accuracy:.1%}", f"{w.coverage:.1%}", f"{w.precision:.1%}"]
