"""Choosing one table or column for a mention, given the tables the question is about.

A mention's candidates come strongest first. Among the strongest, a candidate in a context table
(the plan's root, then tables the question names) wins; then the one fewest FK hops from the
context; a tie that remains is an ambiguity the planner refuses, naming the options.
"""

from __future__ import annotations

from collections import deque

from nl2sql.reasoning.offline.index import Element, SchemaIndex
from nl2sql.reasoning.offline.linking import Mention
from nl2sql.reasoning.offline.spec import Col, Unclear

_NEAR = 0.15  # candidates this close to the best score compete with it ("age" → pet_age of pets)


class Resolver:
    def __init__(self, idx: SchemaIndex, context: list[str]):
        self.idx = idx
        self.context = list(context)
        self._dist: dict[str, dict[str, int]] = {}

    def add_context(self, table: str) -> None:
        if table not in self.context:
            self.context.insert(0, table)

    def hops(self, a: str, b: str) -> int:
        """FK hops between two tables (99 when unconnected)."""
        if a not in self._dist:
            self._dist[a] = _bfs(self.idx, a)
        return self._dist[a].get(b, 99)

    def table(self, mention: Mention) -> str | None:
        """The table a mention names, when it names one at least as strongly as any column."""
        tables = mention.tables()
        if not tables:
            return None
        best_col = max((e.score for e in mention.columns()), default=0.0)
        return tables[0].table if tables[0].score >= best_col else None

    def column(self, mention: Mention, kinds: tuple[str, ...] | None = None) -> Col | None:
        """The column a mention names (of one of `kinds`), or None; Unclear when it is ambiguous."""
        cands = [
            e
            for e in mention.columns()
            if kinds is None or self.idx.kind(e.table, e.column) in kinds
        ]
        if not cands:
            return None
        best = self._best(cands)
        if len(best) > 1:
            options = ", ".join(e.ref for e in best[:4])
            raise Unclear(f"'{mention.text}' could mean {options}; name the table")
        return Col(best[0].table, best[0].column)

    def _best(self, cands: list[Element]) -> list[Element]:
        top = cands[0].score
        near = [e for e in cands if e.score >= top - _NEAR]
        in_ctx = [e for e in near if e.table in self.context]
        if in_ctx:
            first = min(self.context.index(e.table) for e in in_ctx)
            chosen = [e for e in in_ctx if self.context.index(e.table) == first]
            return [max(chosen, key=lambda e: e.score)]
        exact = [e for e in near if e.score == top]
        if len({e.table for e in exact}) == 1:
            return exact[:1]
        if not self.context:
            return exact
        dist = {e.ref: min(self.hops(c, e.table) for c in self.context) for e in exact}
        low = min(dist.values())
        return [e for e in exact if dist[e.ref] == low]

    def nearest(
        self, options: list[tuple[str, str, str]]
    ) -> tuple[list[tuple[str, str, str]], bool]:
        """Value options ordered by closeness to the context; True when the first is a tie."""

        def key(o: tuple[str, str, str]) -> tuple:
            ctx = self.context.index(o[0]) if o[0] in self.context else len(self.context)
            far = min((self.hops(c, o[0]) for c in self.context), default=0)
            return (ctx, far, self.idx.order.get(o[0], 0))

        ranked = sorted(options, key=key)
        tie = len(ranked) > 1 and key(ranked[0])[:2] == key(ranked[1])[:2]
        return ranked, tie


def _bfs(idx: SchemaIndex, start: str) -> dict[str, int]:
    dist = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for e in idx.edges:
            for a, b in ((e.src, e.dst), (e.dst, e.src)):
                if a == node and b not in dist:
                    dist[b] = dist[node] + 1
                    queue.append(b)
    return dist
