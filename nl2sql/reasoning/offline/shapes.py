"""Question shapes → a resolved Query.

Shapes, tried in this order:
- ranking: "top N X by M", "which N X have the highest M", "the X with the most Y" — ORDER BY the
  measure, LIMIT N (1 without a number); grouped by the entity when the measure is an aggregate or
  lives in another table;
- aggregate: "how many / number of" (COUNT, DISTINCT with different/distinct/unique),
  "average / total / maximum / minimum M", "what is the highest M" (MAX) — with group-by cues
  ("per / for each / by X");
- listing: "list / show / what are the <columns> of <table>" with optional ORDER BY.
Every shape takes the WHERE conditions of `conditions.py` and an explicit order cue.
"""

from __future__ import annotations

from nl2sql.reasoning.offline import cues as C
from nl2sql.reasoning.offline.conditions import (
    date_conditions,
    numeric_conditions,
    value_conditions,
)
from nl2sql.reasoning.offline.linking import Mention
from nl2sql.reasoning.offline.numeric import NumCue
from nl2sql.reasoning.offline.ranking import Ranking
from nl2sql.reasoning.offline.spec import Agg, Col, Cond, Query, Unclear

_DISTINCT = {"different", "distinct", "unique"}
_POPULAR = {"common", "frequent", "popular"}
_HAVE = {"has", "have", "had", "having", "with", "gets", "got", "received", "receives"}


class Analyzer(Ranking):
    """Reads one question (tokens, cues, linking) into a Query, or raises Unclear."""

    def run(self) -> Query:
        """The resolved Query of the question; Unclear when it cannot be planned without guessing."""
        if any(t.low == "both" for t in self.tokens):
            raise Unclear(
                "'both … and …' needs rows matching each value (a set intersection); not supported"
            )
        q = self._shape()
        self.check_negations()
        self.check_alternatives()
        self._existence_joins(q)
        return q

    def _existence_joins(self, q: Query) -> None:
        """A table named but given no role ("members who have loans") is joined: rows with a match."""
        for m in self.mentions:
            table = self.res.table(m) if m.start not in self.used else None
            if table is None or table in q.tables():
                continue
            if q.shape not in ("listing", "count"):
                self.notes.append(f"'{m.text}' ({table}) was not used")
                self.penalty += 0.1
                continue
            self.used.add(m.start)
            q.joined.append(table)
            self.notes.append(
                f"joined {table} for '{m.text}': only rows with a matching {table} row count"
            )

    def _shape(self) -> Query:
        # cue words inside a longer name ("best finish", "total spent") are part of the name
        self.named = self.scan.taken | {
            i for m in self.mentions if m.end - m.start > 1 for i in range(m.start, m.end)
        }
        measure, m_m = self._measure()
        sup = C.superlative(self.tokens, self.named)
        extreme = self._extreme_of_entity(measure)
        if extreme is not None:  # "the car with the maximum mpg": rank cars, not aggregate
            return self._ranking(measure.col, m_m, extreme)
        limit = self.scan.limit
        ordered = C.order_cue(self.tokens) is not None and limit[0] is None
        if not ordered and (
            limit[0] is not None or (sup is not None and self._ranks_entities(sup, m_m))
        ):
            return self._ranking(measure, m_m, sup)
        if measure is None and sup is not None:
            measure, m_m = self._extreme(sup)
        if measure is not None:
            return self._aggregate(measure)
        return self._listing()

    def _extreme_of_entity(self, measure: Agg | None) -> tuple | None:
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
        cc = C.count_cue(self.tokens, self.named - self.scan.taken)
        ac = C.agg_cue(self.tokens, self.named)
        self._agg_index = ac[1] if ac is not None and cc is None else None
        if cc is not None and ac is not None and ac[1] < cc[0] - 2:
            cc = None  # "the maximum fee for different numbers of pages": the first cue wins
        if cc is not None:
            return self._count_measure(cc)
        return self._agg_measure(*ac) if ac is not None else (None, None)

    def _count_measure(self, cc: tuple[int, int]) -> tuple[Agg, Mention]:
        m = self.next_mention(cc[1], within=5)
        if m is None or self._unknown_between(cc[1], m.start):
            raise Unclear(
                self._unknown_between(cc[1], len(self.tokens))
                or "could not tell what to count after '" + self._text(*cc) + "'"
            )
        distinct = any(t.low in _DISTINCT for t in self.tokens[cc[1] : m.start])
        self.used.add(m.start)
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
        is_key = col.column in self.idx.keys.get(col.table, set())
        if self.idx.kind(col.table, col.column) == "number" and not is_key and not distinct:
            # "how many pages does X have": the column holds the count already
            self.quantity = True
            return Agg("sum", col.table, col)
        return Agg("count", col.table, col, distinct=not is_key or distinct)

    def _extreme(self, sup) -> tuple[Agg, Mention]:
        direction, i, stems = sup
        func = "max" if direction == "desc" else "min"
        m = self.next_mention(i + 1, within=3)
        col = self.res.column(m, ("number", "date")) if m else None
        if col is None:
            raise Unclear(f"could not tell what '{self.tokens[i].text}' applies to")
        self.used.add(m.start)
        return Agg(func, col.table, col), m

    # --- shapes ---------------------------------------------------------------------------
    def _aggregate(self, measure: Agg) -> Query:
        q = Query(root=measure.table, shape="count" if measure.func == "count" else "aggregate")
        self.res.add_context(q.root)
        having = self.conditions(q)
        order = self.order_request()
        keys, outputs = self.groups(q)
        explicit = bool(keys)
        keys, outputs = self._implicit_groups(keys, outputs, measure)
        if keys and not explicit and not having and self._argmax(q, measure, outputs):
            return q
        if self.quantity and q.where and not keys and not having:
            q.shape, q.select = "listing", [(measure.col, None)]  # the value of the filtered rows
            return q
        q.group = keys
        q.select = (
            [(o, None) for o in outputs] + [(measure, None)] + [(a, None) for a in self.extra]
        )
        if having and not keys:
            self.having_subquery(q, measure, having)
        elif having:
            q.having = [self.having_cond(cue, table) for cue, table in having]
        q.order = self.finish_order(q, order) or [(k, "asc") for k in outputs]
        return q

    def _argmax(self, q: Query, measure: Agg, outputs: list) -> bool:
        """"the maximum horsepower and the make": the row with the extreme value, not groups."""
        if measure.func not in ("min", "max") or measure.col is None or self.extra:
            return False
        q.shape = "ranking"
        q.select = [(o, None) for o in outputs] + [(measure.col, None)]
        q.order = [(measure.col, "desc" if measure.func == "max" else "asc")]
        q.limit = 1
        self.notes.append(f"'{measure.func}' beside {len(outputs)} column(s): the row with it")
        return True

    def _listing(self) -> Query:
        entity_m = next(
            (m for m in self.mentions if m.start not in self.used and self.res.table(m)), None
        )
        entity = self.res.table(entity_m) if entity_m else None
        if entity is None:
            raise Unclear(self.nothing_understood())
        self.used.add(entity_m.start)
        q = Query(root=entity, shape="listing")
        self.res.add_context(entity)
        having = self.conditions(q)
        order = self.order_request()
        keys, outputs = self.outputs(entity)
        shown = self._listed_tables() + self.projections([])
        if having:
            q.group = keys
            q.having = [self.having_cond(cue, table) for cue, table in having]
            q.root = having[0][1]
            self.res.add_context(q.root)
            shown = shown or outputs
        q.select = [(o, None) for o in shown]
        q.star = not shown and not having
        q.distinct = any(t.low in _DISTINCT for t in self.tokens)
        q.order = self.finish_order(q, order, outputs)
        return q

    def _listed_tables(self) -> list:
        """A table listed after "and" ("the names of authors and the books") shows its labels."""
        shown = []
        for m in self.mentions:
            prev = [
                t.text
                for t in self.tokens[max(0, m.start - 2) : m.start]
                if t.low not in ("the", "their", "its")
            ]
            table = self.res.table(m) if m.start not in self.used else None
            if table and prev[-1:] in (["and"], [","]) and self.idx.labels[table]:
                self.used.add(m.start)
                shown += [Col(table, c) for c in self.idx.labels[table]]
        return shown

    def _implicit_groups(self, keys: list, outputs: list, measure: Agg) -> tuple[list, list]:
        """A column asked for beside an aggregate ("names and the total fee") groups it."""
        measured = {a.col for a in self.extra} | {measure.col}
        for m in self.mentions:
            if m.start in self.used or self.res.table(m) or not m.columns():
                continue
            col = self.res.column(m)
            self.used.add(m.start)
            if col is not None and col not in keys and col not in measured:
                keys, outputs = keys + [col], outputs + [col]
                self.notes.append(f"grouped by {col.ref}: it is asked for beside an aggregate")
        return keys, outputs

    # --- helpers ----------------------------------------------------------------------------
    def conditions(self, q: Query) -> list:
        """Fill q.where; return (cue, counted table) pairs that need HAVING."""
        conds, notes, penalty = value_conditions(
            self.link.values, self.mentions, self.res, self.tokens, self.used, self.replace
        )
        self.notes += notes
        self.penalty += penalty
        nconds, having = numeric_conditions(
            self.scan.nums, self.mentions, self.res, self.tokens, self.used
        )
        dates = date_conditions(
            self.scan.dates, self.mentions, self.res, q.root, self.tokens, self.used, self.notes
        )
        q.where += conds + nconds + dates
        return having

    def having_cond(self, cue: NumCue, table: str) -> Cond:
        """HAVING COUNT(*) <op> n for "with more than n <table>"."""
        values = [cue.value] if cue.op != "between" else [cue.value, cue.high]
        return Cond(Agg("count", table), cue.op, values, text=cue.text)
