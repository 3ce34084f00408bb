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
- a ranking whose top rows tie: "2 clients tie for the highest total: A and B (12).";
- a compare result: the row with the largest difference, the compared columns named by their
  labels ("Of 4 regions, South differs most: Orders 40 vs Support tickets 95 (difference 55).");
- a measure per category or period: its top and bottom rows ("South has the most orders (95)
  and North the fewest (40), of 4 regions."), or the leader of a ranking;
- a list of entities: how many matched ("18 customers match.") — never the rows, which the
  table beside the answer shows;
- no rows: "No rows matched.";
- relative dates: the days they became and the reference date ("(2025-06-01 to 2025-06-30,
  as of 2025-06-30)").
Integers get thousands separators, floats two decimals.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import replace
from decimal import Decimal
from typing import Any

from nl2sql.inflection import plural_phrase, singular_phrase
from nl2sql.labels import Kind, describe_columns, humanize, table_noun
from nl2sql.plan import ColumnRef, PlanModel
from nl2sql.reasoning.base import AnswerSynthesizerResponse, ResultPreview
from nl2sql.reasoning.offline.quotient import quotient, quotient_answer
from nl2sql.reasoning.offline.reading import (
    GroupTop,
    claims_unsupported,
    counts_subject,
    describe,
    group_top,
    has_distinct,
    measure,
    names_column,
    ranking_key,
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
_SHOWN_ROWS = 5


def fmt(value: object) -> str:
    """12345 -> '12,345'; 3.14159 -> '3.14'; dates ISO; None -> 'none'."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, (float, Decimal)):
        f = float(value)
        return f"{int(f):,}" if f.is_integer() and abs(f) < 1e15 else f"{f:,.2f}"
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return str(value)


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
    kinds: list[Kind] = ["number" if _numeric(r, i) else "text" for i in range(len(r.columns))]
    return replace(r, column_info=tuple(describe_columns(list(zip(r.columns, kinds, strict=True)), [])))


def _one(question: str, r: ResultPreview, labelled: bool, compare: bool) -> str:
    prefix = f"{r.label}: " if labelled and r.label else ""
    if r.row_count == 0 or not r.rows:
        return prefix + "No rows matched."
    if r.row_count == 1 and len(r.columns) == 1:
        return prefix + _single(question, r.rows[0][0], r.plan)
    top = group_top(r.plan, list(r.columns))
    if top is not None:
        return prefix + _group_tops(r, top)
    tie = _ties(r)
    if tie:  # the rest of the ranking is in the table
        return prefix + tie[1]
    return prefix + (_compare(r, compare) or _table(r))


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
        return f"{_capital(fmt(value))} {_SINGULAR.get(verb, verb)} {which.group('rest')}."
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


def _capital(text: str) -> str:
    """A sentence starts with a capital letter, even when the stored value does not."""
    return text[:1].upper() + text[1:]


def _ties(r: ResultPreview) -> tuple[int, str] | None:
    """(how many, "3 stores tie for the highest revenue: A, B and C (500).") when a ranking's
    top rows tie on its order key."""
    key = ranking_key(r.plan, r.columns)
    if key is None or len(r.rows) < 2:
        return None
    index, direction, name = key
    if index is None:
        tied = len(r.rows) if r.plan is not None and not r.plan.order_by else 0
        value = ""
    else:
        top = r.rows[0][index]
        tied = next((i for i, row in enumerate(r.rows) if row[index] != top), len(r.rows))
        value = f" ({fmt(top)})"
    if tied < 2:
        return None
    labels = [
        ", ".join(fmt(v) for i, v in enumerate(row) if i != index) for row in r.rows[:tied]
    ]
    shown = labels[:_SHOWN_ROWS] + (["…"] if tied > _SHOWN_ROWS else [])
    names = ", ".join(shown[:-1]) + " and " + shown[-1]
    noun = _noun(r, [i for i in range(len(r.columns)) if i != index])
    maybe_more = r.plan is not None and r.plan.limit == tied or r.truncated
    lead = f"{'At least ' if maybe_more else ''}{tied:,} {noun}"
    return tied, f"{lead} tie for the {_best(r, index, direction, name)}: {names}{value}."


def _group_tops(r: ResultPreview, top: GroupTop) -> str:
    """ "Rows with the highest salary in each of 3 departments; ties are kept: Finance has 2." """
    word = "highest" if top.func == "max" else "lowest"
    label = (r.column_label(top.measure) if top.measure is not None else humanize(top.name)).lower()
    if not top.groups:
        return f"Rows with the {word} {label} in each group: {_count(r)}."
    counts: dict[tuple[object, ...], int] = {}
    for row in r.rows:
        key = tuple(row[i] for i in top.groups)
        counts[key] = counts.get(key, 0) + 1
    lead = f"Rows with the {word} {label} in each of {len(counts):,} {_noun(r, list(top.groups))}"
    tied = [(k, n) for k, n in counts.items() if n > 1]
    if not tied:
        return f"{lead}."
    said = [f"{', '.join(fmt(v) for v in k)} has {n}" for k, n in tied[:_SHOWN_ROWS]]
    more = ", …" if len(tied) > _SHOWN_ROWS else ""
    return f"{lead}; ties are kept: {', '.join(said)}{more}."


def _best(r: ResultPreview, index: int | None, direction: str, name: str) -> str:
    """"most orders" for a ranking by a count, "highest revenue" for any other key."""
    info = r.column_info[index] if index is not None and index < len(r.column_info) else None
    if info is not None and info.aggregate == "count" and info.name == r.columns[index or 0]:
        return f"{'most' if direction == 'desc' else 'fewest'} {info.label.lower()}"
    return f"{'highest' if direction == 'desc' else 'lowest'} {humanize(name).lower()}"


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


def _numeric(r: ResultPreview, i: int) -> bool:
    values = [row[i] for row in r.rows if row[i] is not None]
    return bool(values) and all(
        isinstance(v, (int, float, Decimal)) and not isinstance(v, bool) for v in values
    )


def _roles(r: ResultPreview) -> list[str]:
    return [r.column_role(i) for i in range(len(r.columns))]


def _compare(r: ResultPreview, compare: bool) -> str | None:
    """A side-by-side result: the row with the largest absolute difference, named by labels."""
    names = [c.lower() for c in r.columns]
    diff = next((i for i, c in enumerate(names) if "diff" in c and _numeric(r, i)), None)
    roles = _roles(r)
    nums = [i for i, c in enumerate(names) if _numeric(r, i) and i != diff and roles[i] != "key"]
    keys = [i for i in range(len(names)) if not _numeric(r, i)]
    if (diff is None and not compare) or len(nums) < 2 or not keys:
        return None
    a, b = nums[0], nums[1]

    def gap(row: tuple[Any, ...]) -> float:
        if diff is not None:
            return float(row[diff] or 0)
        return float(row[b] or 0) - float(row[a] or 0)

    row = max(r.rows, key=lambda row: (abs(gap(row)), str(row[keys[0]])))
    label = ", ".join(fmt(row[k]) for k in keys)
    of = f"Of {_count_of(r, keys)}, " if r.row_count > 1 else ""
    return (
        f"{of}{_capital(label) if not of else label} differs most: {r.column_label(a)} {fmt(row[a])} vs "
        f"{r.column_label(b)} {fmt(row[b])} (difference {fmt(gap(row))})."
    )


def _count_of(r: ResultPreview, dims: list[int]) -> str:
    """"4 regions", "12 months", "1,000+ customers"."""
    more = "+" if r.truncated else ""
    return f"{r.row_count:,}{more} {_noun(r, dims)}"


def _noun(r: ResultPreview, dims: list[int]) -> str:
    """"regions": the plural of the one dimension's label ("region name" → "regions"), else of
    the plan's table."""
    words = r.column_label(dims[0]).lower().split() if len(dims) == 1 else []
    if len(words) > 1 and words[-1] in ("name", "title", "label", "id", "code"):
        words = words[:-1]
    return plural_phrase(" ".join(words)) if words else _table_noun(r, dims[0] if dims else None)


def _table(r: ResultPreview) -> str:
    """Several rows: what they show in one sentence, never the rows themselves (the table is
    shown beside the answer)."""
    roles = _roles(r)
    measures = [i for i, role in enumerate(roles) if role == "measure"]
    dims = [i for i, role in enumerate(roles) if role in ("category", "time")]
    if not measures:
        return _listed(r)
    if not dims:
        dims = [i for i, role in enumerate(roles) if role in ("text", "key")][:1]
    if not dims:
        return f"{_count(r)}."
    return _spread(r, dims, measures[0])


def _listed(r: ResultPreview) -> str:
    """A list of entities: how many matched, named by the table the listed column is read from
    ("18 customers match"; painters grouped over a join from exhibitions are painters)."""
    noun = _table_noun(r, 0)
    if r.row_count == 1:
        noun = singular_phrase(noun)
        return f"1 {noun} matches."
    if r.truncated:
        return f"At least {r.row_count:,} {noun} match; the table shows the first {r.row_count:,}."
    return f"{r.row_count:,} {noun} match."


def _table_noun(r: ResultPreview, column: int | None = None) -> str:
    """"customers" for the table `column` was read from (`Customer`, `tblCustomers`), or for
    the plan's first table; "rows" without a plan."""
    if r.plan is None or not r.plan.tables:
        return "rows"
    name = r.plan.tables[0].name
    if column is not None and column < len(r.plan.select):
        expr = r.plan.select[column].expr
        if isinstance(expr, ColumnRef) and expr.table is not None:
            name = r.plan.alias_map().get(expr.table, name)
    return plural_phrase(humanize(table_noun(name)).lower())


def _spread(r: ResultPreview, dims: list[int], m: int) -> str:
    """A measure per category or period: the top and the bottom row, in one sentence."""
    info = r.column_info[m] if m < len(r.column_info) else None
    counted = info is not None and info.aggregate == "count"
    label = r.column_label(m)
    noun = label[:1].lower() + label[1:] if not label[:2].isupper() else label
    if counted and noun.endswith(" count"):
        noun = plural_phrase(noun[: -len(" count")])  # a count of rows reads "the most <rows>"
    most, least = ("most", "fewest") if counted else ("highest", "lowest")

    roles = _roles(r)
    text = all(roles[d] != "time" for d in dims)

    def who(row: tuple[Any, ...]) -> str:
        # "month 11" for a numbered period, "Ann Lee" for a first and a last name
        parts = [f"{r.column_label(d).lower()} {row[d]}" if roles[d] == "time" and isinstance(row[d], int)
                 else fmt(row[d]) for d in dims]
        return (" " if text else ", ").join(parts)

    rows = [row for row in r.rows if row[m] is not None]
    if not rows:
        return f"{_count_of(r, dims)}; no {noun} values."
    key = ranking_key(r.plan, list(r.columns))
    top = max(rows, key=lambda row: float(row[m]))
    if key is not None and key[0] == m:
        first = rows[0]
        best = most if key[1] == "desc" else least
        listed = f" of the {_count_of(r, dims)} listed" if r.row_count > 1 else ""
        return f"{_capital(who(first))} has the {best} {noun} ({fmt(first[m])}){listed}."
    if r.row_count == 1:
        return f"{_capital(who(top))}: {noun} {fmt(top[m])}."
    if r.row_count > len(r.rows):
        return f"The table shows {noun} for {_count_of(r, dims)}."
    low = min(rows, key=lambda row: float(row[m]))
    if float(top[m]) == float(low[m]):
        return f"All {_count_of(r, dims)} have {fmt(top[m])} {noun}." if counted else \
            f"{_capital(label)} is {fmt(top[m])} for all {_count_of(r, dims)}."
    highs = [who(row) for row in rows if float(row[m]) == float(top[m])]
    lows = [who(row) for row in rows if float(row[m]) == float(low[m])]
    verb = "has" if len(highs) == 1 else "have"
    return (f"{_capital(_names(highs))} {verb} the {most} {noun} ({fmt(top[m])}) and {_names(lows)} "
            f"the {least} ({fmt(low[m])}), of {_count_of(r, dims)}.")


def _names(names: list[str]) -> str:
    """"A", "A and B", "A, B and C", "A, B and 2 others"."""
    if len(names) > 3:
        return f"{', '.join(names[:2])} and {len(names) - 2} others"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _count(r: ResultPreview) -> str:
    more = " (truncated)" if r.truncated else ""
    return f"{r.row_count:,} row{'s' if r.row_count != 1 else ''}{more}"
