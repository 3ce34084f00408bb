"""Suggestions from a refusal: the layer entries that would let a refused question be answered.

A planner's refusal carries its reason as data (`errors.Refusal`, on the error's
`details["refusal"]`), whichever planner made it. Words that match nothing (UNKNOWN_TERM) suggest
`terms` entries mapping each word to the nearest columns, tables and stored values by name
similarity (difflib over names, their words and sampled values). Tables no join path connects
(NO_JOIN_PATH) suggest `relationships` entries: the candidates `describe` would propose between
them and, when names say nothing, pairs of same-kind columns whose values the data shows included
in a unique column of the other table — each checked in the data with describe's own inclusion
query. A run that asks which reading was meant (needs_clarification) suggests, per reading, the
`terms` entry giving the disputed word that reading's meaning ("'amount' here means
`payments.amount`"): a term decides for its word, so the question then has one reading.
`Session.teach` writes one into the layer file.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nl2sql.errors import ErrorCode, Refusal, RefusalCode

if TYPE_CHECKING:
    from nl2sql.datasources.base import DatasourceAdapter
    from nl2sql.result import QueryResult
    from nl2sql.schema.models import SchemaSnapshot, Table
    from nl2sql.schema.relationships import InferredRelationship

_PER_WORD = 3  # suggestions per unknown word
_CUTOFF = 0.6  # difflib ratio a name must reach to be suggested
_MAX_CHECKS = 24  # value-inclusion queries per refused join


@dataclass(frozen=True)
class Suggestion:
    """One layer entry that would fix a refusal: `entry` goes under `sources.<source>.<section>`."""

    text: str  # "map 'totals' to `purchases.total_usd`"
    source: str  # the datasource id the entry belongs to
    section: str  # "terms" | "relationships"
    entry: dict[str, Any] = field(hash=False)
    evidence: str = ""

    def layer(self) -> dict[str, Any]:
        """The entry as a whole layer mapping (what `connect(semantic=...)` takes)."""
        return {"sources": {self.source: {self.section: [dict(self.entry)]}}}


def suggestions(result: QueryResult) -> list[Suggestion]:
    """The suggestions for `result`'s refusals and disputed words (empty when it was refused for
    nothing teaching can fix)."""
    from nl2sql.clarify import datasource_of

    out: list[Suggestion] = []
    context = result.session.context
    for err in result.errors:
        refusal = Refusal.of(err)
        readings = err.details.get("candidates") if err.error_code == ErrorCode.CLARIFICATION_NEEDED else None
        ds = datasource_of(result, err.sub_query_id)
        if (refusal is None and not readings) or ds is None or ds not in context.datasources:
            continue
        # what the user may see only: a suggestion never names a column access rules deny
        access = result.session.governance.access_for(result.user or result.session.user)
        snapshot = access.filter(context.schemas.get(ds))
        if readings:
            out += reading_suggestions(readings, snapshot)
        elif refusal is not None and refusal.code == RefusalCode.UNKNOWN_TERM:
            for word in refusal.words:
                out += term_suggestions(word, snapshot)
        elif refusal is not None and refusal.code == RefusalCode.NO_JOIN_PATH:
            out += join_suggestions(context.datasources[ds], snapshot, refusal.tables, refusal.unreached)
        elif refusal is not None and refusal.code == RefusalCode.AMBIGUOUS_TERM and refusal.words:
            word = refusal.words[0].lower()
            evidence = f"'{word}' could mean {', '.join(refusal.means)}"
            out += [s for ref in refusal.means if (s := meaning_term(word, ref, snapshot, evidence))]
    unique: dict[str, Suggestion] = {}
    for s in out:
        unique.setdefault(s.text, s)
    return list(unique.values())


def reading_suggestions(readings: list[dict[str, Any]], snapshot: SchemaSnapshot) -> list[Suggestion]:
    """Per candidate reading (as the CLARIFICATION_NEEDED error lists them), the `terms` entries
    giving each disputed word the meaning that reading takes — for tables and columns the user
    may see."""
    out = []
    for number, reading in enumerate(readings, 1):
        meaning = reading.get("meaning") if isinstance(reading, dict) else None
        if not isinstance(meaning, dict):
            continue
        evidence = f"reading {number}: {reading.get('description', '')}"
        out += [s for word, ref in meaning.items()
                if (s := meaning_term(str(word), str(ref), snapshot, evidence))]
    return out


def meaning_term(word: str, ref: str, snapshot: SchemaSnapshot, evidence: str) -> Suggestion | None:
    """The `terms` entry saying `word` means `ref` (a table key, or `table.column`); None when
    `snapshot` (as access filtered it) has no such table or column."""
    table_key, _, column = ref.rpartition(".")
    if snapshot.table(ref) is None:
        table = snapshot.table(table_key) if table_key else None
        if table is None or table.column(column) is None:
            return None
    return Suggestion(f"'{word}' here means `{ref}`", snapshot.datasource_id, "terms",
                      {"term": word, "means": ref}, evidence)


def term_suggestions(word: str, snapshot: SchemaSnapshot) -> list[Suggestion]:
    """`terms` entries mapping `word` to the nearest tables, columns and stored values."""
    from nl2sql.schema.key_names import split_words

    scored: list[tuple[float, str, dict[str, Any], str]] = []
    low = word.lower()

    def ratio(name: str) -> float:
        parts = [name.lower(), *split_words(name)]
        return max(difflib.SequenceMatcher(None, low, p.lower()).ratio() for p in parts)

    for table in snapshot.tables:
        r = ratio(table.name)
        if r >= _CUTOFF:
            scored.append((r, f"`{table.key}`", {"term": word, "means": table.key},
                           f"'{word}' is like the table name {table.name} ({r:.2f})"))
        for col in table.columns:
            ref = f"{table.key}.{col.name}"
            r = ratio(col.name)
            if r >= _CUTOFF:
                scored.append((r, f"`{ref}`", {"term": word, "means": ref},
                               f"'{word}' is like the column name {col.name} ({r:.2f})"))
            for value in col.samples:
                r = difflib.SequenceMatcher(None, low, value.lower()).ratio()
                if r >= _CUTOFF:
                    scored.append((r, f"`{ref}` = '{value}'", {"term": word, "means": ref, "value": value},
                                   f"'{word}' is like the stored value '{value}' of {ref} ({r:.2f})"))
    scored.sort(key=lambda s: -s[0])
    return [Suggestion(f"map '{word}' to {target}", snapshot.datasource_id, "terms", entry, evidence)
            for _, target, entry, evidence in scored[:_PER_WORD]]


def join_suggestions(adapter: DatasourceAdapter, snapshot: SchemaSnapshot, left: list[str],
                     right: list[str]) -> list[Suggestion]:
    """`relationships` entries joining a table of `left` with one of `right`, checked in the data."""
    from nl2sql.semantic.candidates import candidates
    from nl2sql.semantic.describe import check_inclusion

    ends = {t.lower() for t in left}, {t.lower() for t in right}

    def between(c: InferredRelationship) -> bool:
        pair = {c.src.lower(), c.dst.lower()}
        return bool(pair & ends[0]) and bool(pair & ends[1])

    named = [c for c in candidates(snapshot) if between(c)]
    checked = [check_inclusion(adapter, snapshot, c) for c in named]
    holding = [c for c in checked if c.holds]
    if not holding:
        by_values = _value_candidates(snapshot, left, right)[:_MAX_CHECKS]
        holding = [c for c in (check_inclusion(adapter, snapshot, v) for v in by_values) if c.holds]
        holding.sort(key=lambda c: -c.found)
    out = []
    for c in holding[:_PER_WORD]:
        rel = c.candidate
        src, dst = f"{rel.src}.{rel.src_columns[0]}", f"{rel.dst}.{rel.dst_columns[0]}"
        entry = {"from": src, "to": dst, "cardinality": rel.cardinality}
        out.append(Suggestion(f"join `{src}` = `{dst}`", snapshot.datasource_id, "relationships",
                              entry, c.evidence()))
    return out


def _value_candidates(snapshot: SchemaSnapshot, left: list[str], right: list[str]) -> list[InferredRelationship]:
    """Same-kind column pairs, either way round, whose referenced column is unique: what only
    the data can confirm (text columns first: numbers include each other by chance)."""
    from nl2sql.schema.relationships import InferredRelationship
    from nl2sql.semantic.check import join_kind

    tables = {t.key.lower(): t for t in snapshot.tables}
    pairs = [(tables[a.lower()], tables[b.lower()]) for a in left for b in right
             if a.lower() in tables and b.lower() in tables]
    found: list[tuple[int, InferredRelationship]] = []
    for one, other in pairs:
        for src, dst in ((one, other), (other, one)):
            for col in src.columns:
                kind = join_kind(col)
                if kind not in ("text", "number"):
                    continue
                for key in dst.columns:
                    if join_kind(key) != kind or not _unique(dst, key.name):
                        continue
                    evidence = f"{key.name} is unique in {dst.name}"
                    found.append((0 if kind == "text" else 1, InferredRelationship(
                        src.key, (col.name,), dst.key, (key.name,), 0.0, (evidence,), "many-to-one")))
    return [rel for _, rel in sorted(found, key=lambda f: f[0])]


def _unique(table: Table, column: str) -> bool:
    col = table.column(column)
    rows = table.row_count or 0
    return bool(col is not None and rows and col.distinct_count and col.distinct_count >= rows)
