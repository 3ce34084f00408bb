"""Measures: what a count or aggregate cue asks for ("how many loans", "the average price",
"the maximum number of pages") and the row picked by "the X with the maximum M".

A metric of the semantic layer is a measure by its name ("revenue per region"). A count names a
table (COUNT(*)), a column (COUNT(DISTINCT col); a numeric column that already
holds a count is summed: "how many pages") or a foreign key (the rows it references). An aggregate
word applies to the numeric column after it ("the average, minimum and maximum age": one
aggregate per word).
"""

from __future__ import annotations

from nl2sql.reasoning.offline.linking.linker import Mention
from nl2sql.reasoning.offline.shapes.clauses import Clauses
from nl2sql.reasoning.offline.shapes.comparisons import compared_metric
from nl2sql.reasoning.offline.shapes.spec import Agg, Col, Unclear
from nl2sql.reasoning.offline.words import cues as C
from nl2sql.reasoning.offline.words.cues import Superlative
from nl2sql.schema.relationships import KEY_SUFFIXES, holds_every_row_once, split_words

_DISTINCT = {"different", "distinct", "unique"}
_COUNT_SUFFIXES = {"num", "number", "nr", "no"}  # `page_num` may hold a count; `ref`, `id` never
_HAVE = {"has", "have", "had", "having", "with", "gets", "got", "received", "receives"}


class Measures(Clauses):
    """The measure of a question; `Analyzer` builds the shapes around it."""

    def _extreme_of_entity(self, measure: Agg | None) -> Superlative | None:
        """A superlative cue for "has / with the maximum M" (a MAX/MIN that picks a row)."""
        if measure is None or measure.func not in ("min", "max") or measure.col is None:
            return None
        if self.extra or self.quantity or self._agg_index is None:
            return None
        before = [t.low for t in self.tokens[: self._agg_index] if t.low not in ("the", "a")]
        if not before or before[-1] not in _HAVE:
            return None
        return ("desc" if measure.func == "max" else "asc", self._agg_index, None)

    # --- measures -------------------------------------------------------------------------
    def _measure(self) -> tuple[Agg | None, Mention | None]:
        """The aggregate a count or aggregate cue asks for, and the mention it applies to."""
        # "more than the average number of loans" is no count of products
        after_nested = {i for c in self.scan.nums if c.nested for i in range(c.start, c.end + 2)}
        cc = C.count_cue(self.tokens, (self.named - self.scan.taken) | after_nested)
        ac = C.agg_cue(self.tokens, self.named)
        oc = C.order_cue(self.tokens)
        if cc is not None and oc is not None and oc[1] <= cc[0] <= oc[1] + 1:
            cc = None  # "ordered by the number of final tables": a column named "number of …"
        self._agg_index = ac[1] if ac is not None and cc is None else None
        if cc is not None and ac is not None and ac[1] < cc[0] - 2:
            cc = None  # "the maximum fee for different numbers of pages": the first cue wins
        metric = self._metric_measure(cc, ac)
        if metric is not None:
            return metric
        if cc is not None:
            return self._count_measure(cc)
        return self._agg_measure(*ac) if ac is not None else (None, None)

    def _metric_measure(
        self, cc: tuple[int, int] | None, ac: tuple[str, int] | None
    ) -> tuple[Agg, Mention] | None:
        """A metric of the semantic layer the question names ("revenue by region"): the measure
        itself, already an aggregate. "total revenue" / "how much revenue" is the metric too;
        another aggregate word over it would aggregate an aggregate. A metric compared with a
        number ("whose revenue is above 1000") is a condition, not the measure."""
        compared = {
            m.start
            for cue in self.scan.nums
            if (m := compared_metric(cue, self.mentions, self.tokens, self.used)) is not None
        }
        m = next(
            (m for m in self.mentions if m.start not in self.used | compared and m.metric()), None
        )
        element = m.metric() if m is not None else None
        if m is None or element is None or element.metric is None:
            return None
        name = element.metric
        between = self.tokens[ac[1] + 1 : m.start] if ac is not None else []
        if (
            cc is None
            and ac is not None
            and ac[1] < m.start
            and all(t.low in ("the", "of") for t in between)
        ):
            if ac[0] != "sum":
                raise Unclear(
                    f"the {self.tokens[ac[1]].text} of metric '{name}' aggregates an "
                    "aggregate (a nested query); not supported"
                )
            self.used.update(
                x.start for x in self.mentions if x.start == ac[1] and x.end == ac[1] + 1
            )
        elif cc is not None or ac is not None:
            cue = self._text(*cc) if cc is not None else self.tokens[ac[1]].text if ac else ""
            raise Unclear(
                f"'{cue}' beside metric '{name}' asks for a second measure; not supported"
            )
        self.used.add(m.start)
        return Agg("metric", element.table, metric=name), m

    def _count_measure(self, cc: tuple[int, int]) -> tuple[Agg, Mention]:
        m = self.next_mention(cc[1], within=5)
        if m is None or self._unknown_between(cc[1], m.start):
            raise Unclear(
                self._unknown_between(cc[1], len(self.tokens))
                or "could not tell what to count after '" + self._text(*cc) + "'"
            )
        distinct = any(t.low in _DISTINCT for t in self.tokens[cc[1] : m.start])
        self.used.add(m.start)
        # the cue's own words ("total number of") are the count, even where a column is named
        # "number" or "total": they have no other role to play
        start = cc[0] - 1 if cc[0] > 0 and self.tokens[cc[0] - 1].low == "total" else cc[0]
        self.used.update(x.start for x in self.mentions if start <= x.start and x.end <= cc[1])
        before = [t for t in self.tokens[max(0, cc[0] - 2) : cc[0]] if t.low != "the"]
        if before and before[-1].low in C.AGG_WORDS and C.AGG_WORDS[before[-1].low] != "sum":
            return self._agg_of_number(C.AGG_WORDS[before[-1].low], m), m
        return self._count_of(m, distinct), m

    def _agg_measure(self, func: str, i: int) -> tuple[Agg, Mention]:
        self.used.update(m.start for m in self.mentions if m.start == i and m.end == i + 1)
        m = self.next_mention(i + 1, within=6)
        if m is not None and self._unknown_between(i + 1, m.start):
            raise Unclear(self._unknown_between(i + 1, m.start))
        if m is None:
            raise Unclear(f"could not tell which column the '{self.tokens[i].text}' applies to")
        col = self.res.column(m, ("number",) if func in ("sum", "avg") else ("number", "date"))
        self.used.add(m.start)
        if col is not None:
            # "the average, minimum and maximum age": one aggregate per word, same column
            more = [
                C.AGG_WORDS[t.low] for t in self.tokens[i + 1 : m.start] if t.low in C.AGG_WORDS
            ]
            self.extra = [Agg(f, col.table, col) for f in dict.fromkeys(more) if f != func]
            return Agg(func, col.table, col), m
        table = self.res.table(m)
        if func == "sum" and table:
            return Agg("count", table), m  # "total loans" counts rows
        raise Unclear(f"'{m.text}' is not a numeric column to take the {self.tokens[i].text} of")

    def _agg_of_number(self, func: str, m: Mention) -> Agg:
        """For "the maximum number of X", X must be a numeric column (else it is a nested count)."""
        col = self.res.column(m, ("number",))
        if col is None:
            raise Unclear(
                f"the {func} of a count of '{m.text}' needs a nested aggregate; not supported"
            )
        return Agg(func, col.table, col)

    def _count_of(self, m: Mention, distinct: bool) -> Agg:
        table = self.res.table(m)
        if table is not None:
            return Agg("count", table)
        col = self.res.column(m)
        if col is None:
            raise Unclear(f"could not tell what '{m.text}' counts")
        entity = self.referenced(col)
        if entity is not None and not distinct:
            # "the number of suppliers" names a foreign key: count the rows it references
            self.res.add_context(entity)
            return Agg("count", entity)
        # a column named as a key (`memberId`) identifies things, it holds no count to add up
        is_key = col.column in self.idx.keys.get(col.table, set()) or _key_named(col.column)
        if self.idx.kind(col.table, col.column) == "number" and not is_key and not distinct:
            # "how many pages does X have": the column holds the count already
            self.quantity = True
            return Agg("sum", col.table, col)
        if not distinct and self._yes_no(col):
            raise Unclear(f"'{m.text}' is a yes/no column: count the rows where it holds, or "
                          "name what to count")
        # a key repeated in its table (`member_id` of bookings) counts entities once each
        return Agg("count", col.table, col, distinct=distinct or not self._identifies_rows(col))

    def _yes_no(self, col: Col) -> bool:
        """A flag column: counting its distinct values (two at most) answers no "how many"."""
        column = self.idx.column(col.table, col.column)
        two = column is not None and column.distinct_count is not None and column.distinct_count <= 2
        return self.idx.kind(col.table, col.column) == "bool" or two

    def _identifies_rows(self, col: Col) -> bool:
        """Whether the column holds one value per row: its table's key or unique in the data."""
        if self.idx.pk(col.table) == [col.column]:
            return True
        table, column = self.idx.tables[col.table], self.idx.column(col.table, col.column)
        return column is not None and holds_every_row_once(table, column)

    def _extreme(self, sup: Superlative) -> tuple[Agg, Mention]:
        direction, i, stems = sup
        func = "max" if direction == "desc" else "min"
        m = self.next_mention(i + 1, within=3)
        col = self.res.column(m, ("number", "date")) if m else None
        if m is None or col is None:
            raise Unclear(f"could not tell what '{self.tokens[i].text}' applies to")
        self.used.add(m.start)
        return Agg(func, col.table, col), m


def _key_named(column: str) -> bool:
    """`memberId`, `class_code`, `custRef`: the last word says the column identifies things."""
    last = split_words(column)[-1]
    return last in KEY_SUFFIXES and last not in _COUNT_SUFFIXES
