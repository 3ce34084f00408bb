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
    adjacent_after, date_conditions, numeric_conditions, value_conditions,
)
from nl2sql.reasoning.offline.roles import Roles
from nl2sql.reasoning.offline.joins import JoinError, connect
from nl2sql.reasoning.offline.linking import Mention
from nl2sql.reasoning.offline.spec import Agg, Col, Cond, Query, Unclear

_DISTINCT = {"different", "distinct", "unique"}
_ENTITY_LEADS = {"which", "who", "whose", "list", "show", "name", "find", "give", "display",
                 "return", "get", "identify", "what"}
_BE = {"is", "was", "are", "were", "'s"}
_POPULAR = {"common", "frequent", "popular"}


class Analyzer(Roles):
    """Reads one question (tokens, cues, linking) into a Query, or raises Unclear."""

    def run(self) -> Query:
        if any(t.low == "both" for t in self.tokens):
            raise Unclear("'both … and …' needs rows matching each value (a set intersection); not supported")
        q = self._shape()
        self.check_negations()
        self._existence_joins(q)
        return q

    def _existence_joins(self, q: Query) -> None:
        """A table named but given no role ("students who have a pet") is joined: rows with a match."""
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
            self.notes.append(f"joined {table} for '{m.text}': only rows with a matching {table} row count")

    def _shape(self) -> Query:
        # cue words inside a name ("best_finish", "total_spent") are part of the name
        self.named = self.scan.taken | {i for m in self.mentions for i in range(m.start, m.end)}
        measure, m_m = self._measure()
        sup = C.superlative(self.tokens, self.named)
        limit = self.scan.limit
        ordered = C.order_cue(self.tokens) is not None and limit[0] is None
        if not ordered and (limit[0] is not None or (sup is not None and self._ranks_entities(sup, m_m))):
            return self._ranking(measure, m_m, sup)
        if measure is None and sup is not None:
            measure, m_m = self._extreme(sup)
        if measure is not None:
            return self._aggregate(measure)
        return self._listing()

    # --- measures -------------------------------------------------------------------------
    def _measure(self) -> tuple[Agg | None, Mention | None]:
        cc = C.count_cue(self.tokens, self.named - self.scan.taken)
        if cc is not None:
            m = self.next_mention(cc[1], within=5)
            if m is None or self._unknown_between(cc[1], m.start):
                raise Unclear(self._unknown_between(cc[1], len(self.tokens)) or
                              "could not tell what to count after '" + self._text(*cc) + "'")
            distinct = any(t.low in _DISTINCT for t in self.tokens[cc[1] : m.start])
            self.used.add(m.start)
            before = [t for t in self.tokens[max(0, cc[0] - 2) : cc[0]] if t.low != "the"]
            if before and before[-1].low in C.AGG_WORDS and C.AGG_WORDS[before[-1].low] != "sum":
                return self._agg_of_number(C.AGG_WORDS[before[-1].low], m), m
            return self._count_of(m, distinct), m
        ac = C.agg_cue(self.tokens, self.named)
        if ac is None:
            return None, None
        func, i = ac
        m = self.next_mention(i + 1, within=6)
        if m is not None and self._unknown_between(i + 1, m.start):
            raise Unclear(self._unknown_between(i + 1, m.start))
        if m is None:
            raise Unclear(f"could not tell which column the '{self.tokens[i].text}' applies to")
        kinds = ("number",) if func in ("sum", "avg") else ("number", "date")
        col = self.res.column(m, kinds)
        self.used.add(m.start)
        if col is not None:
            # "the average, minimum and maximum age": one aggregate per word, same column
            more = [C.AGG_WORDS[t.low] for t in self.tokens[i + 1 : m.start] if t.low in C.AGG_WORDS]
            self.extra = [Agg(f, col.table, col) for f in dict.fromkeys(more) if f != func]
            return Agg(func, col.table, col), m
        table = self.res.table(m)
        if func == "sum" and table:
            return Agg("count", table), m  # "total loans" counts rows
        raise Unclear(f"'{m.text}' is not a numeric column to take the {self.tokens[i].text} of")

    def _unknown_between(self, a: int, b: int) -> str | None:
        """A message naming the first unexplained word in tokens[a:b], if any."""
        unknown = {t.index for t in self.link.unexplained}
        for tok in self.tokens[a:b]:
            if tok.index in unknown:
                return f"'{tok.text}' matches no table or column"
        return None

    def _agg_of_number(self, func: str, m: Mention) -> Agg:
        """"the maximum number of X": X must be a numeric column (else it is a nested count)."""
        col = self.res.column(m, ("number",))
        if col is None:
            raise Unclear(f"the {func} of a count of '{m.text}' needs a nested aggregate; not supported")
        return Agg(func, col.table, col)

    def _count_of(self, m: Mention, distinct: bool) -> Agg:
        table = self.res.table(m)
        if table is not None:
            return Agg("count", table)
        col = self.res.column(m)
        if col is None:
            raise Unclear(f"could not tell what '{m.text}' counts")
        is_key = col.column in self.idx.pk(col.table)
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

    def _ranks_entities(self, sup, measure_m: Mention | None) -> bool:
        """"Which product has the highest price" ranks; "what is the highest price" aggregates."""
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

    # --- shapes ---------------------------------------------------------------------------
    def _ranking(self, measure, m_m, sup) -> Query:
        limit, limit_i, limit_dir = self.scan.limit
        if measure is None:
            measure, m_m = self._rank_measure(sup)
        entity_m = self._entity(limit_i, sup, m_m)
        entity = self.group_target(entity_m)
        if measure is None:
            measure = self._adjective_measure(sup, entity)
        if measure is None:
            raise Unclear("could not tell what to rank by")
        direction = sup[0] if sup is not None else (limit_dir or "desc")
        etable = entity.table if isinstance(entity, Col) else entity_m and self.res.table(entity_m)
        if isinstance(measure, Col) and (measure.table == etable or self._attribute_of(etable, measure.table)):
            return self._plain_ranking(entity, etable, measure, direction, limit or 1)
        if isinstance(measure, Col):
            measure = Agg("sum", measure.table, measure)
        q = Query(root=measure.table, shape="ranking")
        self.res.add_context(q.root)
        keys, outputs = self.outputs(entity)
        self.conditions(q)
        q.group, q.select = keys, [(o, None) for o in self.projections(outputs)] + [(measure, None)]
        q.order = [(measure, direction)] + [(k, "asc") for k in keys[:1]]
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

    def _plain_ranking(self, entity, root: str, measure: Col, direction: str, limit: int) -> Query:
        q = Query(root=root, shape="ranking")
        self.res.add_context(q.root)
        _, outputs = self.outputs(entity)
        self.conditions(q)
        asked = self.projections([])
        # asked-for columns are shown alone; otherwise the entity's label and the measure
        shown = asked or outputs + ([measure] if measure not in outputs else [])
        q.select = [(o, None) for o in shown]
        q.order = [(measure, direction)]
        q.limit = limit
        return q

    def _aggregate(self, measure: Agg) -> Query:
        q = Query(root=measure.table, shape="count" if measure.func == "count" else "aggregate")
        self.res.add_context(q.root)
        having = self.conditions(q)
        order = self.order_request()
        keys, outputs = self.groups(q)
        keys, outputs = self._implicit_groups(keys, outputs)
        q.group = keys
        q.select = [(o, None) for o in outputs] + [(measure, None)] + [(a, None) for a in self.extra]
        if having and not keys:
            self.having_subquery(q, measure, having)
        elif having:
            q.having = [self.having_cond(cue, table) for cue, table in having]
        q.order = self.finish_order(q, order) or [(k, "asc") for k in outputs]
        return q

    def _listing(self) -> Query:
        entity_m = next((m for m in self.mentions if m.start not in self.used and self.res.table(m)), None)
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
        q.order = self.finish_order(q, order, outputs)
        return q

    def _listed_tables(self) -> list:
        """"the names of teachers and the courses": a table listed after "and" shows its labels."""
        shown = []
        for m in self.mentions:
            prev = [t.low for t in self.tokens[max(0, m.start - 2) : m.start] if t.low not in ("the", "their", "its")]
            table = self.res.table(m) if m.start not in self.used else None
            if table and prev[-1:] in (["and"], [","]) and self.idx.labels[table]:
                self.used.add(m.start)
                shown += [Col(table, c) for c in self.idx.labels[table]]
        return shown

    def _implicit_groups(self, keys: list, outputs: list) -> tuple[list, list]:
        """"names of singers and the total sales": a column shown beside an aggregate groups it."""
        for m in self.mentions:
            if m.start in self.used or self.res.table(m) or not m.columns():
                continue
            col = self.res.column(m)
            self.used.add(m.start)
            if col is not None and col not in keys:
                keys, outputs = keys + [col], outputs + [col]
                self.notes.append(f"grouped by {col.ref}: it is asked for beside an aggregate")
        return keys, outputs

    # --- ranking roles ----------------------------------------------------------------------
    def _rank_measure(self, sup) -> tuple:
        """The measure after "by" ("top 5 products by price") or after the superlative."""
        for start, end, word in C.group_cues(self.tokens):
            if word != "by":
                continue
            m = adjacent_after(self.mentions, self.tokens, end, self.used, within=2)
            found = self._measure_of(m) if m is not None else None
            if found is not None:
                return found, m
        if sup is not None and sup[2] is None and self.tokens[sup[1]].low not in ("top", "bottom"):
            m = self.next_mention(sup[1] + 1, within=3)
            found = self._measure_of(m) if m is not None else None
            if found is not None:
                return found, m
        return None, None

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

    def _entity(self, limit_i: int | None, sup, measure_m: Mention | None) -> Mention:
        """What is ranked: the words after "top N" / "which N", else the first table named."""
        if limit_i is not None:
            m = self.next_mention(limit_i + 1, within=3, exclude=measure_m)
            if m is not None:
                return m
        free = [m for m in self.mentions if m.start not in self.used and m is not measure_m]
        before = [m for m in free if sup is None or m.start < sup[1]]
        for pool in (before, free):
            tables = [m for m in pool if self.res.table(m)]
            if tables or pool:
                return (tables or pool)[0]
        raise Unclear("could not tell what to rank")

    def _adjective_measure(self, sup, entity) -> Col | Agg | None:
        """The measure an adjective names: "most expensive" → a price column of the entity."""
        if sup is None or sup[2] is None:
            return None
        table = entity.table if isinstance(entity, Col) else entity
        if sup[2] == ("@count",):
            return Agg("count", table)
        for t in dict.fromkeys([table] + self.res.context):
            if sup[2] == ("@date",):
                dates = self.idx.date_columns(t)
                if dates:
                    return Col(t, dates[0])
                continue
            for c in self.idx.tables[t].columns:
                if self.idx.kind(t, c.name) == "number" and set(sup[2]) & set(self.idx.col_words[(t, c.name)]):
                    return Col(t, c.name)
        return None

    # --- helpers ----------------------------------------------------------------------------
    def conditions(self, q: Query) -> list:
        """Fill q.where; return (cue, counted table) pairs that need HAVING."""
        conds, notes, penalty = value_conditions(
            self.link.values, self.mentions, self.res, self.tokens, self.used, self.replace
        )
        self.notes += notes
        self.penalty += penalty
        nconds, having = numeric_conditions(self.scan.nums, self.mentions, self.res, self.tokens, self.used)
        dates = date_conditions(self.scan.dates, self.mentions, self.res, q.root, self.tokens, self.used, self.notes)
        q.where += conds + nconds + dates
        return having

    def having_cond(self, cue: C.NumCue, table: str) -> Cond:
        values = [cue.value] if cue.op != "between" else [cue.value, cue.high]
        return Cond(Agg("count", table), cue.op, values, text=cue.text)
