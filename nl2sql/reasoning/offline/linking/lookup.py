"""Value look-ups in the data for words the schema and the samples do not explain.

Value-like words (capitalized, or after "in/from/named/is …") are looked up in the mentioned tables
and, only when nothing is found there, in their foreign-key neighbours; other nouns only in the
mentioned tables, with a small budget. Only an exact case-insensitive match (or its singular)
links. A value-like word close to a stored value (a typo) is kept as written on that column.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from nl2sql.reasoning.base import ValueLookup
from nl2sql.reasoning.llm.run_limits import checkpoint
from nl2sql.reasoning.offline.catalog.index import SchemaIndex
from nl2sql.reasoning.offline.catalog.naming import normalize_value
from nl2sql.reasoning.offline.linking.mentions import Linking, ValueMatch, looks_like_value, spans
from nl2sql.reasoning.offline.words.text import FRAME, Token, parts_of_speech

_MAX_LOOKUPS = 40
_MAX_PLAIN_LOOKUPS = 8  # for words that do not look like values
_CLOSE = 0.75  # difflib ratio above which a word is read as a misspelt stored value


def lookup_tables(idx: SchemaIndex, linking: Linking) -> list[str]:
    """Tables whose text columns may hold an unexplained value: mentioned ones, then FK neighbours."""
    base = linking.mentioned_tables()
    for m in linking.mentions:
        for e in m.columns()[:1]:
            if e.table not in base:
                base.append(e.table)
    out = list(base)
    for edge in sorted(idx.edges, key=lambda e: e.rank):
        for a, b in ((edge.src, edge.dst), (edge.dst, edge.src)):
            if a in base and b not in out:
                out.append(b)
    return out


def lookup_words(
    tokens: list[Token],
    idx: SchemaIndex,
    rest: list[Token],
    used: set[int],
    out: Linking,
    lookup: ValueLookup,
) -> None:
    """Look unexplained words up in the data: value-like ones in the mentioned tables and their
    FK neighbours, other words only in the mentioned tables (fewer round trips)."""
    groups = spans([t for t in rest if t.low not in FRAME])
    near = lookup_tables(idx, out)
    named = [t for t in near if t in out.mentioned_tables()] or near[:1]
    for span in groups[:4]:
        if any(looks_like_value(tokens, t) for t in span):
            tables = near
        elif out.lookups < _MAX_PLAIN_LOOKUPS and not any(
            t.low.endswith(("ed", "ing")) for t in span
        ):
            tables = named  # a lower-case noun may still be a stored value ("urgent tickets")
        else:
            continue
        for needle_tokens in [span] + ([[t] for t in span] if len(span) > 1 else []):
            if any(t.index in used for t in needle_tokens):
                continue
            needle = " ".join(t.text for t in needle_tokens)
            options = _search(idx, tables, needle, lookup, out)
            if options:
                start, end = needle_tokens[0].index, needle_tokens[-1].index + 1
                out.values.append(ValueMatch(start, end, needle, options, "lookup"))
                used.update(range(start, end))
    for v in out.values:
        if v.source == "quoted" and not v.options:
            v.options = _search(idx, near, v.text, lookup, out)


def _search(
    idx: SchemaIndex, tables: list[str], needle: str, lookup: ValueLookup, out: Linking
) -> list[tuple[str, str, str]]:
    """Exact matches in the mentioned tables; only when there are none, in their neighbours."""
    named = [t for t in tables if t in out.mentioned_tables()]
    first = _search_in(idx, named, needle, lookup, out)
    return first or _search_in(idx, [t for t in tables if t not in named], needle, lookup, out)


def _search_in(
    idx: SchemaIndex, tables: list[str], needle: str, lookup: ValueLookup, out: Linking
) -> list[tuple[str, str, str]]:
    found: list[tuple[str, str, str]] = []
    want = normalize_value(needle)
    for table in tables:
        for column in idx.text_columns(table):
            if out.lookups >= _MAX_LOOKUPS:
                return found
            checkpoint()  # before each round trip to the database
            out.lookups += 1
            try:
                hits = lookup(table, column, needle, 20)
            except (
                Exception
            ):  # a failing look-up must not fail planning: the word stays unexplained
                hits = []
            exact = [
                h
                for h in hits
                if normalize_value(h) in (want, want[:-1] if want.endswith("s") else want)
            ]
            if exact:
                found.append((table, column, str(exact[0])))
    return found


def close_values(
    tokens: list[Token],
    idx: SchemaIndex,
    rest: list[Token],
    used: set[int],
    out: Linking,
    lookup: ValueLookup | None,
) -> None:
    """Typos: a value-like word close to a stored value is kept as written, on that column; a
    word of the dictionary written in lower case is a word, not a misspelt value.

    The plan then filters on the word as the user wrote it; the executor's VALUE_NOT_FOUND check
    suggests the stored value and the refiner's `replace_value` hint puts it in the next plan.
    """
    candidates = [
        t
        for t in rest
        if t.index not in used and t.low not in FRAME and looks_like_value(tokens, t)
        and not (t.text.islower() and parts_of_speech(t.low))  # "in the race" is no "France"
    ]
    tables = lookup_tables(idx, out)
    for span in spans(candidates)[:2]:
        text = " ".join(t.text for t in span)
        options = _closest(idx, tables, text, lookup, out)
        if options:
            out.values.append(ValueMatch(span[0].index, span[-1].index + 1, text, options, "close"))
            used.update(t.index for t in span)
    for v in out.values:
        if v.source == "quoted" and not v.options:
            v.options = _closest(idx, tables, v.text, lookup, out)
            v.source = "close" if v.options else v.source


def _closest(
    idx: SchemaIndex, tables: list[str], text: str, lookup: ValueLookup | None, out: Linking
) -> list[tuple[str, str, str]]:
    want = normalize_value(text)
    scored: list[tuple[float, str, str]] = []
    for table in tables:
        for column in idx.text_columns(table):
            found = idx.column(table, column)  # a text column of the table: always found
            pool = list(found.samples) if found is not None else []
            if lookup is not None and out.lookups < _MAX_LOOKUPS and len(want) >= 4:
                out.lookups += 1
                prefix = want[: 3 if len(want) >= 6 else 2]  # a typo is rarely in the first letters
                try:
                    pool += [str(v) for v in lookup(table, column, prefix, 20)]
                except Exception:  # a failing look-up leaves only the samples
                    pass
            ratio = max(
                (SequenceMatcher(None, want, normalize_value(v)).ratio() for v in pool), default=0.0
            )
            if ratio >= _CLOSE:
                scored.append((ratio, table, column))
    if not scored:
        return []
    top = max(r for r, _, _ in scored)
    return [(t, c, text) for r, t, c in scored if r == top]
