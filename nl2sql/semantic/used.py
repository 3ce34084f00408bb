"""Which entries of the semantic layer a plan used: what the Plan tab, the HTML and the text show.

* a relationship: a join (or any `a = b` between two tables' columns) on the columns of a foreign
  key the layer added (`ForeignKey.from_layer`), either way round;
* a term: its words are in the question (stemmed by the offline engine's own stemmer, so
  "clients" finds the term "client", but synonyms do not: "customers" names the table itself)
  and what it means is in the plan — its table read, its column referenced, its value compared;
* a metric: a plan expression node whose `kind` is "metric", by its `name`.

Pure functions of the plan, the question and the annotated snapshot; `QueryResult.layer_used`
calls them on first use, never during a run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel

from nl2sql.plan import ColumnRef, PlanModel, PlanScope, clause_expressions, plan_scopes, walk

if TYPE_CHECKING:
    from nl2sql.result import QueryResult
    from nl2sql.schema.models import Column, SchemaSnapshot, SemanticTerm, Table

Kind = Literal["term", "metric", "relationship"]
_ORDER = {"term": 0, "metric": 1, "relationship": 2}


@dataclass(frozen=True)
class LayerEntry:
    """One layer entry a plan used: `term 'client' → customers`."""

    kind: Kind
    name: str  # the term, the metric's name, or the referencing column `orders.cust_ref`
    means: str  # the table, column, value, aggregate or referenced column it stands for

    def __str__(self) -> str:
        name = self.name if self.kind == "relationship" else f"'{self.name}'"
        return f"{self.kind} {name}" + (f" → {self.means}" if self.means else "")


def summary(entries: list[LayerEntry]) -> str:
    """One line: "Semantic layer used: term 'client' → customers; relationship …" ('' for none)."""
    return "Semantic layer used: " + "; ".join(map(str, entries)) if entries else ""


def layer_used(plan: PlanModel, question: str, snapshot: SchemaSnapshot) -> list[LayerEntry]:
    """The terms, metrics and relationships of `snapshot`'s layer that `plan` used for `question`."""
    found = _metrics(plan, snapshot)
    layered = any(t.semantic is not None or any(f.from_layer for f in t.foreign_keys) for t in snapshot.tables)
    if layered:
        use = _PlanUse(plan, snapshot)
        found += _terms(use, question, snapshot) + use.relationships
    unique = list(dict.fromkeys(found))
    return sorted(unique, key=lambda e: _ORDER[e.kind])


def result_layer_use(result: QueryResult) -> dict[str, list[LayerEntry]]:
    """Per sub-query id (in the result's order), the layer entries its plan used; sub-queries
    that used none, or ran without a plan, are left out."""
    context = result.session.context
    access = result.session.governance.access_for(result.user or result.session.user)
    planned = result.decomposition.sub_queries if result.decomposition is not None else []
    order = {sq.id: i for i, sq in enumerate(planned)}  # branches finish in any order
    out: dict[str, list[LayerEntry]] = {}
    outputs = sorted(result.sub_queries, key=lambda o: order.get(o.sub_query.id if o.sub_query else "", -1))
    for output in outputs:
        sq = output.sub_query
        if output.plan is None or sq is None or sq.datasource_id not in context.datasources:
            continue
        snapshot = access.filter(context.schemas.get(sq.datasource_id))
        entries = layer_used(output.plan, f"{result.question} {sq.intent}", snapshot)
        if entries:
            out[sq.id] = entries
    return out


class _PlanUse:
    """What a plan reads, resolved against the snapshot: tables, columns, compared values, and
    the layer relationships its equalities follow."""

    def __init__(self, plan: PlanModel, snapshot: SchemaSnapshot):
        self.tables: set[str] = set()
        self.columns: set[tuple[str, str]] = set()
        self.values: set[str] = set()
        self.relationships: list[LayerEntry] = []
        for scope in plan_scopes(plan, snapshot):
            self.tables |= {t.key.lower() for t in scope.tables.values() if t is not None and t.kind != "derived"}
            for _, node in clause_expressions(scope.plan):
                self._read(scope, node)

    def _read(self, scope: PlanScope, node: BaseModel) -> None:
        if isinstance(node, ColumnRef):
            ref = _resolve(scope, node)
            if ref is not None:
                self.columns.add((ref[0].key.lower(), ref[1].name.lower()))
        value = getattr(node, "value", None) if getattr(node, "kind", None) == "literal" else None
        if isinstance(value, str):
            self.values.add(value.casefold())
        pattern = getattr(node, "pattern", None) if getattr(node, "kind", None) == "like" else None
        if isinstance(pattern, str):
            self.values.add(pattern.strip("%").casefold())
        left, right = getattr(node, "left", None), getattr(node, "right", None)
        if getattr(node, "op", None) == "=" and isinstance(left, ColumnRef) and isinstance(right, ColumnRef):
            ends = _resolve(scope, left), _resolve(scope, right)
            if ends[0] is not None and ends[1] is not None:
                entry = _relationship(*ends[0], *ends[1]) or _relationship(*ends[1], *ends[0])
                if entry is not None:
                    self.relationships.append(entry)


def _resolve(scope: PlanScope, ref: ColumnRef) -> tuple[Table, Column] | None:
    """The snapshot table and column a reference names (None: a derived table's, or ambiguous)."""
    level: PlanScope | None = scope
    while level is not None:
        if ref.table is not None:
            declared = level.declared(ref.table)
            table = declared[1] if declared is not None else None
        else:
            owners = level.owners(ref.name)
            table = owners[0][1] if len(owners) == 1 else None
        column = table.column(ref.name) if table is not None and table.kind != "derived" else None
        if table is not None and column is not None:
            return table, column
        if ref.table is not None:
            return None
        level = level.outer
    return None


def _relationship(child: Table, child_col: Column, parent: Table, parent_col: Column) -> LayerEntry | None:
    for fk in child.foreign_keys:
        if (fk.from_layer and [c.lower() for c in fk.columns] == [child_col.name.lower()]
                and fk.ref_table.lower() == parent.key.lower()
                and [c.lower() for c in fk.ref_columns] == [parent_col.name.lower()]):
            return LayerEntry("relationship", f"{child.key}.{child_col.name}", f"{parent.key}.{parent_col.name}")
    return None


def _terms(use: _PlanUse, question: str, snapshot: SchemaSnapshot) -> list[LayerEntry]:
    asked = _words(question)
    found = []
    for table in snapshot.tables:
        if table.semantic is None or table.key.lower() not in use.tables:
            continue
        for term in table.semantic.terms:
            if _used(term, table, use) and _phrase_in(_words(term.term), asked):
                found.append(LayerEntry("term", term.term, _meaning(term, table)))
    return found


def _used(term: SemanticTerm, table: Table, use: _PlanUse) -> bool:
    if term.column is None:
        return True  # the table is read
    if (table.key.lower(), term.column.lower()) not in use.columns:
        return False
    return term.value is None or term.value.casefold() in use.values


def _meaning(term: SemanticTerm, table: Table) -> str:
    if term.column is None:
        return table.key
    ref = f"{table.key}.{term.column}"
    if term.value is not None:
        return f"{ref} = '{term.value}'"
    return f"{ref} {term.order}" if term.order else ref


def _words(text: str) -> list[str]:
    from nl2sql.reasoning.offline.words.text import tokenize

    return [t.stem for t in tokenize(text) if t.kind in ("word", "number", "quoted")]


def _phrase_in(phrase: list[str], words: list[str]) -> bool:
    n = len(phrase)
    return n > 0 and any(words[i:i + n] == phrase for i in range(len(words) - n + 1))


def _metrics(plan: PlanModel, snapshot: SchemaSnapshot) -> list[LayerEntry]:
    """Every node of kind "metric" (nested plans included), with the aggregate the layer defines."""
    defined = {m.name.lower(): (m, t) for t in snapshot.tables if t.semantic for m in t.semantic.metrics}
    found = []
    for node in walk(plan):
        name = getattr(node, "name", None)
        if getattr(node, "kind", None) != "metric" or not isinstance(name, str):
            continue
        known = defined.get(name.lower())
        means = f"{known[0].expression} on {known[1].key}" if known else ""
        found.append(LayerEntry("metric", known[0].name if known else name, means))
    return found
