"""Follow-up questions as edits of the previous plan, read with the engine's own linking.

"And in 2023?" after "How many orders were placed in 2024?" is not a question of its own: its
date replaces the previous plan's date range. The words are read with the same tools the planner
uses (`find_dates`, `link` over the datasource's index, FK `joins.connect`), and each kind of
word becomes one edit of the PlanModel:

- a date or period → the plan's date range is replaced (or added on the root table's date column);
- a number after top/first/bottom (or "only N") → ORDER BY the measure, LIMIT N;
- a column or table after "by" → the grouping is replaced (or added);
- a stored value → an equality filter on its column is replaced; on a grouped column it is a
  drill-down filter on that group; otherwise the filter is added;
- any other column ("show their emails too") → it is added to the projection.

Nothing is guessed: a word the edits do not explain, or a table no foreign key reaches, makes the
whole follow-up unresolved (`FollowUpEdit.problem`), and the session refuses it with that reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from nl2sql.plan import (
    Between,
    BoolOp,
    ColumnRef,
    Comparison,
    Expr,
    InList,
    Join,
    Literal_,
    OrderItem,
    PlanModel,
    SelectItem,
    Star,
    TableRef,
    is_aggregate,
)
from nl2sql.reasoning.base import ValueLookup
from nl2sql.reasoning.offline.catalog.index import Element, SchemaIndex
from nl2sql.reasoning.offline.linking.linker import link
from nl2sql.reasoning.offline.plan.joins import JoinError, connect
from nl2sql.reasoning.offline.words.dates import DateCond, find_dates
from nl2sql.reasoning.offline.words.text import STOP, Token, tokenize

#: Words that frame a follow-up ("and", "what about", "instead", "too") or a drill-down ("why is
#: X so high"), explained by being a follow-up rather than by the schema.
FRAME_WORDS = frozenset({
    "and", "what", "about", "how", "only", "just", "instead", "also", "now", "but", "then", "too",
    "show", "add", "include", "with", "their", "them", "those", "these", "they", "it", "its",
    "why", "is", "are", "was", "were", "so", "same", "again", "as", "well", "please", "me",
    "rather", "than", "for", "in", "of", "the", "a", "an", "by", "per", "top", "first", "bottom",
    "high", "low", "big", "small", "large", "many", "much", "few",
})
_RANK_DESC = frozenset({"top", "first", "highest", "most", "largest"})
_RANK_ASC = frozenset({"bottom", "lowest", "least", "smallest", "fewest"})


@dataclass
class FollowUpEdit:
    """The edited plan and one line per edit ("year 2024 → 2023"), or the reason it is not."""

    plan: PlanModel | None = None
    edits: list[str] = field(default_factory=list)
    problem: str | None = None


def resolve(text: str, previous: PlanModel, idx: SchemaIndex,
            lookup: ValueLookup | None = None) -> FollowUpEdit:
    """Apply the follow-up `text` to `previous` (a plan on `idx`'s datasource)."""
    tokens = tokenize(text)
    editor = _Editor(previous.model_copy(deep=True), idx)
    dates = find_dates(tokens)
    used = {i for d in dates for i in d.tokens}
    for d in dates:
        editor.date(d)
    used |= editor.top(tokens)
    linking = link(tokens, idx, used, lookup)
    by_at = {t.index for t in tokens if t.low in ("by", "per")}
    for value in linking.values:
        if value.negated:  # "except Texas" is a new condition, not an edit of one: not guessed
            editor.problem = editor.problem or f"'{value.text}' is negated"
            continue
        editor.value(value.text, value.options)
    for mention in linking.mentions:
        after_by = mention.start - 1 in by_at
        editor.mention(mention.text, mention.candidates, grouping=after_by)
    unexplained = [t.text for t in linking.unexplained if t.low not in FRAME_WORDS | STOP]
    if editor.problem is None and unexplained:
        editor.problem = f"'{' '.join(unexplained)}' is not something I can change in it"
    if editor.problem is None and not editor.edits:
        editor.problem = "it names no date, value, column, grouping or limit to change"
    if editor.problem is not None:
        return FollowUpEdit(problem=editor.problem)
    return FollowUpEdit(plan=editor.plan, edits=editor.edits)


class _Editor:
    """Edits one plan in place; the first thing it cannot do is its `problem`."""

    def __init__(self, plan: PlanModel, idx: SchemaIndex):
        self.plan, self.idx = plan, idx
        self.edits: list[str] = []
        self.problem: str | None = None
        self.filtered: set[tuple[str, str]] = set()  # (table, column) a value edit used

    # -- dates --------------------------------------------------------------------------------
    def date(self, d: DateCond) -> None:
        if d.start is None or d.end is None:
            self.problem = self.problem or f"'{d.text}' is not a closed period"
            return
        new = Between(expr=ColumnRef(name="?"), low=Literal_(value=d.start.isoformat()),
                      high=Literal_(value=(d.end - timedelta(days=1)).isoformat()))
        for cond in _conjuncts(self.plan.where):
            if isinstance(cond, Between) and self._is_date(cond.expr):
                before = _period(cond)
                cond.low, cond.high = new.low, new.high
                self.edits.append(f"{_period_kind(before, cond)} {before} → {_period(cond)}")
                return
            if d.year is not None and isinstance(cond, Comparison) and cond.op == "=" \
                    and self._is_year(cond.left) and isinstance(cond.right, Literal_):
                before_year, cond.right = cond.right.value, Literal_(value=d.year)
                self.edits.append(f"year {before_year} → {d.year}")
                return
        root = self.plan.tables[0]
        dates = self.idx.date_columns(root.name) if root.name in self.idx.tables else []
        years = [c.name for c in self.idx.tables[root.name].columns
                 if self._is_year(ColumnRef(table=root.alias, name=c.name))] if root.name in self.idx.tables else []
        if dates:
            new.expr = ColumnRef(table=root.alias, name=dates[0])
            self._add_filter(new)
            self.edits.append(f"{dates[0]} in {_period(new)} added")
        elif years and d.year is not None:
            self._add_filter(Comparison(op="=", left=ColumnRef(table=root.alias, name=years[0]),
                                        right=Literal_(value=d.year)))
            self.edits.append(f"{years[0]} = {d.year} added")
        else:
            self.problem = self.problem or f"the previous plan has no date to set to '{d.text}'"

    def _is_year(self, expr: Expr) -> bool:
        """A whole-number column named as a year (the planner's convention for year columns)."""
        if not isinstance(expr, ColumnRef):
            return False
        table = self.plan.alias_map().get(expr.table or self.plan.tables[0].alias)
        return table is not None and self.idx.kind(table, expr.name) == "number" \
            and "year" in self.idx.col_words.get((table, expr.name), ())

    def _is_date(self, expr: Expr) -> bool:
        if not isinstance(expr, ColumnRef):
            return False
        table = self.plan.alias_map().get(expr.table or self.plan.tables[0].alias)
        return table is not None and self.idx.kind(table, expr.name) == "date"

    # -- order and limit ----------------------------------------------------------------------
    def top(self, tokens: list[Token]) -> set[int]:
        """"top 5" / "only the first 3" / "bottom 2": the tokens it consumed."""
        for i, tok in enumerate(tokens):
            if tok.kind != "number" or not tok.text.isdigit():
                continue
            words = [t.low for t in tokens[max(0, i - 3):i]]
            rank = next((w for w in reversed(words) if w in _RANK_DESC | _RANK_ASC), None)
            if rank is None and "only" not in words and "just" not in words:
                continue
            self._limit(int(tok.text), "asc" if rank in _RANK_ASC else "desc")
            return {t.index for t in tokens[max(0, i - 3):i + 1]}
        return set()

    def _limit(self, n: int, direction: str) -> None:
        measure = next((s.expr for s in self.plan.select if is_aggregate(s.expr)), None)
        if measure is not None and not self.plan.group_by:
            self.problem = self.problem or f"the previous answer is one number: there is no {n} to keep"
            return
        if measure is not None:  # rank by the measure, whatever the answer was sorted by
            self.plan.order_by = [OrderItem(expr=measure.model_copy(deep=True),
                                            direction="asc" if direction == "asc" else "desc")]
        elif not self.plan.order_by:  # a list: its first rows in key order (a stable "first N")
            root = self.plan.tables[0]
            keys = self.idx.pk(root.name) if root.name in self.idx.tables else []
            if not keys or direction == "asc":
                self.problem = self.problem or f"the previous answer has no measure to rank for top {n}"
                return
            self.plan.order_by = [OrderItem(expr=ColumnRef(table=root.alias, name=k)) for k in keys]
        before = self.plan.limit
        self.plan.limit = n
        word = "bottom" if direction == "asc" else "top"
        self.edits.append(f"limit {before} → {n}" if before is not None else f"{word} {n}")

    # -- values: replace a filter, drill into a group, or add one ------------------------------
    def value(self, text: str, options: list[tuple[str, str, str]]) -> None:
        self.filtered.update((table, column) for table, column, _ in options)
        for table, column, stored in options:
            for cond in _conjuncts(self.plan.where):
                if self._replace_value(cond, table, column, stored):
                    return
        for table, column, stored in options:
            ref = self._column(table, column, join=False)
            if ref is not None and any(_same(ref, g) for g in self.plan.group_by):
                self._add_filter(Comparison(op="=", left=ref, right=Literal_(value=stored)))
                self.plan.limit = None  # the group drilled into, whatever rank it had
                self.edits.append(f"drill-down: {column} = {stored}")
                return
        for table, column, stored in options:
            ref = self._column(table, column, join=True)
            if ref is not None:
                self._add_filter(Comparison(op="=", left=ref, right=Literal_(value=stored)))
                self.edits.append(f"filter {column} = {stored} added")
                return
        self.problem = self.problem or f"'{text}' cannot be joined to the previous answer's tables"

    def _replace_value(self, cond: Expr, table: str, column: str, stored: str) -> bool:
        target = self._column(table, column, join=False)
        if target is None:
            return False
        if isinstance(cond, Comparison) and cond.op in ("=", "!=") and _same(cond.left, target) \
                and isinstance(cond.right, Literal_):
            before, cond.right = cond.right.value, Literal_(value=stored)
            self.edits.append(f"{column} {before} → {stored}")
            return True
        if isinstance(cond, InList) and _same(cond.expr, target) and cond.values:
            before_values = ", ".join(str(v.value) for v in cond.values if isinstance(v, Literal_))
            cond.values = [Literal_(value=stored)]
            self.edits.append(f"{column} {before_values} → {stored}")
            return True
        return False

    # -- columns: a new grouping, or one more column shown --------------------------------------
    def mention(self, text: str, candidates: list[Element], *, grouping: bool) -> None:
        element = candidates[0] if candidates else None
        if element is None:
            return
        if (element.table, element.column) in self.filtered:
            return  # "what about state Texas?": the column names the value's filter
        in_plan = any(t.name == element.table for t in self.plan.tables)
        if element.column is None and not grouping:
            if not in_plan:  # "and the stores?": another subject, not an edit of this answer
                self.problem = self.problem or f"'{text}' is not part of the previous answer"
            return  # the answer's own subject, named again ("what about Texas customers?")
        if element.column is None:  # a table: its label columns (and key) stand for it
            shown = self.idx.labels.get(element.table) or self.idx.pk(element.table)
            keys = self.idx.pk(element.table)
        else:
            shown, keys = [element.column], []
        refs = [self._column(element.table, c, join=True) for c in dict.fromkeys([*keys, *shown])]
        if any(r is None for r in refs):
            self.problem = self.problem or f"'{text}' cannot be joined to the previous answer's tables"
            return
        cols = [r for r in refs if r is not None]
        shown_refs = [r for r in cols if r.name in shown]
        if grouping:
            self._group(text, cols, shown_refs)
        else:
            self._show(text, shown_refs)

    def _group(self, text: str, cols: list[ColumnRef], shown: list[ColumnRef]) -> None:
        if not any(is_aggregate(s.expr) for s in self.plan.select):
            self.problem = self.problem or f"the previous answer has no measure to give by {text}"
            return
        before = [s.alias or _name(s.expr) for s in self.plan.select if not is_aggregate(s.expr)]
        measures = [s for s in self.plan.select if is_aggregate(s.expr)]
        self.plan.select = [SelectItem(expr=c, alias=c.name) for c in shown] + measures
        self.plan.group_by = list(cols)
        if not any(is_aggregate(o.expr) for o in self.plan.order_by):
            self.plan.order_by = [OrderItem(expr=c) for c in shown]
        self.edits.append(f"grouped by {', '.join(before)} → {', '.join(c.name for c in shown)}"
                          if before else f"grouped by {', '.join(c.name for c in shown)}")

    def _show(self, text: str, shown: list[ColumnRef]) -> None:
        added = []
        for ref in shown:
            if any(_same(s.expr, ref) or (isinstance(s.expr, Star) and s.expr.table in (None, ref.table))
                   for s in self.plan.select):
                continue
            self.plan.select.append(SelectItem(expr=ref, alias=ref.name))
            if self.plan.group_by:
                self.plan.group_by.append(ref)
            added.append(ref.name)
        if added:
            self.edits.append(f"column {', '.join(added)} added")
        elif not self.edits:
            self.edits.append(f"{text} is shown already")

    # -- helpers ------------------------------------------------------------------------------
    def _column(self, table: str, column: str, *, join: bool) -> ColumnRef | None:
        """A reference to table.column in the plan, joining its table along FKs when `join`."""
        for ref in self.plan.tables:
            if ref.name == table:
                return ColumnRef(table=ref.alias, name=column)
        if not join:
            return None
        names = [t.name for t in self.plan.tables]
        try:
            tree = connect(self.idx, names[0], [*names[1:], table])
        except JoinError:
            return None
        alias = {t.name: t.alias for t in self.plan.tables}
        for step in tree.steps:
            if step.table in alias:
                continue
            alias[step.table] = f"f{len(alias) + 1}"
            self.plan.tables.append(TableRef(name=step.table, alias=alias[step.table]))
            on = [Comparison(op="=", left=ColumnRef(table=alias[a], name=ca),
                             right=ColumnRef(table=alias[b], name=cb)) for a, ca, b, cb in step.pairs()]
            self.plan.joins.append(Join(alias=alias[step.table],
                                        on=on[0] if len(on) == 1 else BoolOp(op="and", items=list(on))))
        return ColumnRef(table=alias[table], name=column) if table in alias else None

    def _add_filter(self, cond: Expr) -> None:
        where = self.plan.where
        if where is None:
            self.plan.where = cond
        elif isinstance(where, BoolOp) and where.op == "and":
            where.items.append(cond)
        else:
            self.plan.where = BoolOp(op="and", items=[where, cond])


def _conjuncts(where: Expr | None) -> list[Expr]:
    if where is None:
        return []
    if isinstance(where, BoolOp) and where.op == "and":
        return [c for item in where.items for c in _conjuncts(item)]
    return [where]


def _same(a: Expr, b: Expr) -> bool:
    return isinstance(a, ColumnRef) and isinstance(b, ColumnRef) and (a.table, a.name) == (b.table, b.name)


def _name(expr: Expr) -> str:
    return expr.name if isinstance(expr, ColumnRef) else expr.kind


def _period(cond: Between) -> str:
    low = cond.low.value if isinstance(cond.low, Literal_) else "?"
    high = cond.high.value if isinstance(cond.high, Literal_) else "?"
    if isinstance(low, str) and isinstance(high, str) and low[4:] == "-01-01" and high[4:] == "-12-31" \
            and low[:4] == high[:4]:
        return low[:4]
    return f"{low}..{high}"


def _period_kind(before: str, cond: Between) -> str:
    return "year" if len(before) == 4 and len(_period(cond)) == 4 else "dates"
