"""Question shapes → a resolved Query.

Shapes, tried in this order:
- ranking: "top N X by M", "which N X have the highest M", "the X with the most Y" — ORDER BY the
  measure, LIMIT N (1 without a number); grouped by the entity when the measure is an aggregate or
  lives in another table;
- aggregate: "how many / number of" (COUNT, DISTINCT with different/distinct/unique),
  "average / total / maximum / minimum M", "what is the highest M" (MAX) — with group-by cues
  ("per / for each / by X");
- listing: "list / show / what are the <columns> of <table>" with optional ORDER BY.
Every shape takes the WHERE conditions of `clauses.py` and an explicit order cue; the measures
are in `measures.py`, the listing shape in `listing.py`.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.linking.linker import Mention
from nl2sql.reasoning.offline.shapes.comparisons import num_cond
from nl2sql.reasoning.offline.shapes.listing import Listing
from nl2sql.reasoning.offline.shapes.spec import Agg, Col, Part, Query, Target, Unclear
from nl2sql.reasoning.offline.words import cues as C
from nl2sql.reasoning.offline.words.numeric import NumCue

_DETERMINERS = {"the", "its", "their", "his", "her", "a", "an", "all", "also", "me", "us",
                "different", "distinct", "unique", "each", "every"}  # fmt: skip
_COORDINATORS = {"and", "list", "show", "give", "return", "display", "find", "get", "tell", "name",
                 "is", "are", "was", "were"}  # fmt: skip


class Analyzer(Listing):
    """Reads one question (tokens, cues, linking) into a Query, or raises Unclear."""

    def run(self) -> Query:
        """The resolved Query of the question; Unclear when it cannot be planned without guessing."""
        self.negations_done: set[int] = set()
        self.ors_done: set[int] = set()
        self.intersection = None
        self.reserve_negated_tables()
        q = self._shape()
        self._dependent_columns(q)
        if self.intersection is not None:
            self.intersect(q)
        elif any(t.low == "both" for t in self.tokens):
            raise Unclear("could not tell which two conditions 'both … and …' joins")
        self.check_negations()
        self.check_alternatives()
        self._existence_joins(q)
        return q

    def _dependent_columns(self, q: Query) -> None:
        """Columns shown beside a grouped entity ("the branch name and city with the most
        concerts") depend on its key: grouping by them too changes no group."""
        if not q.group:
            return
        keyed = {
            g.table for g in q.group if isinstance(g, Col) and [g.column] == self.idx.pk(g.table)
        }
        for target, _ in q.select:
            if isinstance(target, Col) and target not in q.group and target.table in keyed:
                q.group.append(target)

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
        if measure is not None and extreme is not None:
            # "the book with the maximum price": rank books, not aggregate
            return self._ranking(measure.col, m_m, extreme)
        limit = self.scan.limit
        ordered = C.order_cue(self.tokens) is not None and limit[0] is None
        if not ordered and (
            limit[0] is not None or (sup is not None and self._ranks_entities(sup, m_m))
        ):
            if (
                measure is not None
                and measure.func == "count"
                and sup is not None
                and m_m is not None
                and sup[1] > m_m.end
            ):
                # "the number of loans in the branch with the most copies": a count
                # over the rows of one ranked entity needs a nested query
                raise Unclear(
                    f"counting rows of the entity picked by '{self.tokens[sup[1]].text} …' "
                    "(a nested query) is not supported"
                )
            if self.quantity and m_m is not None:
                # "how many pages does the book with the lowest price have": the value
                # of the ranked row, not a sum
                self.used.discard(m_m.start)
                self.quantity, measure, m_m = False, None, None
            return self._ranking(measure, m_m, sup)
        if measure is None and sup is not None:
            measure, m_m = self._extreme(sup)
        if measure is not None:
            return self._aggregate(measure)
        return self._listing()

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
        if self.quantity and q.where and not keys and not having and measure.col is not None:
            q.shape = "listing"
            q.select = [(measure.col, None)]  # the value of the filtered rows
            return q
        q.group = keys
        q.select = [(o, None) for o in [*outputs, measure, *self.extra]]
        if having and not keys:
            self.having_subquery(q, measure, having)
        elif having:
            self._check_metric_scope(having, keys)
            q.having = [num_cond(measure, cue) for cue, measure in having]
        if order is not None and not keys and not having:
            # one total row has nothing to order: the rows the question lists were not found
            raise Unclear("could not tell which rows to order: the question orders a single total")
        # unasked, a per-group summary lists the largest groups first, as a frequency table
        # does; a summary over time is read in time order
        by_time = any(self._time_key(k) for k in keys)
        default: list[tuple[Target, str]] = (
            [(measure, "desc")] if keys and not by_time else [(k, "asc") for k in outputs]
        )
        q.order = self.finish_order(q, order) or default
        return q

    def _check_metric_scope(self, having: list[tuple[NumCue, Agg]], keys: list[Target]) -> None:
        """ "turnover per region for outlets with turnover above 100" compares each outlet's
        metric, not each region's: a nested query. A metric compared after a table named is
        that table's rows' metric, which a HAVING over other groups does not compute."""
        for cue, measure in having:
            named = [self.res.table(m) for m in self.mentions if m.end <= cue.start]
            subject = next((t for t in reversed(named) if t), None)
            if measure.metric is None or subject is None:
                continue
            pk = self.idx.pk(subject)
            if not any(
                isinstance(k, Col) and k.table == subject and [k.column] == pk for k in keys
            ):
                raise Unclear(
                    f"'{cue.text}' compares the {measure.metric} of each {subject} row inside "
                    "other groups (a nested query); not supported"
                )

    def _time_key(self, key: Target) -> bool:
        """A date, a part of a date, or a number column named a year."""
        if isinstance(key, Part):
            return True
        if not isinstance(key, Col):
            return False
        kind = self.idx.kind(key.table, key.column)
        words = self.idx.col_words.get((key.table, key.column), ())
        return kind == "date" or (kind == "number" and "year" in words)

    def _argmax(self, q: Query, measure: Agg, outputs: list[Target]) -> bool:
        """ "the maximum price and the title": the row with the extreme value, not groups."""
        if measure.func not in ("min", "max") or measure.col is None or self.extra:
            return False
        q.shape = "ranking"
        q.select = [(o, None) for o in [*outputs, measure.col]]
        q.order = [(measure.col, "desc" if measure.func == "max" else "asc")]
        q.limit = 1
        self.notes.append(f"'{measure.func}' beside {len(outputs)} column(s): the row with it")
        return True

    def _implicit_groups(
        self, keys: list[Target], outputs: list[Target], measure: Agg
    ) -> tuple[list[Target], list[Target]]:
        """A column asked for beside an aggregate ("names and the total fee") groups it."""
        measured = {a.col for a in self.extra} | {measure.col}
        defaults, asked = list(outputs), []
        for m in self.mentions:
            if m.start in self.used or self.res.table(m) or not m.columns():
                continue
            if not self._coordinated(m):
                raise Unclear(f"could not tell what '{m.text}' does in the question")
            col = self.res.column(m)
            self.used.add(m.start)
            if col is None or col in measured:
                continue
            asked.append(col)
            if col in keys and col not in outputs:
                outputs = outputs + [col]  # a key of the group, asked to be shown too
            elif col not in keys:
                keys, outputs = keys + [col], outputs + [col]
                self.notes.append(f"grouped by {col.ref}: it is asked for beside an aggregate")
        # "List author full name, id and the number": the asked columns replace the default label
        own = {c.table for c in defaults if isinstance(c, Col)}
        if any(isinstance(c, Col) and c.table in own for c in asked):
            outputs = [o for o in outputs if o not in defaults or o in asked]
        return keys, outputs

    def _coordinated(self, m: Mention) -> bool:
        """Whether a mention is one of the things asked for: listed with "and" / a comma, or
        right after a request verb ("list the names and the number of …")."""
        before = [t for t in self.tokens[: m.start] if t.low not in _DETERMINERS]
        after = self.tokens[m.end] if m.end < len(self.tokens) else None
        if before and (before[-1].low in _COORDINATORS or before[-1].kind == "punct"):
            return True
        return after is not None and (after.low == "and" or after.kind == "punct")
