"""Curated, verified answers: a YAML file of question → SQL (or plan) per datasource.

    answers:
      - question: How many orders were cancelled?
        datasource: warehouse
        sql: SELECT COUNT(*) AS cancelled_orders FROM orders WHERE status = 'cancelled'
        verified_by: data-team

A question matches an answer when its normalized text is the same, or when its embedding (the
offline hashing embedding, in a chromadb collection) is at least `threshold` similar AND it asks
for the same kind of result: the same aggregate words (how many / total / average / highest /
lowest), the same negations and the same numbers. Lexical embeddings cannot tell "average" from
"total" or 2023 from 2024, and a curated answer to a different question is a wrong answer.
Answers promoted from runs (`QueryResult.verify()`) go to `.nl2sql/curated.yaml`.

An answer with `parameters` is also a template (`curated_template.py`): the same question about
another stored value of a parameter's column (or another number) runs its SQL with that value.
An exact match comes first, then a template, then a paraphrase by embedding — which, for a
template, must name the same values.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from nl2sql.errors import ConfigError
from nl2sql.governance.curated_template import (
    TemplateParameter,
    Value,
    check_template,
    keeps_values,
    match_template,
    template_question,
)
from nl2sql.plan import PlanModel

if TYPE_CHECKING:
    from nl2sql.governance.curated_index import CuratedIndex


class VerifiedMatch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str  # the curated question that matched
    datasource_id: str
    sql: str
    score: float
    method: str  # "exact" | "template" | "embedding"
    bindings: dict[str, Value] = Field(default_factory=dict)  # a template's, as the question gave them


class CuratedAnswer(BaseModel):
    """One verified answer: a question and the SQL (or plan) that answers it on a datasource."""

    model_config = ConfigDict(extra="forbid")

    question: str
    datasource: str
    sql: str | None = None
    plan: PlanModel | None = None
    verified_by: str | None = None
    note: str | None = None
    # name -> a value of the question another value may take (a template; see curated_template)
    parameters: dict[str, TemplateParameter] | None = None

    @model_validator(mode="after")
    def _needs_a_query(self) -> CuratedAnswer:
        if not (self.sql and self.sql.strip()) and self.plan is None:
            raise ValueError("a curated answer needs `sql` or `plan`")
        if self.parameters:
            if not (self.sql and self.sql.strip()):
                raise ValueError("a template (`parameters`) needs `sql`")
            check_template(self.question, self.sql, self.parameters)
        return self

    @property
    def template(self) -> str | None:
        """The question with its parameters as `{name}` slots (None: not a template)."""
        return template_question(self.question, self.parameters) if self.parameters else None


@dataclass(frozen=True)
class CuratedHit:
    answer: CuratedAnswer
    score: float
    method: str  # "exact" | "template" | "embedding"
    bindings: dict[str, Value] = field(default_factory=dict)  # a template's, as the question gave them


_CUES = {
    "count": ("how many", "count", "number of"),
    "sum": ("total", "sum"),
    "avg": ("average", "avg", "mean"),
    "max": ("max", "maximum", "highest", "largest", "most", "top", "biggest"),
    "min": ("min", "minimum", "lowest", "smallest", "least", "fewest", "bottom"),
    "not": ("not", "no", "without", "except", "never", "excluding"),
}
_CUE_PATTERNS = {k: re.compile(r"\b(" + "|".join(map(re.escape, v)) + r")\b") for k, v in _CUES.items()}


def normalize(question: str) -> str:
    """Lower-case words and numbers, single spaces: "How many orders?" → "how many orders"."""
    return " ".join(re.findall(r"[a-z0-9]+", question.casefold()))


def signature(question: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The result kind a question asks for: its aggregate/negation cues and its numbers."""
    text = normalize(question)
    cues = frozenset(k for k, pattern in _CUE_PATTERNS.items() if pattern.search(text))
    return cues, tuple(sorted(re.findall(r"\d+(?:\.\d+)?", text)))


def load_answers(path: Path) -> list[CuratedAnswer]:
    """The answers of one YAML file (`answers:` list, or a bare list); [] when it is absent."""
    import yaml

    if not path.is_file():
        return []
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path.name} is not valid YAML: {exc}") from None
    items = data.get("answers", []) if isinstance(data, dict) else data
    answers = []
    for position, item in enumerate(items or []):
        try:
            answers.append(CuratedAnswer.model_validate(item))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(map(str, (f"answers[{position}]", *first["loc"])))
            raise ConfigError(f"{path.name}: {where}: {first['msg']}") from None
    return answers


def save_answers(path: Path, answers: list[CuratedAnswer], project: Path | None = None) -> None:
    """Write `answers` as a readable YAML file (atomically)."""
    import yaml

    from nl2sql.governance.stores import write_text_atomic

    items = [a.model_dump(mode="json", exclude_none=True) for a in answers]
    text = "# Verified answers: question -> SQL per datasource (nl2sql curated answers)\n"
    text += yaml.safe_dump({"answers": items}, sort_keys=False, allow_unicode=True, width=1_000_000)
    write_text_atomic(path, text, project)


class CuratedStore:
    """The verified answers of the configured file and of the project's promoted file."""

    def __init__(self, files: list[Path], promoted: Path, *, threshold: float = 0.9,
                 index_path: Path | None = None):
        self.files = [Path(f) for f in files]
        self.promoted = Path(promoted)
        self.threshold = threshold
        self._index_path = index_path
        self._index: CuratedIndex | None = None
        self._stamp: tuple[tuple[object, ...], ...] | None = None
        self._answers: list[CuratedAnswer] = []
        self._lock = threading.Lock()

    def answers(self) -> list[CuratedAnswer]:
        """Every answer, reloaded when a file changed (configured file first)."""
        with self._lock:
            stamp = tuple(_stamp(p) for p in (*self.files, self.promoted))
            if stamp != self._stamp:
                self._answers = [a for p in (*self.files, self.promoted) for a in load_answers(p)]
                self._stamp = stamp
            return list(self._answers)

    @property
    def configured(self) -> bool:
        return bool(self.answers())

    def match(self, question: str, datasources: Collection[str],
              values: Callable[[str, str], Mapping[str, str]] | None = None) -> CuratedHit | None:
        """The answer for `question` among those on `datasources`, or None.

        `values(datasource, "table.column")` gives a column's known values by their words
        (`curated_template.column_values`); without it no template matches."""
        candidates = [a for a in self.answers() if a.datasource in set(datasources)]
        if not candidates:
            return None
        wanted = normalize(question)
        for answer in candidates:
            if normalize(answer.question) == wanted:
                return CuratedHit(answer, 1.0, "exact")
        templated = _template_hit(question, candidates, values) if values is not None else None
        if templated is not None:
            return templated
        shape = signature(question)
        for position, score in self._search(question, candidates):
            answer = candidates[position]
            if answer.parameters and not keeps_values(question, answer.parameters):
                continue  # another value than the template's: only a template match may answer it
            if score >= self.threshold and signature(answer.question) == shape:
                return CuratedHit(answer, round(score, 4), "embedding")
        return None

    def promote(self, answer: CuratedAnswer) -> Path:
        """Add `answer` to the promoted file (replacing one for the same question and datasource)."""
        with self._lock:
            kept = [a for a in load_answers(self.promoted)
                    if not (normalize(a.question) == normalize(answer.question) and a.datasource == answer.datasource)]
            save_answers(self.promoted, [*kept, answer], self.promoted.parent)
            self._stamp = None
        return self.promoted

    def _search(self, question: str, candidates: list[CuratedAnswer]) -> list[tuple[int, float]]:
        from nl2sql.governance.curated_index import CuratedIndex

        with self._lock:
            if self._index is None:
                self._index = CuratedIndex(self._index_path)
        return self._index.search(question, candidates)


def _template_hit(question: str, candidates: list[CuratedAnswer],
                  values: Callable[[str, str], Mapping[str, str]]) -> CuratedHit | None:
    for answer in candidates:
        if answer.parameters:
            bound = match_template(question, answer.question, answer.parameters,
                                   partial(values, answer.datasource))
            if bound is not None:
                return CuratedHit(answer, 1.0, "template", bound)
    return None


def _stamp(path: Path) -> tuple[object, ...]:
    try:
        st = path.stat()
    except (FileNotFoundError, NotADirectoryError):  # absent, also when a parent is a file
        return (str(path), None)
    return (str(path), st.st_mtime_ns, st.st_size)
