"""Schema linking: which question words name which tables, columns and stored values.

Rules, in order (each consumes its words):
1. Quoted text ('like this') is a value, taken literally.
2. Word sequences equal (case-insensitively) to a sample value of a text column are values,
   longest first — except a single word that is also the full name of a table or column.
3. The remaining non-function words are matched to table/column phrase forms, longest first
   (names, human-readable names, `table column` qualified forms, short and head-noun forms).
4. Words still unexplained are looked up in the data (`PlanRequest.values`) on the text columns of
   the mentioned tables and their foreign-key neighbours; only an exact case-insensitive match
   links, and the value is emitted as stored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from difflib import SequenceMatcher

from nl2sql.reasoning.base import ValueLookup
from nl2sql.reasoning.offline.index import Element, SchemaIndex, normalize_value
from nl2sql.reasoning.offline.text import FRAME, STOP, Token

_VALUE_LEADS = {"in", "from", "named", "called", "titled", "at", "for", "is", "are", "was", "were", "be", "been", "with", "by"}
_MAX_LOOKUPS = 40
_MAX_PLAIN_LOOKUPS = 8  # for words that do not look like values
_CLOSE = 0.75  # difflib ratio above which a word is read as a misspelt stored value


@dataclass
class Mention:
    """Question words naming schema elements; `candidates` are strongest first."""

    start: int
    end: int
    text: str
    candidates: list[Element]

    def tables(self) -> list[Element]:
        return [e for e in self.candidates if e.column is None]

    def columns(self) -> list[Element]:
        return [e for e in self.candidates if e.column is not None]


@dataclass
class ValueMatch:
    """Question words naming a stored value; `options` are (table, column, stored value)."""

    start: int
    end: int
    text: str
    options: list[tuple[str, str, str]]
    source: str  # sample | lookup | quoted | close (a near miss, kept as written)
    negated: bool = False


@dataclass
class Linking:
    mentions: list[Mention] = field(default_factory=list)
    values: list[ValueMatch] = field(default_factory=list)
    unexplained: list[Token] = field(default_factory=list)
    value_like: list[Token] = field(default_factory=list)  # unexplained words that look like values
    lookups: int = 0

    def mentioned_tables(self) -> list[str]:
        """Tables named as tables, in question order."""
        seen: list[str] = []
        for m in self.mentions:
            for e in m.tables()[:1]:
                if e.table not in seen:
                    seen.append(e.table)
        return seen


def link(
    tokens: list[Token], idx: SchemaIndex, consumed: set[int], lookup: ValueLookup | None = None
) -> Linking:
    """Link the unconsumed tokens of a question to `idx` (values, then schema, then lookups)."""
    out = Linking()
    used = set(consumed)
    _quoted(tokens, idx, used, out)
    _sample_values(tokens, idx, used, out)
    _schema(tokens, idx, used, out)
    rest = [t for t in tokens if t.index not in used and t.kind == "word" and t.low not in STOP]
    if lookup is not None:
        _lookup(tokens, idx, rest, used, out, lookup)
    _close_values(tokens, idx, rest, used, out, lookup)
    out.unexplained = [t for t in rest if t.index not in used and t.low not in FRAME]
    out.value_like = [t for t in out.unexplained if _looks_like_value(tokens, t)]
    out.values.sort(key=lambda v: v.start)
    return out


def _close_values(tokens, idx: SchemaIndex, rest, used: set[int], out: Linking, lookup) -> None:
    """Typos: a value-like word close to a stored value is kept as written, on that column.

    The plan then filters on the word as the user wrote it; the executor's VALUE_NOT_FOUND check
    suggests the stored value and the refiner's `replace_value` hint puts it in the next plan.
    """
    candidates = [t for t in rest if t.index not in used and t.low not in FRAME and _looks_like_value(tokens, t)]
    tables = lookup_tables(idx, out)
    for span in _spans(candidates)[:2]:
        text = " ".join(t.text for t in span)
        options = _closest(idx, tables, text, lookup, out)
        if options:
            out.values.append(ValueMatch(span[0].index, span[-1].index + 1, text, options, "close"))
            used.update(t.index for t in span)
    for v in out.values:
        if v.source == "quoted" and not v.options:
            v.options = _closest(idx, tables, v.text, lookup, out)
            v.source = "close" if v.options else v.source


def _closest(idx: SchemaIndex, tables: list[str], text: str, lookup, out: Linking) -> list[tuple[str, str, str]]:
    want = normalize_value(text)
    scored: list[tuple[float, str, str]] = []
    for table in tables:
        for column in idx.text_columns(table):
            pool = list(idx.column(table, column).samples)
            if lookup is not None and out.lookups < _MAX_LOOKUPS and len(want) >= 4:
                out.lookups += 1
                prefix = want[: 3 if len(want) >= 6 else 2]  # a typo is rarely in the first letters
                try:
                    pool += [str(v) for v in lookup(table, column, prefix, 20)]
                except Exception:  # a failing look-up leaves only the samples
                    pass
            ratio = max((SequenceMatcher(None, want, normalize_value(v)).ratio() for v in pool), default=0.0)
            if ratio >= _CLOSE:
                scored.append((ratio, table, column))
    if not scored:
        return []
    top = max(r for r, _, _ in scored)
    return [(t, c, text) for r, t, c in scored if r == top]


def _quoted(tokens: list[Token], idx: SchemaIndex, used: set[int], out: Linking) -> None:
    for tok in tokens:
        if tok.kind == "quoted" and tok.index not in used:
            options = list(idx.values.get(normalize_value(tok.text), []))
            out.values.append(ValueMatch(tok.index, tok.index + 1, tok.text, options, "quoted"))
            used.add(tok.index)


def _strong_schema_word(idx: SchemaIndex, tok: Token) -> bool:
    return any(e.score >= 0.85 for e in idx.phrases.get((tok.canon,), []))


def _sample_values(tokens: list[Token], idx: SchemaIndex, used: set[int], out: Linking) -> None:
    i = 0
    while i < len(tokens):
        hit = None
        for size in range(6, 0, -1):
            span = tokens[i : i + size]
            if len(span) < size or any(t.index in used or t.kind not in ("word", "number") for t in span):
                continue
            if size == 1 and (span[0].low in STOP or span[0].low in FRAME or _strong_schema_word(idx, span[0])):
                continue
            options = idx.values.get(normalize_value(" ".join(t.text for t in span)))
            if options:
                hit = ValueMatch(i, i + size, " ".join(t.text for t in span), list(options), "sample")
                break
        if hit is None:
            i += 1
            continue
        out.values.append(hit)
        used.update(range(hit.start, hit.end))
        i = hit.end


def _schema(tokens: list[Token], idx: SchemaIndex, used: set[int], out: Linking) -> None:
    seq = [t for t in tokens if t.kind == "word" and t.low not in STOP]
    i = 0
    while i < len(seq):
        size = _longest_phrase(tokens, seq, i, idx, used)
        if not size:
            i += 1
            continue
        span = seq[i : i + size]
        elements = idx.phrases[tuple(t.canon for t in span)]
        text = " ".join(t.text for t in span)
        out.mentions.append(Mention(span[0].index, span[-1].index + 1, text, list(elements)))
        used.update(t.index for t in span)
        i += size


def _longest_phrase(tokens, seq: list[Token], i: int, idx: SchemaIndex, used: set[int]) -> int:
    for size in range(min(idx.max_phrase, 4), 0, -1):
        span = seq[i : i + size]
        if len(span) < size or any(t.index in used for t in span) or not _contiguous(tokens, span):
            continue
        if tuple(t.canon for t in span) in idx.phrases:
            return size
    return 0


def _contiguous(tokens: list[Token], span: list[Token]) -> bool:
    """Words of a phrase may be separated by "of" / "the" only ("date of birth")."""
    for a, b in zip(span, span[1:]):
        if any(t.kind != "word" or t.low not in ("of", "the") for t in tokens[a.index + 1 : b.index]):
            return False
    return True


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


def _lookup(tokens, idx, rest, used, out: Linking, lookup: ValueLookup) -> None:
    """Look unexplained words up in the data: value-like ones in the mentioned tables and their
    FK neighbours, other words only in the mentioned tables (fewer round trips)."""
    spans = _spans([t for t in rest if t.low not in FRAME])
    near = lookup_tables(idx, out)
    named = [t for t in near if t in out.mentioned_tables()] or near[:1]
    for span in spans[:4]:
        if any(_looks_like_value(tokens, t) for t in span):
            tables = near
        elif out.lookups < _MAX_PLAIN_LOOKUPS and not any(t.low.endswith(("ed", "ing")) for t in span):
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


def _search(idx: SchemaIndex, tables: list[str], needle: str, lookup: ValueLookup, out: Linking):
    """Exact matches in the mentioned tables; only when there are none, in their neighbours."""
    named = [t for t in tables if t in out.mentioned_tables()]
    first = _search_in(idx, named, needle, lookup, out)
    return first or _search_in(idx, [t for t in tables if t not in named], needle, lookup, out)


def _search_in(idx: SchemaIndex, tables: list[str], needle: str, lookup: ValueLookup, out: Linking):
    found: list[tuple[str, str, str]] = []
    want = normalize_value(needle)
    for table in tables:
        for column in idx.text_columns(table):
            if out.lookups >= _MAX_LOOKUPS:
                return found
            out.lookups += 1
            try:
                hits = lookup(table, column, needle, 20)
            except Exception:  # a failing look-up must not fail planning: the word stays unexplained
                hits = []
            exact = [h for h in hits if normalize_value(h) == want]
            if exact:
                found.append((table, column, str(exact[0])))
    return found


def _spans(words: list[Token]) -> list[list[Token]]:
    spans: list[list[Token]] = []
    for t in words:
        if spans and spans[-1][-1].index == t.index - 1:
            spans[-1].append(t)
        else:
            spans.append([t])
    return spans


def _looks_like_value(tokens: list[Token], tok: Token) -> bool:
    """Capitalized mid-sentence, or right after a preposition that introduces a value."""
    if tok.index > 0 and tok.text[:1].isupper():
        return True
    prev = [t for t in tokens[: tok.index] if t.low not in ("the", "a", "an")]
    return bool(prev) and prev[-1].low in _VALUE_LEADS
