"""The analysis state the reading rules share: one `Analysis` per reading of a question.

`Question` is what the rules read and never change (the scan, the linking, the schema index and
what follows from them alone); the other fields of `Analysis` are what the rules write, each
named with the rule that writes it. A rule is a function of the state (see `analyze.py`), so
everything one rule leaves for another is a field here, never a hidden attribute.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from nl2sql.reasoning.offline.catalog.index import SchemaIndex
from nl2sql.reasoning.offline.linking.lexical import value_nouns
from nl2sql.reasoning.offline.linking.linker import Linking, Mention
from nl2sql.reasoning.offline.shapes.resolve import Resolver
from nl2sql.reasoning.offline.shapes.scopes import Scope, negation_scopes
from nl2sql.reasoning.offline.shapes.spec import Agg, Cond, Query
from nl2sql.reasoning.offline.words.scan import Scan, bare_numbers
from nl2sql.reasoning.offline.words.text import Token


@dataclass(frozen=True)
class Question:
    """The inputs of a reading; the rules only read them (the containers are never changed)."""

    scan: Scan  # tokens, dates, numeric cues (with the bare numbers), the limit, the cue words
    linking: Linking  # mentions, stored values and unexplained words of this reading
    idx: SchemaIndex  # the schema: tables, keys, labels, column kinds, foreign keys
    mentions: list[Mention]  # the linking's mentions in question order
    replace: dict[str, Any]  # the refiner's `replace_value` hint (old -> new stored value)
    scopes: list[Scope]  # what each negation word negates
    named: set[int]  # cue words and words of multi-word names: not cues ("best finish")
    mentioned: set[str]  # tables the question names (the plan prefers them in joins)

    @property
    def tokens(self) -> list[Token]:
        return self.scan.tokens

    def text(self, a: int, b: int) -> str:
        """The question words tokens[a:b], as written."""
        return " ".join(t.text for t in self.tokens[a:b])

    def unknown_between(self, a: int, b: int) -> str | None:
        """A message naming the first unexplained word in tokens[a:b], if any."""
        unknown = {t.index for t in self.linking.unexplained}
        for tok in self.tokens[a:b]:
            if tok.index in unknown:
                return f"'{tok.text}' matches no table or column"
        return None


@dataclass
class Analysis:
    """One reading in progress: the question and what the rules have decided so far."""

    question: Question
    #: one table / column per mention; the shapes add the tables they read to its context and
    #: set its entity (the table whose rows are listed, grouped or ranked)
    res: Resolver
    #: start of every mention given a role (any rule); a mention is used at most once
    used: set[int] = field(default_factory=set)
    #: the reasoning lines (tie-breaks, guesses, joins) and the confidence they cost
    notes: list[str] = field(default_factory=list)
    penalty: float = 0.0
    #: `negation.reserve_negated_tables`: table mentions inside a negation, by start
    negated_mentions: dict[int, Scope] = field(default_factory=dict)
    #: `measures.read_measure`: the aggregate a count or aggregate cue asks for, and its mention
    measure: Agg | None = None
    measure_mention: Mention | None = None
    #: `measures.read_measure`: the aggregate word's position (when no count cue wins)
    agg_index: int | None = None
    #: `measures.read_measure`: further aggregates of the same column ("average and maximum age")
    extra: list[Agg] = field(default_factory=list)
    #: `measures.read_measure`: a count cue named a numeric column that holds counts ("how many
    #: pages"); the shape rule clears it when the question asks for one ranked row's value
    quantity: bool = False
    #: mentions of a column a rule read into another meaning than the column, by start: the
    #: rows counted ("the most awards": `rank_terms`) or excluded ("never got a rebate":
    #: `negation`), the modifier of a compound ("the highest season payout": `rank_terms`)
    absorbed: set[int] = field(default_factory=set)
    #: the shape rule (through `rank_terms`): the measure ranks the other way round from the
    #: words (a birth date for "the oldest")
    inverse: bool = False
    #: the shape rule (through `negation.negated_conditions`): negation cues an anti-join took
    negations_done: set[int] = field(default_factory=set)
    #: the shape rule (through `combine.combine`): "or" tokens a merged condition took
    ors_done: set[int] = field(default_factory=set)
    #: the shape rule (through `combine.combine`): two conditions no single row meets at once
    intersection: tuple[Cond, Cond] | None = None
    #: `select.read_shape`: the query; the rules after it complete or check it
    query: Query | None = None

    def result(self) -> Query:
        """The query the shape rule wrote (a rule that runs after it reads it here)."""
        if self.query is None:
            raise RuntimeError("no query yet: the shape rule (select.read_shape) has not run")
        return self.query

    def next_mention(self, i: int, within: int, exclude: Mention | None = None) -> Mention | None:
        """The first unused mention starting within `within` tokens from i."""
        for m in self.question.mentions:
            if m.start >= i and m.start not in self.used and m is not exclude:
                return m if m.start - i <= within else None
        return None


def start(s: Scan, linking: Linking, idx: SchemaIndex, hints: Mapping[str, Any]) -> Analysis:
    """The state before any rule: the resolver's context is the tables the question names, then
    the tables of columns only one table has ("pet type")."""
    mentions = sorted(linking.mentions, key=lambda m: m.start)
    res = Resolver(idx, [])
    for m in mentions:
        table = res.table(m)
        if table and table not in res.context:
            res.context.append(table)
    mentioned = set(res.context)
    for m in mentions:
        top = {e.table for e in m.columns() if e.score >= m.candidates[0].score - 0.15}
        if not res.table(m) and len(top) == 1 and next(iter(top)) not in res.context:
            res.context.append(next(iter(top)))
    for v in value_nouns(s.tokens, linking):  # "all the cats": the table of the cats' rows
        tables = {table for table, *_ in v.options}
        if len(tables) == 1 and (only := tables.pop()) not in res.context:
            res.context.append(only)
    # Numbers no cue explained ("price 20") join the cues of this reading's scan, a copy: the
    # planner's later checks read them from `Question.scan`, and another reading of the same
    # question starts again from the scan as it was (each linking has values of its own).
    spans = [(v.start, v.end) for v in linking.values]
    s = replace(s, nums=s.nums + bare_numbers(s, spans))
    # cue words inside a longer name ("best finish", "total spent") are part of the name
    named = s.taken | {i for m in mentions if m.end - m.start > 1 for i in range(m.start, m.end)}
    question = Question(
        scan=s,
        linking=linking,
        idx=idx,
        mentions=mentions,
        replace=dict(hints.get("replace_value") or {}),
        scopes=negation_scopes(s.tokens),
        named=named,
        mentioned=mentioned,
    )
    return Analysis(question, res)
