"""Benchmark figures and their rich rendering.

Accuracy is correct / all questions; coverage is answered / all (answered: the run succeeded with
a result, rather than refusing or failing); precision is correct / answered. Each figure is given
overall and per hardness level, for all questions and for those whose gold result is non-empty
(an empty prediction trivially matches an empty gold result, so those inflate accuracy).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nl2sql.eval.runner import QuestionRecord

if TYPE_CHECKING:
    from rich.console import Console

LEVELS = ("easy", "medium", "hard", "extra")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|“[^”]*”")
_NUMBER = re.compile(r"\b\d+(?:\.\d+)?\b")
_IDENT = re.compile(r"\b[^\W\d]\w*\.\w+\b")  # table.column references (not 0.50)


@dataclass(frozen=True)
class Figures:
    total: int
    answered: int
    correct: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0

    @property
    def coverage(self) -> float:
        return self.answered / self.total if self.total else 0.0

    @property
    def precision(self) -> float:
        return self.correct / self.answered if self.answered else 0.0

    def as_dict(self) -> dict[str, float | int]:
        return {
            "total": self.total,
            "answered": self.answered,
            "correct": self.correct,
            "accuracy": round(self.accuracy, 4),
            "coverage": round(self.coverage, 4),
            "precision": round(self.precision, 4),
        }


def figures(records: Iterable[QuestionRecord]) -> Figures:
    """Counts of one group of records."""
    items = list(records)
    return Figures(
        total=len(items),
        answered=sum(r.answered for r in items),
        correct=sum(r.correct for r in items),
    )


def by_level(records: Sequence[QuestionRecord], non_empty: bool = False) -> dict[str, Figures]:
    """Figures per hardness level (Spider's order, then any other level), then "all"."""
    pool = [r for r in records if not non_empty or (r.gold_rows or 0) > 0]
    levels = list(LEVELS) + sorted({r.hardness for r in pool} - set(LEVELS))
    out = {lv: figures(r for r in pool if r.hardness == lv) for lv in levels}
    out = {lv: f for lv, f in out.items() if f.total}
    out["all"] = figures(pool)
    return out


def reason_of(record: QuestionRecord) -> str:
    """A refusal's or failure's message with its specifics (quoted words, numbers) blanked."""
    text = record.error_message or ""
    text = _QUOTED.sub("'…'", text)
    text = _IDENT.sub("<column>", text)
    text = _NUMBER.sub("N", text)
    return f"{record.error_code or record.status}: {text}".strip().rstrip(":")


def top_reasons(
    records: Sequence[QuestionRecord], n: int = 5
) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """The n most common reasons for not answering, and for answering wrongly."""
    refused = Counter(reason_of(r) for r in records if not r.answered)
    wrong = Counter(
        _NUMBER.sub("N", r.mismatch or "wrong") for r in records if r.answered and not r.correct
    )
    return refused.most_common(n), wrong.most_common(n)


def summary(records: Sequence[QuestionRecord], seconds: float) -> dict[str, Any]:
    """Everything the report prints, as plain data."""
    refused, wrong = top_reasons(records)
    return {
        "questions": len(records),
        "seconds": round(seconds, 1),
        "all": {k: f.as_dict() for k, f in by_level(records).items()},
        "non_empty_gold": {k: f.as_dict() for k, f in by_level(records, True).items()},
        "refusals": refused,
        "needs_clarification": sum(r.status == "needs_clarification" for r in records),
        "clarification_hits": sum(r.clarification_hit for r in records),
        "wrong": wrong,
    }


def render(console: Console, records: Sequence[QuestionRecord], seconds: float, title: str) -> None:
    """Print the figures tables and the most common reasons."""
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    table.add_column("level")
    for head in ("n", "acc.", "cov.", "prec."):
        table.add_column(head, justify="right")
    for head in ("n≠∅", "acc.", "cov.", "prec."):
        table.add_column(head, justify="right", style="cyan")
    full, non_empty = by_level(records), by_level(records, non_empty=True)
    for level, f in full.items():
        g = non_empty.get(level, Figures(0, 0, 0))
        style = "bold" if level == "all" else None
        table.add_row(level, *_cells(f), *_cells(g), style=style, end_section=level == "extra")
    console.print(table)
    console.print(
        "[dim]acc. = correct/all · cov. (coverage) = answered/all · prec. (precision) = "
        "correct/answered · n≠∅: questions whose gold result is non-empty[/dim]"
    )
    refused, wrong = top_reasons(records)
    _reasons(console, "most common reasons for not answering", refused)
    _reasons(console, "most common reasons for wrong answers", wrong)
    asked = [r for r in records if r.status == "needs_clarification"]
    if asked:
        hits = sum(r.clarification_hit for r in asked)
        console.print(f"needs_clarification (not answered): {len(asked)}; the gold result among "
                      f"the offered readings in {hits} (clarification hit rate "
                      f"{hits / len(asked):.1%})")
    mean = seconds / len(records) if records else 0.0
    console.print(f"{len(records)} questions in {seconds:.1f}s ({mean:.2f}s per question)")


def _cells(f: Figures) -> list[str]:
    return [str(f.total), f"{f.accuracy:.1%}", f"{f.coverage:.1%}", f"{f.precision:.1%}"]


def _reasons(console: Console, title: str, items: list[tuple[str, int]]) -> None:
    if not items:
        return
    console.print(f"[bold]{title}[/bold]")
    for text, count in items:
        console.print(f"  {count:4d}  {text}")
