"""Negation: "branches without any copies", "members who do not have an overdue loan", "authors
with no books" — rows of the root table for which no matching row exists.

What each negation word negates is its scope (`scopes.py`). When the scope names another table,
or a value, number or date of a table the root reaches only through rows it repeats, the
condition becomes an anti-join: `root.key NOT IN (SELECT root.key FROM root JOIN … WHERE <scope
conditions>)` (the sub-query starts from the root table, so the foreign-key path is the same one
the outer query would take). A negated value of the root itself stays a plain `!=` ("singers not
from France").
"""

from __future__ import annotations

from nl2sql.reasoning.offline.linking.linker import ValueMatch
from nl2sql.reasoning.offline.plan.joins import JoinError, connect
from nl2sql.reasoning.offline.shapes.comparisons import numeric_conditions
from nl2sql.reasoning.offline.shapes.conditions import value_conditions
from nl2sql.reasoning.offline.shapes.date_conditions import date_conditions
from nl2sql.reasoning.offline.shapes.ranking import Ranking
from nl2sql.reasoning.offline.shapes.scopes import Scope, is_negation, negation_scopes
from nl2sql.reasoning.offline.shapes.spec import Col, Query, Unclear
from nl2sql.reasoning.offline.words.dates import DateCond
from nl2sql.reasoning.offline.words.numeric import NumCue


class Negation(Ranking):
    """Anti-join conditions for negated scopes; `Analyzer` calls `negated_conditions`."""

    negations_done: set[int]  # negation cues an anti-join took (set by `Analyzer.run`)

    def reserve_negated_tables(self) -> None:
        """Table mentions inside a negation are not the question's entity: keep them aside."""
        self.scopes = negation_scopes(self.tokens)
        self.negated_mentions = {}
        for scope in self.scopes:
            for m in self.mentions:
                if scope.start <= m.start < scope.end and self.res.table(m):
                    self.negated_mentions[m.start] = scope
                    self.used.add(m.start)
            # "staff who never got a rebate in an audit": a column of a negated table describes
            # the rows excluded, it is not asked to be shown
            negated = {
                self.res.table(m)
                for m in self.mentions
                if self.negated_mentions.get(m.start) == scope
            }
            for m in self.mentions:
                if (
                    scope.start <= m.start < scope.end
                    and m.start not in self.used
                    and any(e.table in negated for e in m.columns())
                ):
                    self.used.add(m.start)

    def negated_conditions(self, q: Query) -> tuple[set[int], set[int], set[int]]:
        """Add anti-joins to q; return the value, numeric-cue and date token starts they used."""
        used_values: set[int] = set()
        used_nums: set[int] = set()
        used_dates: set[int] = set()
        for scope in getattr(self, "scopes", []):
            values = [v for v in self.link.values if scope.start <= v.start < scope.end]
            nums = [c for c in self.scan.nums if scope.start <= c.start < scope.end]
            dates = [
                d for d in self.scan.dates if d.tokens and scope.start <= min(d.tokens) < scope.end
            ]
            tables = [
                self.res.table(m)
                for m in self.mentions
                if self.negated_mentions.get(m.start) == scope and self.res.table(m) != q.root
            ]
            if not (tables or nums or dates) and not self._fans_out(q.root, values):
                continue  # a negated value of the root's own row: a plain != condition
            if not (tables or nums or dates or values):
                continue
            q.anti.append(self._anti_join(q, scope, tables, values, nums, dates))
            used_values |= {v.start for v in values}
            used_nums |= {c.start for c in nums}
            used_dates |= {min(d.tokens) for d in dates}
            self.negations_done.add(scope.cue)
            self.notes.append(
                f"'{self.tokens[scope.cue].text} {self._text(scope.start, scope.end)}': "
                f"{q.root} rows with no matching row"
            )
        return used_values, used_nums, used_dates

    def _anti_join(
        self,
        q: Query,
        scope: Scope,
        tables: list[str | None],
        values: list[ValueMatch],
        nums: list[NumCue],
        dates: list[DateCond],
    ) -> tuple[Col, Query]:
        pk = self.idx.pk(q.root)
        if len(pk) != 1:
            raise Unclear(f"{q.root} has no single-column key to exclude rows by")
        key = Col(q.root, pk[0])
        sub = Query(root=q.root, select=[(key, None)], joined=[t for t in tables if t])
        conds, notes, _ = value_conditions(
            values, self.mentions, self.res, self.tokens, self.used, self.replace, positive=True
        )
        nconds, having = numeric_conditions(
            nums, self.mentions, self.res, self.tokens, self.used, values
        )
        if having:
            raise Unclear(f"could not negate '{self._text(scope.cue, scope.end)}'")
        date_root = next((t for t in tables if t), q.root)
        sub.where = (
            conds
            + nconds
            + date_conditions(
                dates, self.mentions, self.res, date_root, self.tokens, self.used, self.notes
            )
        )
        self.notes += notes
        return key, sub

    def check_negations(self) -> None:
        """A negation no condition took ("never won", "do not have") would be silently dropped."""
        taken = set(self.scan.taken) | getattr(self, "negations_done", set())
        for v in self.link.values:
            taken.update(range(max(0, v.start - 3), v.start))
        for tok in self.tokens:
            if tok.index not in taken and (
                is_negation(tok) or tok.low in ("none", "neither", "nor")
            ):
                raise Unclear(
                    f"could not apply '{tok.text}' to a condition (negations are supported on values only)"
                )

    def _fans_out(self, root: str, values: list[ValueMatch]) -> bool:
        """Whether any value's table is reached from the root only through repeated rows."""
        for v in values:
            table = v.options[0][0] if v.options else root
            if table == root:
                continue
            try:
                if connect(self.idx, root, [table]).fans_out:
                    return True
            except JoinError:
                return True
        return False
