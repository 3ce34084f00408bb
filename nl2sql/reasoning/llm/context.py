"""Schema context for prompts: tables, columns (types, keys, sample values, descriptions) and
foreign-key join paths, bounded by a token budget.

Tables come in relevance order (the retriever's order for the planner). Every table starts in
full detail; while the text is over budget the least relevant table still in detail is made
leaner (no descriptions, two samples), then bare (one line of column names), and only then are
the least relevant tables dropped, named in a closing line while that fits. So a small schema is
shown whole and a 100-table schema still fits, its most relevant tables in full.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nl2sql.reasoning.llm.prompts import estimate_tokens
from nl2sql.schema.models import Column, SchemaSnapshot, Table

FULL, LEAN, BARE = 2, 1, 0
_SAMPLES = {FULL: 5, LEAN: 2, BARE: 0}
_SAMPLE_CHARS = 40


@dataclass(frozen=True)
class SchemaText:
    """A rendered schema context and how much of the schema it shows."""

    text: str
    tokens: int
    levels: dict[str, int]  # table key -> FULL / LEAN / BARE (dropped tables absent)
    dropped: tuple[str, ...] = ()


def render_schema(snapshot: SchemaSnapshot, budget_tokens: int, *, with_joins: bool = True) -> SchemaText:
    """The tables of `snapshot`, in order, within `budget_tokens` (see the module docstring)."""
    tables = list(snapshot.tables)
    joins = join_paths(tables) if with_joins else ""
    budget = max(0, budget_tokens - estimate_tokens(joins))
    levels = [FULL] * len(tables)
    texts = [render_table(t, FULL) for t in tables]
    sizes = [estimate_tokens(t) for t in texts]
    for target in (LEAN, BARE):
        for i in reversed(range(len(tables))):
            if sum(sizes) <= budget:
                break
            levels[i], texts[i] = target, render_table(tables[i], target)
            sizes[i] = estimate_tokens(texts[i])
    kept = len(tables)
    while kept > 1 and sum(sizes[:kept]) > budget:
        kept -= 1
    dropped = tuple(t.key for t in tables[kept:])
    parts = texts[:kept]
    if dropped:
        parts.append(_dropped_line(dropped, budget - sum(sizes[:kept])))
    if joins:
        parts.append(joins)
    text = "\n\n".join(p for p in parts if p)
    return SchemaText(text=text, tokens=estimate_tokens(text),
                      levels={t.key: lv for t, lv in zip(tables[:kept], levels[:kept], strict=True)},
                      dropped=dropped)


def render_table(table: Table, level: int) -> str:
    """One table at a detail level."""
    size = f", {table.row_count:,} rows" if table.row_count is not None else ""
    kind = " (view)" if table.kind == "view" else ""
    refs = _references(table)
    if level == BARE:
        cols = ", ".join(_bare_column(c, table, refs) for c in table.columns)
        return f"table {table.key}{kind}({cols})"
    head = f"table {table.key}{kind}{size}"
    if level == FULL and table.description:
        head += f" — {_one_line(table.description)}"
    if level == FULL and table.original_name and table.original_name != table.name:
        head += f' ("{table.original_name}")'
    lines = [head] + [f"  - {_column(c, table, refs, level)}" for c in table.columns]
    return "\n".join(lines)


def join_paths(tables: list[Table]) -> str:
    """The foreign keys between the given tables, one equality per line."""
    shown = {t.key.lower() for t in tables}
    lines = []
    for table in tables:
        for fk in table.foreign_keys:
            if fk.ref_table.lower() not in shown:
                continue
            pairs = " AND ".join(
                f"{table.key}.{a} = {fk.ref_table}.{b}" for a, b in zip(fk.columns, fk.ref_columns, strict=False)
            )
            lines.append(f"- {pairs}")
    return "Join paths (foreign keys):\n" + "\n".join(lines) if lines else ""


def render_sources(snapshots: Mapping[str, SchemaSnapshot], descriptions: Mapping[str, str],
                   budget_tokens: int) -> str:
    """Several datasources, each under its own heading, sharing the budget evenly."""
    share = budget_tokens // max(1, len(snapshots))
    blocks = []
    for ds, snapshot in snapshots.items():
        about = descriptions.get(ds) or snapshot.description or ""
        head = f"## datasource `{ds}` ({snapshot.dialect})" + (f" — {_one_line(about)}" if about else "")
        blocks.append(f"{head}\n\n{render_schema(snapshot, share).text}")
    return "\n\n".join(blocks)


def _references(table: Table) -> dict[str, str]:
    refs = {}
    for fk in table.foreign_keys:
        for a, b in zip(fk.columns, fk.ref_columns, strict=False):
            refs[a.lower()] = f"{fk.ref_table}.{b}"
    return refs


def _is_key(column: Column, table: Table) -> bool:
    return column.primary_key or column.name in table.primary_key


def _bare_column(column: Column, table: Table, refs: dict[str, str]) -> str:
    mark = " PK" if _is_key(column, table) else ""
    ref = refs.get(column.name.lower())
    return f"{column.name}{mark}" + (f" → {ref}" if ref else "")


def _column(column: Column, table: Table, refs: dict[str, str], level: int) -> str:
    text = f"{column.name} {column.type or '?'}"
    if _is_key(column, table):
        text += " primary key"
    if column.name.lower() in refs:
        text += f" → {refs[column.name.lower()]}"
    if level == FULL and column.original_name and column.original_name != column.name:
        text += f' ("{column.original_name}")'
    if level == FULL and column.description:
        text += f" — {_one_line(column.description)}"
    samples = [s for s in column.samples if s is not None][: _SAMPLES[level]]
    if samples:
        shown = ", ".join(repr(_clip(str(s))) for s in samples)
        more = (column.distinct_count or len(column.samples)) - len(samples)
        text += f"; values: {shown}" + (f" (+{more} more)" if more > 0 else "")
    return text


def _dropped_line(keys: tuple[str, ...], room: int) -> str:
    line = f"({len(keys)} less relevant tables not shown: "
    names: list[str] = []
    for key in keys:
        if estimate_tokens(line + ", ".join([*names, key]) + ")") > max(room, 40):
            break
        names.append(key)
    rest = len(keys) - len(names)
    return line + ", ".join(names) + (f", … {rest} more" if rest else "") + ")"


def _clip(text: str) -> str:
    return text if len(text) <= _SAMPLE_CHARS else text[: _SAMPLE_CHARS - 1] + "…"


def _one_line(text: str) -> str:
    return " ".join(text.split())[:200]
