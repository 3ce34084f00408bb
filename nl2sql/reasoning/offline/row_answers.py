"""The answer over several rows, in one sentence, and the number formatting every answer uses.

Never the rows themselves (the table is shown beside the answer):

- a ranking whose top rows tie: "2 clients tie for the highest total: A and B (12).";
- the rows holding each group's extreme: "Rows with the highest salary in each of 3
  departments; ties are kept: Finance has 2.";
- a compare result: the row with the largest difference, the compared columns named by their
  labels ("Of 4 regions, South differs most: Orders 40 vs Support tickets 95 (difference 55).");
- a measure per category or period: its top and bottom rows ("South has the most orders (95)
  and North the fewest (40), of 4 regions."), or the leader of a ranking;
- a list of entities: how many matched ("18 customers match.").
Integers get thousands separators, floats two decimals (`fmt`).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from nl2sql.inflection import plural_phrase, singular_phrase
from nl2sql.labels import humanize, table_noun
from nl2sql.plan import ColumnRef
from nl2sql.reasoning.base import ResultPreview
from nl2sql.reasoning.offline.reading import GroupTop, ranking_key

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


def capital(text: str) -> str:
    """A sentence starts with a capital letter, even when the stored value does not."""
    return text[:1].upper() + text[1:]


def ties(r: ResultPreview) -> tuple[int, str] | None:
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
    noun = rows_noun(r, [i for i in range(len(r.columns)) if i != index])
    maybe_more = r.plan is not None and r.plan.limit == tied or r.truncated
    lead = f"{'At least ' if maybe_more else ''}{tied:,} {noun}"
    return tied, f"{lead} tie for the {_best(r, index, direction, name)}: {names}{value}."


def group_tops(r: ResultPreview, top: GroupTop) -> str:
    """ "Rows with the highest salary in each of 3 departments; ties are kept: Finance has 2." """
    word = "highest" if top.func == "max" else "lowest"
    label = (r.column_label(top.measure) if top.measure is not None else humanize(top.name)).lower()
    if not top.groups:
        return f"Rows with the {word} {label} in each group: {count_rows(r)}."
    counts: dict[tuple[object, ...], int] = {}
    for row in r.rows:
        key = tuple(row[i] for i in top.groups)
        counts[key] = counts.get(key, 0) + 1
    lead = f"Rows with the {word} {label} in each of {len(counts):,} {rows_noun(r, list(top.groups))}"
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


def numeric(r: ResultPreview, i: int) -> bool:
    values = [row[i] for row in r.rows if row[i] is not None]
    return bool(values) and all(
        isinstance(v, (int, float, Decimal)) and not isinstance(v, bool) for v in values
    )


def _roles(r: ResultPreview) -> list[str]:
    return [r.column_role(i) for i in range(len(r.columns))]


def compare_rows(r: ResultPreview, compare: bool) -> str | None:
    """A side-by-side result: the row with the largest absolute difference, named by labels."""
    names = [c.lower() for c in r.columns]
    diff = next((i for i, c in enumerate(names) if "diff" in c and numeric(r, i)), None)
    roles = _roles(r)
    nums = [i for i, c in enumerate(names) if numeric(r, i) and i != diff and roles[i] != "key"]
    keys = [i for i in range(len(names)) if not numeric(r, i)]
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
        f"{of}{capital(label) if not of else label} differs most: {r.column_label(a)} {fmt(row[a])} vs "
        f"{r.column_label(b)} {fmt(row[b])} (difference {fmt(gap(row))})."
    )


def _count_of(r: ResultPreview, dims: list[int]) -> str:
    """"4 regions", "12 months", "1,000+ customers"."""
    more = "+" if r.truncated else ""
    return f"{r.row_count:,}{more} {rows_noun(r, dims)}"


def rows_noun(r: ResultPreview, dims: list[int]) -> str:
    """"regions": the plural of the one dimension's label ("region name" → "regions"), else of
    the plan's table."""
    words = r.column_label(dims[0]).lower().split() if len(dims) == 1 else []
    if len(words) > 1 and words[-1] in ("name", "title", "label", "id", "code"):
        words = words[:-1]
    return plural_phrase(" ".join(words)) if words else _table_noun(r, dims[0] if dims else None)


def summary(r: ResultPreview) -> str:
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
        return f"{count_rows(r)}."
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
        return f"{capital(who(first))} has the {best} {noun} ({fmt(first[m])}){listed}."
    if r.row_count == 1:
        return f"{capital(who(top))}: {noun} {fmt(top[m])}."
    if r.row_count > len(r.rows):
        return f"The table shows {noun} for {_count_of(r, dims)}."
    low = min(rows, key=lambda row: float(row[m]))
    if float(top[m]) == float(low[m]):
        return f"All {_count_of(r, dims)} have {fmt(top[m])} {noun}." if counted else \
            f"{capital(label)} is {fmt(top[m])} for all {_count_of(r, dims)}."
    highs = [who(row) for row in rows if float(row[m]) == float(top[m])]
    lows = [who(row) for row in rows if float(row[m]) == float(low[m])]
    verb = "has" if len(highs) == 1 else "have"
    return (f"{capital(_names(highs))} {verb} the {most} {noun} ({fmt(top[m])}) and {_names(lows)} "
            f"the {least} ({fmt(low[m])}), of {_count_of(r, dims)}.")


def _names(names: list[str]) -> str:
    """"A", "A and B", "A, B and C", "A, B and 2 others"."""
    if len(names) > 3:
        return f"{', '.join(names[:2])} and {len(names) - 2} others"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def count_rows(r: ResultPreview) -> str:
    more = " (truncated)" if r.truncated else ""
    return f"{r.row_count:,} row{'s' if r.row_count != 1 else ''}{more}"
