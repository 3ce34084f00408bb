"""How "or" and "and" combine conditions.

- "or" joins the conditions right before and after it into one OR ("loans made in 2023 or 2024",
  "books with more than 300 pages or a price above 20"); "either" only announces it.
- "and" between two conditions that no single row can meet at once — two values of one column
  ("members who borrowed both Fantasy and History books": the loan rows repeat per member) or two
  disjoint ranges of one column ("cities with a member above 60 and a member below 20") — asks for the
  rows of the entity that have both: the query is run once per condition and the results are
  intersected (INTERSECT). "both" makes the reading explicit even for a column of the root.
"""

from __future__ import annotations

import copy

from nl2sql.reasoning.offline.plan.joins import JoinError, connect
from nl2sql.reasoning.offline.shapes.negation import Negation
from nl2sql.reasoning.offline.shapes.spec import Agg, Col, Cond, Query, Unclear
from nl2sql.reasoning.offline.words.text import Token

_RANGE_OPS = {">", ">=", "<", "<="}


def _only_function_words(tokens: list[Token]) -> bool:
    return all(
        t.kind == "punct" or t.low in ("or", "the", "a", "an", "in", "from", "of", "is", "are")
        for t in tokens
    )


class Combination(Negation):
    """OR groups and AND-intersections of a question's conditions."""

    ors_done: set[int]  # "or" tokens a merged condition took (set by `Analyzer.run`)
    intersection: tuple[Cond, Cond] | None  # two conditions no single row meets at once

    def combine(self, q: Query, conds: list[Cond]) -> list[Cond]:
        """The conditions with "or" groups merged and an intersection split off (see module)."""
        conds = sorted(self._split_values(q, conds), key=lambda c: c.pos)
        conds = self._or_groups(conds)
        pair = self._disjoint_pair(conds)
        if pair is not None:
            self.intersection = pair
            conds = [c for c in conds if c is not pair[1]]
        return conds

    def _or_groups(self, conds: list[Cond]) -> list[Cond]:
        for tok in self.tokens:
            if tok.low != "or" or tok.index in self.scan.taken:
                continue
            left = [c for c in conds if 0 <= c.pos < tok.index]
            right = [c for c in conds if c.pos > tok.index]
            if not left or not right:
                continue
            a, b = left[-1], right[0]
            if any(t.low == "and" for t in self.tokens[a.pos : tok.index]):
                continue  # "… on weekends and in shift B or D": the "or" is inside the second
            merged = Cond(a.target, "or", [a, b], text=f"{a.text} or {b.text}", pos=a.pos)
            conds = [merged if c is a else c for c in conds if c is not b]
            self.ors_done.add(tok.index)
        return conds

    def _split_values(self, q: Query, conds: list[Cond]) -> list[Cond]:
        """ "a cat and a dog" on rows the root repeats: one condition per value."""
        both = any(t.low == "both" for t in self.tokens)
        out = []
        for c in conds:
            joined = c.op == "in" and not c.negated and len(c.parts) == len(c.values) == 2
            if joined and self._and_between(*c.parts) and (both or self._fans_out_to(q, c)):
                out += [
                    Cond(c.target, "=", [v], text=str(v), pos=p)
                    for v, p in zip(c.values, c.parts, strict=True)
                ]
            else:
                out.append(c)
        return out

    def _and_between(self, a: int, b: int) -> bool:
        words = {t.low for t in self.tokens[min(a, b) : max(a, b)]}
        return "and" in words and "or" not in words

    def _fans_out_to(self, q: Query, c: Cond) -> bool:
        table = c.target.table if isinstance(c.target, Col) else None
        if table is None or table == q.root:
            return False
        try:
            return connect(self.idx, q.root, [table]).fans_out
        except JoinError:
            return False

    def _disjoint_pair(self, conds: list[Cond]) -> tuple[Cond, Cond] | None:
        """Two conditions on one column that no single row meets together, joined by "and"."""
        for i, a in enumerate(conds):
            for b in conds[i + 1 :]:
                if a.target != b.target or a.negated or b.negated:
                    continue
                if not self._and_between(a.pos, b.pos):
                    continue
                if _exclusive(a, b):
                    return a, b
        return None

    def check_alternatives(self) -> None:
        """Refuse "or" except between values of one column ("Fantasy or History")."""
        for tok in self.tokens:
            if tok.low != "or" or tok.index in self.scan.taken:
                continue
            if tok.index in getattr(self, "ors_done", set()):
                continue
            left = [v for v in self.link.values if v.end <= tok.index]
            right = [v for v in self.link.values if v.start > tok.index]
            ok = left and right and _only_function_words(self.tokens[left[-1].end : right[0].start])
            same = ok and {o[:2] for o in left[-1].options} & {o[:2] for o in right[0].options}
            if not same:
                raise Unclear(
                    "'or' between different conditions is not supported (only between values of one column)"
                )

    def intersect(self, q: Query) -> None:
        """Run q once per condition of the split pair and intersect the results."""
        assert self.intersection is not None  # `Analyzer.run` calls this only after a split
        left, right = self.intersection
        if any(isinstance(t, Agg) for t, _ in q.select) or q.group:
            raise Unclear(
                f"'{left.text}' and '{right.text}' need rows having both; "
                "counting or aggregating such rows is not supported"
            )
        other = copy.deepcopy(q)
        position = q.where.index(left)
        other.where[position] = right
        other.order, other.limit = [], None
        q.set_op = ("intersect", other)
        self.notes.append(f"rows with '{left.text}' intersected with rows with '{right.text}'")


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
