"""Template answers from result previews: deterministic, short, numbers formatted.

The answer says what the SQL did, read from the result's plan (`reading.py`), not what the
question hoped for:

- one value: "1,234 loans were made in 2024." when the question reads "how many <X> <verb> …"
  and the plan counted X ("different"/"distinct"/"unique" kept only with DISTINCT); "Ann Lee
  has the highest rating." for "which X has …"; else "The answer is <value>"; a second
  sentence says what was computed when the sentence alone would not ("Counted rows of orders
  joined with customers.");
- a percentage, fraction or ratio of two totals (`quotient.py`): "40% of shops are in Oslo."
  with "%" only when the SQL multiplied by 100, what was divided by what, and "There is no
  ratio: …" when the denominator was zero or empty (the SQL's NULLIF gave NULL);
- several rows (`row_answers.py`): tied top rows, each group's extreme, a compare, a measure
  per category or period, a list of entities — one sentence, never the rows, which the table
  beside the answer shows;
- no rows: "No rows matched.";
- relative dates: the days they became and the reference date ("(2025-06-01 to 2025-06-30,
  as of 2025-06-30)").
Integers get thousands separators, floats two decimals (`row_answers.fmt`).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import replace

from nl2sql.labels import Kind, describe_columns
from nl2sql.plan import PlanModel
from nl2sql.reasoning.base import AnswerSynthesizerResponse, ResultPreview
from nl2sql.reasoning.offline.quotient import quotient, quotient_answer
from nl2sql.reasoning.offline.reading import (
    claims_unsupported,
    counts_subject,
    describe,
    group_top,
    has_distinct,
    measure,
    names_column,
)
from nl2sql.reasoning.offline.row_answers import (
    capital,
    compare_rows,
    fmt,
    group_tops,
    numeric,
    summary,
    ties,
)
from nl2sql.reasoning.offline.words.relative import span_text
from nl2sql.reasoning.offline.words.scan import scan

_AUX = r"(?:are|were|is|was|have|has|had|exist|existed)"
_HOW_MANY = re.compile(rf"^how many\s+(?P<subject>.+?)\s+(?P<aux>{_AUX})\b(?P<rest>.*)$", re.I)
_WHAT_IS = re.compile(r"^(?:what|which)\s+(?:is|was)\s+(?P<subject>the\s+.+)$", re.I)
_WHICH = re.compile(
    r"^(?:which|what|who)(?:\s+[\w'-]+){0,3}?\s+(?P<verb>has|have|had|is|was|are|were)\s+"
    r"(?P<rest>(?:the|a|an)\s.+)$",
    re.I,
)
_SINGULAR = {"have": "has", "are": "is", "were": "was"}
_DISTINCT_WORDS = re.compile(r"\b(?:distinct|different|unique|separate)\s+", re.I)


def synthesize(
    question: str,
    results: list[ResultPreview],
    compare: bool = False,
    reference: dt.date | None = None,
) -> AnswerSynthesizerResponse:
    """One deterministic answer for the question's terminal results (`compare`: a compare group;
    `reference`: the day the question's relative dates were counted from)."""
    if not results:
        return AnswerSynthesizerResponse(answer="No result was produced for the question.")
    parts = [_one(question, _with_labels(r), len(results) > 1, compare) for r in results]
    return AnswerSynthesizerResponse(answer=_as_of("\n".join(parts), question, reference))


def _with_labels(r: ResultPreview) -> ResultPreview:
    """`r` with its columns' labels and roles: as the node read them off the plans, else guessed
    from the names and values alone (`count_books` → "Books")."""
    if r.column_info and [c.name for c in r.column_info] == list(r.columns):
        return r
    kinds: list[Kind] = ["number" if numeric(r, i) else "text" for i in range(len(r.columns))]
    return replace(r, column_info=tuple(describe_columns(list(zip(r.columns, kinds, strict=True)), [])))


def _one(question: str, r: ResultPreview, labelled: bool, compare: bool) -> str:
    prefix = f"{r.label}: " if labelled and r.label else ""
    if r.row_count == 0 or not r.rows:
        return prefix + "No rows matched."
    if r.row_count == 1 and len(r.columns) == 1:
        return prefix + _single(question, r.rows[0][0], r.plan)
    top = group_top(r.plan, list(r.columns))
    if top is not None:
        return prefix + group_tops(r, top)
    tie = ties(r)
    if tie:  # the rest of the ranking is in the table
        return prefix + tie[1]
    return prefix + (compare_rows(r, compare) or summary(r))


def _strip(question: str) -> str:
    return question.strip().rstrip("?.! ")


def _single(question: str, value: object, plan: PlanModel | None) -> str:
    """One value in a sentence, with what was computed when the sentence does not say it."""
    q = _strip(question)
    what_is = _WHAT_IS.match(q)
    divided = quotient(plan)
    if divided is not None:
        subject = what_is.group("subject") if what_is else None
        return quotient_answer(q, value, divided, fmt(value), subject)
    m = measure(plan)
    line = f" {describe(m)[0].upper()}{describe(m)[1:]}." if m else ""
    if value is None and m is not None and m.func != "count":  # SQL's NULL over no values
        return f"There is no value: no matching row has one.{line}"
    how_many = _HOW_MANY.match(q)
    if how_many:
        subject = how_many.group("subject")
        if not has_distinct(plan):
            subject = _DISTINCT_WORDS.sub("", subject)
        if m is not None and m.func == "count" and not counts_subject(m, subject):
            return f"The count is {fmt(value)}.{line}"
        if m is not None and m.func not in ("count", "sum") and not _names_func(q, m.func):
            return f"The answer is {fmt(value)}.{line}"  # "12.5 units were sold" of an AVG
        rest, aux = how_many.group("rest").strip(), how_many.group("aux")
        line = "" if m is None or (m.func == "count" and not m.distinct) else line
        if rest.lower() == "there" and aux.lower() in ("are", "is", "were", "was"):
            return f"There {aux.lower()} {fmt(value)} {subject}.{line}"
        return f"{fmt(value)} {subject} {aux}{(' ' + rest) if rest else ''}.{line}"
    if what_is and _may_echo(what_is.group("subject"), plan):
        subject = what_is.group("subject")
        said = m is None or names_column(m, subject)  # else say which column was read
        return f"{subject[0].upper()}{subject[1:]} is {fmt(value)}.{'' if said else line}"
    which = _WHICH.match(q)
    if which and m is None and _may_echo(which.group("rest"), plan):
        verb = which.group("verb").lower()
        return f"{capital(fmt(value))} {_SINGULAR.get(verb, verb)} {which.group('rest')}."
    return f"The answer is {fmt(value)}.{line}"


def _may_echo(words: str, plan: PlanModel | None) -> bool:
    """Whether the answer may repeat the question's `words`: no "distinct" without DISTINCT,
    no "average" / "total" / "number of" the plan's aggregate does not compute."""
    if plan is not None and _says_distinct(words) and not has_distinct(plan):
        return False
    return not claims_unsupported(words, plan)


def _names_func(text: str, func: str) -> bool:
    """Whether the question asks for the aggregate `func` ("on average", "at most")."""
    words = _FUNC_NAMES.get(func, ())
    return any(re.search(rf"\b{w}\b", text, re.I) for w in words)


_FUNC_NAMES = {"avg": ("average", "mean", "avg"), "min": ("least", "minimum", "min", "lowest", "fewest",
               "smallest"), "max": ("most", "maximum", "max", "highest", "largest", "biggest")}


def _says_distinct(text: str) -> bool:
    return bool(_DISTINCT_WORDS.search(text + " "))


def _as_of(text: str, question: str, reference: dt.date | None) -> str:
    """The first sentence gains the days the question's relative dates became, as of when."""
    if reference is None:
        return text
    resolved = scan(question, reference).resolved
    if not resolved:
        return text
    spans = [(f"{d.text}: " if len(resolved) > 1 else "") + span_text(d) for d in resolved]
    note = f" ({'; '.join(spans)}, as of {reference.isoformat()})"
    first, sep, rest = text.partition("\n")
    body, dot = (first[:-1], ".") if first.endswith(".") else (first, "")
    head, tail = body.split(". ", 1) if ". " in body else (body, "")
    return head + note + (f". {tail}" if tail else "") + dot + sep + rest


