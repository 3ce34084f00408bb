"""What linking produces: mentions of tables/columns, matched values, and unexplained words."""

from __future__ import annotations

from dataclasses import dataclass, field

from nl2sql.reasoning.llm.run_limits import checkpoint
from nl2sql.reasoning.offline.catalog.index import Element, FKEdge
from nl2sql.reasoning.offline.words.text import Token

_VALUE_LEADS = {
    "in",
    "from",
    "named",
    "called",
    "titled",
    "at",
    "for",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "with",
    "by",
}


@dataclass
class Mention:
    """Question words naming schema elements; `candidates` are strongest first."""

    start: int
    end: int
    text: str
    candidates: list[Element]

    def tables(self) -> list[Element]:
        return [e for e in self.candidates if e.column is None and e.metric is None]

    def metric(self) -> Element | None:
        """The metric the words name, when that is their strongest reading."""
        best = self.candidates[0] if self.candidates else None
        return best if best is not None and best.metric is not None else None

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


@dataclass(frozen=True)
class Relation:
    """A verb read as the schema path between the entity before it and the entity after it."""

    word: Token
    path: tuple[str, ...]  # tables from the entity before to the entity after
    edges: tuple[FKEdge, ...]
    guessed: bool = False  # the entity before is not the nearest one: chosen by the shortest path

    def describe(self) -> str:
        """The reasoning line: which tables the verb links, along which keys."""
        keys = "; ".join(
            ", ".join(
                f"{e.src}.{a} = {e.dst}.{b}" for a, b in zip(e.src_cols, e.dst_cols, strict=True)
            )
            + (" (inferred)" if e.inferred else "")
            for e in self.edges
        )
        bridge = f" through {self.path[1]}" if len(self.path) > 2 else ""
        guess = (
            f"; {self.path[0]} is not the nearest entity before it, chosen as the closest in "
            "the schema"
            if self.guessed
            else ""
        )
        return (
            f"'{self.word.text}' read as the link {self.path[0]} → {self.path[-1]}{bridge} "
            f"({keys}{guess})"
        )


@dataclass
class Linking:
    mentions: list[Mention] = field(default_factory=list)
    values: list[ValueMatch] = field(default_factory=list)
    unexplained: list[Token] = field(default_factory=list)
    value_like: list[Token] = field(default_factory=list)  # unexplained words that look like values
    lexical: list[Token] = field(default_factory=list)  # relation verbs and filler words (lexicon)
    relations: list[Relation] = field(default_factory=list)  # verbs read as schema paths
    units: list[Token] = field(default_factory=list)  # units after a number or "in" ("120 kph")
    # which of two keys joins, and the key's word it names ("destination", "won": winner)
    roles: list[tuple[Token, str]] = field(default_factory=list)
    lookups: int = 0

    def mentioned_tables(self) -> list[str]:
        """Tables named as tables, in question order."""
        seen: list[str] = []
        for m in self.mentions:
            for e in m.tables()[:1]:
                if e.table not in seen:
                    seen.append(e.table)
        return seen


def spans(words: list[Token]) -> list[list[Token]]:
    spans: list[list[Token]] = []
    for t in words:
        if spans and spans[-1][-1].index == t.index - 1:
            spans[-1].append(t)
        else:
            spans.append([t])
    return spans


def looks_like_value(tokens: list[Token], tok: Token) -> bool:
    """Capitalized mid-sentence, or right after a preposition that introduces a value."""
    checkpoint()  # linear in the question, called per word: a long question stops at its deadline
    if tok.index > 0 and tok.text[:1].isupper():
        return True
    prev = [t for t in tokens[: tok.index] if t.low not in ("the", "a", "an")]
    return bool(prev) and prev[-1].low in _VALUE_LEADS
