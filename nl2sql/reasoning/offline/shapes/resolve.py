"""Choosing one table or column for a mention, given the tables the question is about.

A mention's candidates come strongest first. Among the strongest, a candidate in a context table
(the plan's root, then tables the question names) wins; then the one fewest FK hops from the
context; a tie that remains is an ambiguity the planner refuses, naming the options.
"""

from __future__ import annotations

from collections import deque

from nl2sql.errors import Refusal, RefusalCode
from nl2sql.reasoning.offline.catalog.index import Element, SchemaIndex
from nl2sql.reasoning.offline.catalog.segments import abbreviates
from nl2sql.reasoning.offline.linking.linker import Mention
from nl2sql.reasoning.offline.shapes.spec import Col, Unclear
from nl2sql.reasoning.offline.words.lexicon import MEASURE_DIMENSIONS
from nl2sql.reasoning.offline.words.text import canon, parts_of_speech
from nl2sql.reasoning.offline.words.units import dimension

_GENERIC_WORDS = {canon(w) for w in ("id", "ids", "name", "names")}
_ID = canon("id")
_NEAR = (
    0.15  # candidates this close to the best score compete with it ("price" → list_price of items)
)


class Resolver:
    def __init__(self, idx: SchemaIndex, context: list[str]):
        self.idx = idx
        self.context = list(context)
        self.entity: str | None = None  # the table whose rows the question lists or groups by
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

    def column(
        self, mention: Mention, kinds: tuple[str, ...] | None = None, focus: str | None = None
    ) -> Col | None:
        """The column a mention names (of one of `kinds`), or None; Unclear when it is ambiguous.
        `focus` is the table the words are about locally ("a dog that is age 3": the dog's)."""
        cands = [
            e
            for e in mention.columns()
            if kinds is None or self.idx.kind(e.table, _name(e)) in kinds
        ]
        if not cands:
            return None
        own = self._own_generic(mention, cands)
        if own is not None:
            return own
        best = self._best(cands, focus)
        if len(best) > 1:
            refs = [e.ref for e in best[:4]]
            raise Unclear(
                f"'{mention.text}' could mean {', '.join(refs)}; name the table",
                Refusal(code=RefusalCode.AMBIGUOUS_TERM, words=[mention.text], means=refs),
            )
        return Col(best[0].table, _name(best[0]))

    def _own_generic(self, mention: Mention, cands: list[Element]) -> Col | None:
        """ "the names and ids of all nations": a bare "id" / "name" belongs to the entity the
        question is about (the first context table) when that table has such a column."""
        words = {canon(w) for w in mention.text.split()}
        entity = self.entity or (self.context[0] if self.context else None)
        if entity is None or not words <= _GENERIC_WORDS:
            return None
        own = [e for e in cands if e.table == entity]
        if own:
            return Col(own[0].table, _name(own[0]))
        if any(e.score >= 1.0 for e in cands):
            return None  # a column called exactly so elsewhere ("the names of the members who …")
        # "the name of the suppliers": the entity's own label, not another table's "country name"
        fallback = self.idx.pk(entity) if _ID in words else self.idx.labels.get(entity, [])
        return Col(entity, fallback[0]) if len(fallback) == 1 else None

    def _best(self, cands: list[Element], focus: str | None = None) -> list[Element]:
        top = cands[0].score
        near = [e for e in cands if e.score >= top - _NEAR - 1e-9]
        local = [e for e in near if e.table == focus]
        if local:
            return local[:1]
        in_ctx = [e for e in near if e.table in self.context]
        if in_ctx:
            first = min(self.context.index(e.table) for e in in_ctx)
            chosen = [e for e in in_ctx if self.context.index(e.table) == first]
            return [max(chosen, key=lambda e: e.score)]
        exact = [e for e in near if e.score == top]
        if len({e.table for e in exact}) == 1:
            return exact[:1]
        if not self.context or all(e.form == "modifier" for e in exact):
            return exact  # a noun only modifying columns of several tables: no nearest guess
        dist = {e.ref: min(self.hops(c, e.table) for c in self.context) for e in exact}
        low = min(dist.values())
        return [e for e in exact if dist[e.ref] == low]

    def measure_column(self, stems: tuple[str, ...], tables: list[str]) -> Col | None:
        """The numeric column a measure word stands for ("older" -> an age column), searched in
        `tables`, then in the context; None when no table has exactly one such column."""
        near = list(dict.fromkeys(list(tables) + self.context))
        # then the tables they reference ("goalkeepers who are taller": the goalkeeper's person row)
        near += [e.dst for e in sorted(self.idx.edges, key=lambda e: e.rank) if e.src in near]
        for table in dict.fromkeys(near):
            numbers = [c.name for c in self.idx.tables[table].columns
                       if self.idx.kind(table, c.name) == "number"]
            cols = [c for c in numbers if set(stems) & set(self.idx.col_words[(table, c)])]
            # a coded word of the measure (`wgt`, `cst`), or a unit of what it measures (`_kg`)
            cols = cols or [c for c in numbers if _measures(self.idx.col_words[(table, c)], stems)]
            if len(cols) == 1:
                return Col(table, cols[0])
        return None

    def nearest(
        self, options: list[tuple[str, str, str]]
    ) -> tuple[list[tuple[str, str, str]], bool]:
        """Value options ordered by closeness to the context; True when the first is a tie."""

        def key(o: tuple[str, str, str]) -> tuple[int, int, int]:
            ctx = self.context.index(o[0]) if o[0] in self.context else len(self.context)
            far = min((self.hops(c, o[0]) for c in self.context), default=0)
            return (ctx, far, self.idx.order.get(o[0], 0))

        ranked = sorted(options, key=key)
        tie = len(ranked) > 1 and key(ranked[0])[:2] == key(ranked[1])[:2]
        return ranked, tie


def _measures(words: tuple[str, ...], stems: tuple[str, ...]) -> bool:
    """Whether a column's words say one of the measures `stems` without its word: a code of
    it that is no English word (`wgt` of weight), or a unit of what it measures (`kg`)."""
    if not words:
        return False
    dims = {MEASURE_DIMENSIONS.get(s) for s in stems} - {None}
    return (bool(dims) and dimension(words[-1]) in dims) or any(
        abbreviates(w, s) and not parts_of_speech(w) for w in words for s in stems
        if not s.startswith("@"))


def _name(e: Element) -> str:
    """The column name of a column element (`Mention.columns()` holds only those)."""
    assert e.column is not None
    return e.column


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
