"""How "or" and "and" combine conditions.

- "or" joins the conditions right before and after it into one OR ("loans made in 2023 or 2024",
  "books with more than 300 pages or a price above 20"); "either" only announces it. The "or"
  between values of one column is theirs ("houses or apartments": one IN); "either houses or
  apartments with more than 1 room" does not say whether the rooms count for both, and is
  refused rather than guessed.
- "and" between two conditions that no single row can meet at once — two values of one column
  ("members who borrowed both Fantasy and History books": the loan rows repeat per member) or two
  disjoint ranges of one column ("cities with a member above 60 and a member below 20") — asks for the
  rows of the entity that have both: the pair is left in `Analysis.intersection`, and the rule of
  `intersect.py` runs the query once per condition and intersects the results. "both" makes the
  reading explicit even for a column of the root.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.plan.joins import JoinError, connect
from nl2sql.reasoning.offline.shapes.spec import Col, Cond, Query, Unclear
from nl2sql.reasoning.offline.shapes.state import Analysis
from nl2sql.reasoning.offline.words.text import Token

_RANGE_OPS = {">", ">=", "<", "<="}


def combine(a: Analysis, q: Query, conds: list[Cond]) -> list[Cond]:
    """The conditions with "or" groups merged and an intersection split off (see module)."""
    conds = sorted(_split_values(a, q, conds), key=lambda c: c.pos)
    conds = _or_groups(a, conds)
    pair = _disjoint_pair(a, conds)
    if pair is not None:
        a.intersection = pair
        conds = [c for c in conds if c is not pair[1]]
    return conds


def _or_groups(a: Analysis, conds: list[Cond]) -> list[Cond]:
    tokens = a.question.tokens
    for tok in tokens:
        if tok.low != "or" or tok.index in a.question.scan.taken:
            continue
        inside = [c for c in conds if c.parts and min(c.parts) < tok.index < max(c.parts)]
        if inside and _either(tokens, inside[0]) and any(c.pos > tok.index for c in conds
                                                         if c is not inside[0]):
            # "either houses or apartments with more than 1 room": both, or apartments only?
            raise Unclear(f"could not tell whether what follows '{inside[0].text}' applies to "
                          "each of its values")
        if inside:
            continue  # "houses or apartments": the values' own "or", one IN already
        left = [c for c in conds if 0 <= c.pos < tok.index]
        right = [c for c in conds if c.pos > tok.index]
        if not left or not right:
            continue
        x, y = left[-1], right[0]
        if any(t.low == "and" for t in tokens[x.pos : tok.index]):
            continue  # "… on weekends and in shift B or D": the "or" is inside the second
        merged = Cond(x.target, "or", [x, y], text=f"{x.text} or {y.text}", pos=x.pos)
        conds = [merged if c is x else c for c in conds if c is not y]
        a.ors_done.add(tok.index)
    return conds


def _either(tokens: list[Token], c: Cond) -> bool:
    """Whether "either" opens the values of `c` ("either houses or apartments")."""
    first = min(c.parts)
    return any(t.low == "either" for t in tokens[max(0, first - 2) : first])


def _split_values(a: Analysis, q: Query, conds: list[Cond]) -> list[Cond]:
    """ "a cat and a dog" on rows the root repeats: one condition per value."""
    both = any(t.low == "both" for t in a.question.tokens)
    out = []
    for c in conds:
        joined = c.op == "in" and not c.negated and len(c.parts) == len(c.values) == 2
        if joined and _and_between(a, *c.parts) and (both or _fans_out_to(a, q, c)):
            out += [
                Cond(c.target, "=", [v], text=str(v), pos=p)
                for v, p in zip(c.values, c.parts, strict=True)
            ]
        else:
            out.append(c)
    return out


def _and_between(a: Analysis, i: int, j: int) -> bool:
    words = {t.low for t in a.question.tokens[min(i, j) : max(i, j)]}
    return "and" in words and "or" not in words


def _fans_out_to(a: Analysis, q: Query, c: Cond) -> bool:
    table = c.target.table if isinstance(c.target, Col) else None
    if table is None or table == q.root:
        return False
    try:
        return connect(a.question.idx, q.root, [table]).fans_out
    except JoinError:
        return False


def _disjoint_pair(a: Analysis, conds: list[Cond]) -> tuple[Cond, Cond] | None:
    """Two conditions on one column that no single row meets together, joined by "and"."""
    for i, x in enumerate(conds):
        for y in conds[i + 1 :]:
            if x.target != y.target or x.negated or y.negated:
                continue
            if not _and_between(a, x.pos, y.pos):
                continue
            if _exclusive(x, y):
                return x, y
    return None


def _exclusive(a: Cond, b: Cond) -> bool:
    if a.op == "=" and b.op == "=":
        return a.values != b.values
    if a.op in _RANGE_OPS and b.op in _RANGE_OPS:
        lo = [c.values[0] for c in (a, b) if c.op in (">", ">=")]
        hi = [c.values[0] for c in (a, b) if c.op in ("<", "<=")]
        return len(lo) == 1 and len(hi) == 1 and lo[0] >= hi[0]
    if a.op == "range" and b.op == "range":
        (a0, a1), (b0, b1) = a.values, b.values
        return bool((a1 and b0 and a1 <= b0) or (b1 and a0 and b1 <= a0))
    return False
