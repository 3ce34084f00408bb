"""Ranking shapes: "top N X by M", "which N X have the highest M", "the X with the most Y".

ORDER BY the measure, LIMIT N (1 without a number). The entity is grouped when the measure is an
aggregate or lives in a table the entity reaches through a one-to-many step; a measure each entity
row has at most one of ("the player with the greatest height", via a foreign key) orders the rows
directly. A top-N shows the measure beside the entity; "which X has the most Y" shows X only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nl2sql.reasoning.offline.linking.linker import Mention
from nl2sql.reasoning.offline.plan.joins import JoinError, connect
from nl2sql.reasoning.offline.shapes.comparisons import num_cond
from nl2sql.reasoning.offline.shapes.conditions import adjacent_after
from nl2sql.reasoning.offline.shapes.ordering import Ordering
from nl2sql.reasoning.offline.shapes.spec import Agg, Col, Query, Target, Unclear
from nl2sql.reasoning.offline.words import cues as C
from nl2sql.reasoning.offline.words.cues import Superlative
from nl2sql.reasoning.offline.words.numeric import NumCue

_ENTITY_LEADS = frozenset(
    "which who whose list show name find give display return get identify what".split()
)
_BE = {"is", "was", "are", "were", "'s"}
_TOTALS = {"total", "totals", "overall", "combined", "altogether", "cumulative", "sum"}


class Ranking(Ordering):
    """The ranking shape; `Analyzer` adds the others."""

    if TYPE_CHECKING:

        def conditions(self, q: Query) -> list[tuple[NumCue, Agg]]:
            """Fill q's conditions (`Clauses.conditions`, a subclass in the analyzer's MRO)."""
            ...

    def _ranks_entities(self, sup: Superlative, measure_m: Mention | None) -> bool:
        """Whether a superlative ranks rows ("which book has the highest price") or aggregates."""
        if sup[2] is not None:
            nxt = self.next_mention(sup[1] + 1, within=3)
            if nxt is None or self.res.table(nxt) or sup[2] == ("@count",):
                return True
        sup_i = sup[1]
        first = self.tokens[0].low if self.tokens else ""
        second = self.tokens[1].low if len(self.tokens) > 1 else ""
        if first in _ENTITY_LEADS - {"what"} or (first == "what" and second not in _BE):
            return True
        return any(m.start < sup_i and m is not measure_m for m in self.mentions)

    def _ranking(
        self, measure: Col | Agg | None, m_m: Mention | None, sup: Superlative | None
    ) -> Query:
        limit, limit_i, limit_dir = self.scan.limit
        if measure is None:
            measure, m_m = self._rank_measure(sup)
        entity_m = self._entity(limit_i, sup, m_m)
        entity = self.group_target(entity_m)
        self.res.entity = entity if isinstance(entity, str) else entity.table
        if measure is None:
            measure = self._adjective_measure(sup, entity)
        if measure is None:
            raise Unclear("could not tell what to rank by")
        direction = sup[0] if sup is not None else (limit_dir or "desc")
        etable = entity.table if isinstance(entity, Col) else entity_m and self.res.table(entity_m)
        if (
            etable
            and isinstance(measure, Col)
            and (
                measure.table == etable
                or self._attribute_of(etable, measure.table)
                or not any(t.low in _TOTALS for t in self.tokens)
            )
        ):
            # "the member who paid the biggest fee": the single largest value ranks;
            # only "the largest total fee" sums each entity's values
            return self._plain_ranking(entity, etable, measure, direction, limit or 1)
        if isinstance(measure, Col):
            measure = Agg("sum", measure.table, measure)
        q = Query(root=measure.table, shape="ranking")
        self.res.add_context(q.root)
        keys, outputs = self.outputs(entity)
        having = self.conditions(q)
        # "top 3 outlets by units moved with turnover above 200": the metric per ranked group
        q.having = [num_cond(m, cue) for cue, m in having if m.metric is not None]
        shown = self.projections(outputs)
        # "top 5 … by number of orders" shows the numbers; "which year had the most …" the year
        q.group = keys
        q.select = [(o, None) for o in shown + ([measure] if limit is not None else [])]
        q.order = [(measure, direction)]
        q.limit = limit or 1
        return q

    def _attribute_of(self, entity_table: str | None, table: str) -> bool:
        """True when each entity row has at most one row of `table` (FK path without fan-out)."""
        if not entity_table:
            return False
        try:
            return not connect(self.idx, entity_table, [table]).fans_out
        except JoinError:
            return False

    def _plain_ranking(
        self, entity: Col | str, root: str, measure: Col, direction: str, limit: int
    ) -> Query:
        q = Query(root=root, shape="ranking")
        self.res.add_context(q.root)
        _, outputs = self.outputs(entity)
        compared = [cue.text for cue, m in self.conditions(q) if m.metric is not None]
        if compared:  # rows ranked one by one have no group to compare a metric of
            raise Unclear(f"could not tell which rows' metric '{compared[0]}' compares")
        asked = self.projections([])
        # asked-for columns are shown alone; otherwise the entity's label (and the measure for top-N)
        ranked: list[Target] = (
            [measure] if measure not in outputs and self.scan.limit[0] is not None else []
        )
        shown = asked or outputs + ranked
        q.select = [(o, None) for o in shown]
        q.order = [(measure, direction)]
        q.limit = limit
        return q

    def _rank_measure(self, sup: Superlative | None) -> tuple[Col | Agg | None, Mention | None]:
        """The measure after "by" ("top 5 products by price") or after the superlative."""
        for _, end, word in C.group_cues(self.tokens):
            if word != "by":
                continue
            m = adjacent_after(self.mentions, self.tokens, end, self.used, within=2)
            found = self._measure_of(m) if m is not None else None
            if found is not None:
                return found, m
        if sup is not None and sup[2] is None and self.tokens[sup[1]].low not in ("top", "bottom"):
            m = self._compound_head(self.next_mention(sup[1] + 1, within=3))
            counted = m is not None and self._counted_noun(sup, m)
            found = counted or (self._measure_of(m) if m is not None else None)
            if found is not None:
                return found, m
        return None, None

    def _counted_noun(self, sup: Superlative, m: Mention) -> Agg | None:
        """ "the most prizes": a noun after most/fewest that only loosely names a column counts
        the rows of that column's table."""
        if self.tokens[sup[1]].low not in ("most", "fewest", "least") or self.res.table(m):
            return None
        if m.candidates[0].score >= 0.85 or not self.tokens[m.end - 1].low.endswith("s"):
            return None
        self.used.add(m.start)
        return Agg("count", m.candidates[0].table)

    def _compound_head(self, m: Mention | None) -> Mention | None:
        """English noun compounds end with their head: "the highest quarter payout" ranks by the
        payout; a measurable column named right after `m` is read instead, `m` only modifies it."""
        while m is not None:
            end = m.end
            after = (n for n in self.mentions if n.start == end and n.start not in self.used)
            nxt = next(after, None)
            try:
                if nxt is None or self.res.column(nxt, ("number", "date")) is None:
                    return m
            except Unclear:
                return m
            self.used.add(m.start)
            m = nxt
        return m

    def _measure_of(self, m: Mention) -> Col | Agg | None:
        col = self.res.column(m, ("number", "date"))
        if col is not None:
            self.used.add(m.start)
            return col
        table = self.res.table(m)
        if table is not None:
            self.used.add(m.start)
            return Agg("count", table)
        return None

    def _entity(
        self, limit_i: int | None, sup: Superlative | None, measure_m: Mention | None
    ) -> Mention:
        """What is ranked: the words after "top N" / "which N", the table named right after the
        superlative ("the youngest member"), else the first table named, else the first mention."""
        if limit_i is not None:
            m = self.next_mention(limit_i + 1, within=3, exclude=measure_m)
            if m is not None:
                return m
        free = [m for m in self.mentions if m.start not in self.used and m is not measure_m]
        if sup is not None and sup[2] == ("@count",):  # "the most common genre"
            after = self.next_mention(sup[1] + 2, within=1, exclude=measure_m)
            if after is not None:
                return after
        if sup is not None:
            after = self.next_mention(sup[1] + 1, within=1, exclude=measure_m)
            if after is not None and self.res.table(after):
                return after
        tables = [m for m in free if self.res.table(m)]
        if tables or free:
            return (tables or free)[0]
        raise Unclear("could not tell what to rank")

    def _adjective_measure(self, sup: Superlative | None, entity: Col | str) -> Col | Agg | None:
        """The measure an adjective names: "most expensive" → a price column of the entity."""
        if sup is None or sup[2] is None:
            return None
        table = entity.table if isinstance(entity, Col) else entity
        if sup[2] == ("@count",):
            return Agg("count", table)
        if sup[2] == ("@date",):
            for t in dict.fromkeys([table] + self.res.context):
                dates = self.idx.date_columns(t)
                if dates:
                    return Col(t, dates[0])
            return None
        # "the tallest goalkeeper": the height may live in the row the goalkeeper references
        return self.res.measure_column(sup[2], [table])
