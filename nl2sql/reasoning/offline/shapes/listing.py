"""The listing shape: "list / show / which … / what are the <columns> of <table>".

The rows listed are those of the first table named (not one counted by "at least two …"), or,
when no table is named, of the first column asked for ("the cities that have more than one
employee" groups that column). "Which teams …" shows the rows' names; "show the teams" or "all
the information about …" every column. A bare noun phrase with no request and no condition
("orders?") is refused.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.shapes.comparisons import num_cond
from nl2sql.reasoning.offline.shapes.measures import Measures
from nl2sql.reasoning.offline.shapes.spec import Col, Query, Target, Unclear

_DISTINCT = {"different", "distinct", "unique"}
_REQUESTS = frozenset(
    """what which who whom whose where when list show give find display return get tell name
    sort order ordered sorted select provide report see view fetch retrieve print identify
    describe are is was were do does did""".split()
)


class Listing(Measures):
    """Rows of a table (or values of a column) with their conditions and order."""

    def _listing(self) -> Query:
        q = self._listing_query()
        if not any(t.low in _REQUESTS for t in self.tokens) and not (
            q.where or q.having or q.anti or q.order
        ):
            # "orders?" names a table but asks nothing about it ("orders from 2024" does)
            raise Unclear(
                "the question names data but does not say what to do with it "
                "(e.g. 'list the …', 'how many …', 'what is the average …')"
            )
        return q

    def _listing_query(self) -> Query:
        counted = {c.end for c in self.scan.nums}  # "at least two players": counted, not listed
        entity_m = next(
            (
                m
                for m in self.mentions
                if m.start not in self.used and self.res.table(m) and m.start not in counted
            ),
            None,
        )
        entity = self.res.table(entity_m) if entity_m else None
        by_column = self._column_entity() if entity is None else None
        if by_column is not None:
            entity = by_column.table  # "the cities that have …": the rows of the column's table
        if entity is None:
            raise Unclear(self.nothing_understood())
        if entity_m is not None:
            self.used.add(entity_m.start)
        self.res.entity = entity
        q = Query(root=entity, shape="listing")
        self.res.add_context(entity)
        having = self.conditions(q)
        order = self.order_request()
        keys, outputs = self.outputs(by_column or entity)
        shown = self._listed_tables() + self.projections([])
        if having:
            q.group = keys
            q.having = [num_cond(measure, cue) for cue, measure in having]
            q.root = having[0][1].table
            self.res.add_context(q.root)
            shown = shown or outputs
        if not shown and not having and not self._wants_all_columns():
            shown = outputs  # "which teams …": the rows' names, not every column
        q.select = [(o, None) for o in shown]
        q.star = not shown and not having
        q.distinct = (
            any(t.low in _DISTINCT for t in self.tokens)
            or self._value_set(by_column)
            or self._value_set(self._which_column(shown))
        )
        q.order = self.finish_order(q, order, outputs)
        return q

    def _wants_all_columns(self) -> bool:
        """ "Show the customers", "all the information about …": every column; "Which …" asks
        for the rows by name."""
        words = {t.low for t in self.tokens}
        if words & {"information", "info", "details", "everything", "records"}:
            return True
        first = self.tokens[0].low if self.tokens else ""
        return first in {"show", "list", "display", "give", "return", "get"} and not (
            words & {"what", "which", "who", "whose"}
        )

    def _value_set(self, column: Col | None) -> bool:
        """ "In which years were cars made": a listed column that does not name rows (no key,
        no label) asks for its set of values."""
        if column is None:
            return False
        named = set(self.idx.pk(column.table)) | set(self.idx.labels.get(column.table, []))
        return column.column not in named

    def _which_column(self, shown: list[Target]) -> Col | None:
        """ "Which carriers deliver parcels over 5 kg", "in which cities do they live": the one column
        shown, asked for right after "which"/"what", whose set of values is the answer."""
        if len(shown) != 1 or not isinstance(shown[0], Col):
            return None
        col = shown[0]
        for m in self.mentions:
            before = self.tokens[m.start - 1].low if m.start > 0 else ""
            if before in ("which", "what") and any(
                e.table == col.table and e.column == col.column for e in m.columns()
            ):
                return col
        return None

    def _column_entity(self) -> Col | None:
        """With no table named, the first column asked for names the rows listed."""
        for m in self.mentions:
            if m.start not in self.used and m.columns():
                return self.res.column(m)
        return None

    def _listed_tables(self) -> list[Col]:
        """A table listed after "and" ("the names of authors and the books") shows its labels."""
        shown: list[Col] = []
        for m in self.mentions:
            prev = [
                t.text
                for t in self.tokens[max(0, m.start - 2) : m.start]
                if t.low not in ("the", "their", "its")
            ]
            table = self.res.table(m) if m.start not in self.used else None
            # "… and the books", "… and what book they wrote": the table's rows are shown
            if (
                table
                and prev[-1:] in (["and"], [","], ["what"], ["which"])
                and self.idx.labels[table]
            ):
                self.used.add(m.start)
                shown += [Col(table, c) for c in self.idx.labels[table]]
        return shown
