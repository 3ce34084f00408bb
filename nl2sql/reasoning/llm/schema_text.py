"""Schema context for prompts: tables, columns (types, keys, sample values, descriptions) and
foreign-key join paths, bounded by a token budget.

Tables come in relevance order (the retriever's order for the planner). A table is shown at one
of three levels: full (types, keys, descriptions, five sample values), lean (no descriptions,
two samples) or bare (one line of column names); `plan_levels` gives the most relevant tables
the most detail the budget allows and lists as many others as fit; the rest are named in a
closing line while that fits. So a small schema is shown whole and a 100-table schema still
fits, its most relevant tables in detail.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nl2sql.errors import safe_one_line
from nl2sql.reasoning.llm.templates import estimate_tokens
from nl2sql.schema.models import Column, SchemaSnapshot, Table

FULL, LEAN, BARE = 2, 1, 0
_SAMPLES = {FULL: 5, LEAN: 2, BARE: 0}
_SAMPLE_CHARS = 40
_DROPPED_RESERVE = 60  # tokens kept for the "(N less relevant tables not shown: …)" line


@dataclass(frozen=True)
class SchemaText:
    """A rendered schema context and how much of the schema it shows."""

    text: str
    tokens: int
    levels: dict[str, int]  # table key -> FULL / LEAN / BARE (dropped tables absent)
    dropped: tuple[str, ...] = ()


def render_schema(
    snapshot: SchemaSnapshot, budget_tokens: int, *, with_joins: bool = True
) -> SchemaText:
    """The tables of `snapshot`, in order, within `budget_tokens` (see the module docstring)."""
    tables = list(snapshot.tables)
    joins = join_paths(tables) if with_joins else ""
    budget = max(0, budget_tokens - _cost(joins))
    texts = [{lv: render_table(t, lv) for lv in (FULL, LEAN, BARE)} for t in tables]
    sizes = [{lv: _cost(text) for lv, text in variants.items()} for variants in texts]
    if sum(s[BARE] for s in sizes) > budget:
        budget -= _DROPPED_RESERVE  # room for the line naming what is left out
    levels = plan_levels(sizes, budget)
    kept = len(levels)
    dropped = tuple(t.key for t in tables[kept:])
    parts = [texts[i][lv] for i, lv in enumerate(levels)]
    if dropped:
        parts.append(
            _dropped_line(dropped, _DROPPED_RESERVE + budget - sum(_cost(p) for p in parts))
        )
    if joins:
        parts.append(joins)
    text = "\n\n".join(parts)
    return SchemaText(
        text=text,
        tokens=estimate_tokens(text),
        levels={t.key: lv for t, lv in zip(tables[:kept], levels, strict=True)},
        dropped=dropped,
    )


def plan_levels(sizes: list[dict[int, int]], budget: int) -> list[int]:
    """Detail level per table, in relevance order, for the first tables that fit `budget`.

    Tables are listed bare first (all of them when they fit, else within half the budget so
    the most relevant can still be detailed); then, from the most relevant down, each is made
    FULL or LEAN while that fits, detail never increasing down the list; whatever is left
    lists more tables bare.
    """
    n = len(sizes)
    bare_all = sum(s[BARE] for s in sizes)
    cap = budget if bare_all <= budget else budget // 2
    levels: list[int] = []
    used = 0
    while len(levels) < n and used + sizes[len(levels)][BARE] <= cap:
        used += sizes[len(levels)][BARE]
        levels.append(BARE)
    ceiling = FULL
    for i in range(len(levels)):
        for level in (FULL, LEAN):
            extra = sizes[i][level] - sizes[i][BARE]
            if level <= ceiling and used + extra <= budget:
                levels[i], used = level, used + extra
                break
        ceiling = levels[i]
        if ceiling == BARE:
            break
    while len(levels) < n and used + sizes[len(levels)][BARE] <= budget:
        used += sizes[len(levels)][BARE]
        levels.append(BARE)
    return levels or ([BARE] if n else [])


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
        head += f" — {safe_one_line(table.description, 200, whole=True)}"
    if level == FULL and table.original_name and table.original_name != table.name:
        head += f' ("{table.original_name}")'
    lines = [head] + [f"  - {_column(c, table, refs, level)}" for c in table.columns]
    return "\n".join(lines + semantic_lines(table))


def semantic_lines(table: Table) -> list[str]:
    """What the analyst's semantic layer says about the table: its terms, metrics and labels."""
    sem = table.semantic
    if sem is None:
        return []
    out = []
    terms = [_term(t.term, t.column, t.value, t.order, table.key) for t in sem.terms]
    if terms:
        out.append(f"  terms: {'; '.join(terms)}")
    for m in sem.metrics:
        about = f" — {safe_one_line(m.description, 120, whole=True)}" if m.description else ""
        out.append(f"  metric {m.name} = {m.expression} (one value per group of {table.key} rows){about}")
    if sem.labels:
        out.append(f"  show rows by: {', '.join(sem.labels)}")
    return out


def _term(word: str, column: str | None, value: str | None, order: str | None, table: str) -> str:
    if column is None:
        return f'"{word}" means table {table}'
    if value is not None:
        return f'"{word}" means {column} = {value!r}'
    if order is not None:
        return f'"{word}" means ordered by {column} {order.upper()}'
    return f'"{word}" means {column}'


def join_paths(tables: list[Table]) -> str:
    """The foreign keys between the given tables, one equality per line."""
    shown = {t.key.lower() for t in tables}
    lines = []
    for table in tables:
        for fk in table.foreign_keys:
            if fk.ref_table.lower() not in shown:
                continue
            pairs = " AND ".join(
                f"{table.key}.{a} = {fk.ref_table}.{b}"
                for a, b in zip(fk.columns, fk.ref_columns, strict=False)
            )
            # many-to-one goes without saying; a layer's one-to-one join repeats no rows
            said = f" ({fk.cardinality})" if fk.cardinality != "many-to-one" else ""
            lines.append(f"- {pairs}{said}")
    return "Join paths (foreign keys):\n" + "\n".join(lines) if lines else ""


def render_sources(
    snapshots: Mapping[str, SchemaSnapshot], descriptions: Mapping[str, str], budget_tokens: int
) -> str:
    """Several datasources, each under its own heading, sharing the budget evenly."""
    share = budget_tokens // max(1, len(snapshots))
    blocks = []
    for ds, snapshot in snapshots.items():
        about = descriptions.get(ds) or snapshot.description or ""
        head = f"## datasource `{ds}` ({snapshot.dialect})" + (
            f" — {safe_one_line(about, 200, whole=True)}" if about else ""
        )
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
        text += f" — {safe_one_line(column.description, 200, whole=True)}"
    sem = table.semantic
    if sem is not None and column.name in sem.units:
        text += f" [unit: {sem.units[column.name]}]"
    if sem is not None and column.name in sem.hidden:
        text += " (hidden: never select it)"
    if sem is not None and level == FULL and sem.values.get(column.name):
        text += f" values: {', '.join(map(repr, sem.values[column.name][:12]))}"
    cap = _SAMPLES[level]
    if (
        column.distinct_count
        and table.row_count
        and column.distinct_count > max(20, table.row_count / 2)
    ):
        cap = min(cap, 2)  # near-unique values (names, emails) only show their format
    samples = [s for s in column.samples if s is not None][:cap]
    if samples:
        shown = ", ".join(repr(_clip(str(s))) for s in samples)
        more = (column.distinct_count or len(column.samples)) - len(samples)
        text += f"; values: {shown}" + (f" (+{more} more)" if more > 0 else "")
    return text


def _cost(text: str) -> int:
    """Tokens of one part, its separator from the next included."""
    return estimate_tokens(text + "\n\n") if text else 0


def _dropped_line(keys: tuple[str, ...], room: int) -> str:
    line = f"({len(keys)} less relevant tables not shown: "
    names: list[str] = []
    for key in keys:
        if estimate_tokens(line + ", ".join([*names, key]) + ", … 9999 more)") > max(room, 20):
            break
        names.append(key)
    rest = len(keys) - len(names)
    return line + ", ".join(names) + (f", … {rest} more" if rest else "") + ")"


def _clip(text: str) -> str:
    return text if len(text) <= _SAMPLE_CHARS else text[: _SAMPLE_CHARS - 1] + "…"
