"""Roles of mentions: group-by keys, ranked entities, measures, projections and ordering.

A table used as a group or an entity is represented by its key columns (primary key + label
columns) and shown by its label columns (`book_title`; `given_name`, `family_name`), or by its
primary key when it has no label.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nl2sql.reasoning.offline.catalog.index import FKEdge, SchemaIndex
from nl2sql.reasoning.offline.linking.linker import Linking, Mention
from nl2sql.reasoning.offline.shapes.comparisons import num_cond
from nl2sql.reasoning.offline.shapes.conditions import adjacent_after
from nl2sql.reasoning.offline.shapes.resolve import Resolver
from nl2sql.reasoning.offline.shapes.spec import Agg, Col, Part, Query, Target, Unclear
from nl2sql.reasoning.offline.words import cues as C
from nl2sql.reasoning.offline.words.numeric import NumCue
from nl2sql.reasoning.offline.words.scan import Scan, bare_numbers
from nl2sql.reasoning.offline.words.text import is_past_participle

_TIME_PARTS = {
    "year": "year",
    "yearly": "year",
    "month": "month",
    "monthly": "month",
    "quarter": "quarter",
    "quarterly": "quarter",
    "day": "day",
    "daily": "day",
}
_RESTRICTIVE = {
    "from",
    "in",
    "with",
    "who",
    "that",
    "which",
    "whose",
    "of",
    "at",
    "located",
    "based",
}
MEASURE_WORDS = {"number", "count", "total", "average", "sum", "amount", "mean"}


class Roles:
    def __init__(self, s: Scan, linking: Linking, idx: SchemaIndex, hints: Mapping[str, Any]):
        self.tokens = s.tokens
        self.scan = s
        self.link = linking
        self.idx = idx
        self.mentions = sorted(linking.mentions, key=lambda m: m.start)
        self.used: set[int] = set()  # start index of every mention given a role
        self.notes: list[str] = []
        self.penalty = 0.0
        self.res = Resolver(idx, [])
        for m in self.mentions:
            table = self.res.table(m)
            if table and table not in self.res.context:
                self.res.context.append(table)
        self.mentioned = set(self.res.context)
        for m in self.mentions:  # then the tables of columns only one table has ("pet type")
            top = {e.table for e in m.columns() if e.score >= m.candidates[0].score - 0.15}
            if not self.res.table(m) and len(top) == 1 and next(iter(top)) not in self.res.context:
                self.res.context.append(next(iter(top)))
        self.replace = dict(hints.get("replace_value") or {})
        self.extra: list[Agg] = []  # further aggregates of the same column
        self.quantity = False  # a count cue named a numeric column that holds counts
        self.named: set[int] = set(s.taken)
        spans = [(v.start, v.end) for v in linking.values]
        s.nums = s.nums + bare_numbers(s, spans)

    def _text(self, a: int, b: int) -> str:
        return " ".join(t.text for t in self.tokens[a:b])

    def next_mention(self, i: int, within: int, exclude: Mention | None = None) -> Mention | None:
        """The first unused mention starting within `within` tokens from i."""
        for m in self.mentions:
            if m.start >= i and m.start not in self.used and m is not exclude:
                return m if m.start - i <= within else None
        return None

    def group_target(self, m: Mention) -> Col | str:
        """A column, or a table (grouped by its key and label columns)."""
        table = self.res.table(m)
        try:
            col = self.res.column(m)
        except Unclear:
            if table is None:
                raise
            col = None
        self.used.add(m.start)
        entity = self.referenced(col) if col is not None else None
        if entity is not None and table in (None, entity):
            # "each publisher" / "each region" names a foreign key to a table: group by
            # the rows it references (their key and name)
            return entity
        if col is not None and (table is None or col.table in self.res.context):
            return col
        if table is not None:
            return table
        raise Unclear(f"could not tell what '{m.text}' refers to")

    def referenced(self, col: Col) -> str | None:
        """The table a single-column foreign key references (None for other columns)."""
        for e in self.idx.edges:
            if e.src == col.table and e.src_cols == (col.column,) and e.dst != col.table:
                return e.dst
        return None

    def outputs(self, entity: Col | Part | str) -> tuple[list[Target], list[Target]]:
        """(group keys, shown columns) of a group target."""
        if not isinstance(entity, str):
            return [entity], [entity]
        labels, pk = self.idx.labels[entity], self.idx.pk(entity)
        keys: list[Target] = [Col(entity, c) for c in dict.fromkeys(pk + labels)]
        shown: list[Target] = [Col(entity, c) for c in (labels or pk)]
        if not shown:
            raise Unclear(f"{entity} has no key or name column to group by")
        return keys, shown

    def groups(self, q: Query) -> tuple[list[Target], list[Target]]:
        """Group keys and shown columns from "per / for each / by" cues."""
        keys: list[Target] = []
        shown: list[Target] = []
        for start, end, word in C.group_cues(self.tokens):
            targets = self._group_targets(q, start, end, word)
            for target in targets:
                if isinstance(target, str) and self.res.entity is None:
                    self.res.entity = target  # "each author": its id and name are asked
                k, o = self.outputs(target)
                keys += [x for x in k if x not in keys]
                shown += [x for x in o if x not in shown]
        return keys, shown

    def _group_targets(self, q: Query, start: int, end: int, word: str) -> list[Col | Part | str]:
        nxt = [t for t in self.tokens[end : end + 2] if t.low not in ("the", "a")]
        if nxt and nxt[0].low.rstrip("s") in _TIME_PARTS and self.idx.date_columns(q.root):
            part = _TIME_PARTS[nxt[0].low.rstrip("s")]
            for mention in self.mentions:
                if mention.start == nxt[0].index:
                    self.used.add(mention.start)
            return [Part(part, Col(q.root, self.idx.date_columns(q.root)[0]))]
        m = adjacent_after(self.mentions, self.tokens, end, self.used, within=2)
        if m is None and word == "each":
            raise Unclear(
                f"could not tell what '{self._text(start, min(end + 2, len(self.tokens)))}' groups by"
            )
        if m is None or (word == "by" and not self._by_groups(start, m)):
            return []
        m = self._head_of_compound(m)
        targets: list[Col | Part | str] = [self.group_target(m)]
        while m.end < len(self.tokens) and self.tokens[m.end].low == "and":
            following = adjacent_after(self.mentions, self.tokens, m.end + 1, self.used, within=1)
            if following is None:
                break
            m = following
            targets.append(self.group_target(m))
        return targets

    def _head_of_compound(self, m: Mention) -> Mention:
        """In "per copy branch" the last noun is the group; earlier ones only choose the join path."""
        while True:
            nxt = next(
                (x for x in self.mentions if x.start == m.end and x.start not in self.used), None
            )
            if nxt is None or not self.res.table(m):
                return m
            self.used.add(m.start)
            m = nxt

    def _by_groups(self, start: int, m: Mention) -> bool:
        """Whether "by X" groups: not when X is a ranking measure or a relation ("made by members")."""
        if any(t.low in MEASURE_WORDS for t in self.tokens[start + 1 : start + 3]):
            return False
        if not self.res.table(m):
            return True
        prev = self.tokens[start - 1].low if start > 0 else ""
        after = self.tokens[m.end].low if m.end < len(self.tokens) else ""
        # "placed by customers", "books by authors from Japan": a relation, not a grouping
        return not (prev.endswith("ed") or is_past_participle(prev) or after in _RESTRICTIVE)

    def projections(self, default: list[Target]) -> list[Target]:
        """Columns the question asks to see (unused column mentions), else `default`."""
        shown: list[Target] = []
        for m in self.mentions:
            if m.start in self.used or self.res.table(m) or not m.columns():
                continue
            col = self.res.column(m)
            assert col is not None  # a mention with columns names one (or raises Unclear)
            self.used.add(m.start)
            if col not in shown:
                shown.append(col)
        return shown or default

    def having_subquery(self, q: Query, measure: Agg, having: list[tuple[NumCue, Agg]]) -> None:
        """COUNT of entities WHERE key IN (SELECT fk FROM other GROUP BY fk HAVING COUNT(*) op n),
        or HAVING <metric> op n ("how many outlets have turnover above 100")."""
        if len(having) != 1 or measure.col is not None:
            raise Unclear("could not combine a count with several per-row count conditions")
        cue, compared = having[0]
        table = compared.table
        edge = self._reference(table, q.root)
        key = self.idx.pk(q.root)
        if edge is None and compared.metric and len(key) == 1:
            # a metric over a table further away: the entities' own keys, grouped through the joins
            own = Col(q.root, key[0])
            sub = Query(
                root=table, select=[(own, None)], group=[own], having=[num_cond(compared, cue)]
            )
            q.in_subquery = (own, sub)
            return
        # "chefs who cooked at more than 2 festivals": the festivals of a chef are the rows of a
        # table referencing both (appearances), counted per chef
        via = None if edge is not None else self._linking_table(table, q.root)
        if via is not None:
            edge = self._reference(via, q.root)
        if edge is None:
            raise Unclear(f"no foreign key links {table} to {q.root} for '{cue.text}'")
        fk = Col(edge.src, edge.src_cols[0])
        sub = Query(root=edge.src, select=[(fk, None)], group=[fk], having=[num_cond(compared, cue)])
        q.in_subquery = (Col(q.root, edge.dst_cols[0]), sub)

    def _reference(self, src: str, dst: str) -> FKEdge | None:
        """The one-column foreign key from `src` to `dst`, declared first, else inferred."""
        edges = [e for e in self.idx.edges + self.idx.inferred if e.src == src and e.dst == dst]
        return next((e for e in edges if len(e.src_cols) == 1), None)

    def _linking_table(self, table: str, root: str) -> str | None:
        """The one table (not `table` or `root`) that references both; None when none or several."""
        found = {
            e.src
            for e in self.idx.edges + self.idx.inferred
            if e.dst == root and e.src not in (table, root) and self._reference(e.src, table)
        }
        return next(iter(found)) if len(found) == 1 else None

    def _unknown_between(self, a: int, b: int) -> str | None:
        """A message naming the first unexplained word in tokens[a:b], if any."""
        unknown = {t.index for t in self.link.unexplained}
        for tok in self.tokens[a:b]:
            if tok.index in unknown:
                return f"'{tok.text}' matches no table or column"
        return None

    def nothing_understood(self) -> str:
        words = [t.text for t in self.link.unexplained]
        if words:
            return "could not tell what to list: no table matches " + ", ".join(
                f"'{w}'" for w in words
            )
        return "could not tell which table the question is about"
