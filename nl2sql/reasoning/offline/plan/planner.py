"""The offline planner: question text + snapshot index → PlanModel with confidence and reasoning.

It refuses (plan=None, confidence 0, reasoning "could not …") rather than guess: relative dates
it cannot resolve against the reference date ("next week", "recently"), words that look like
values but are in neither the schema nor the data, an unknown shape, an ambiguous column, or
tables with no foreign-key path between them (declared, or inferred from names and values: each
inferred join is named in the reasoning and lowers the confidence a little).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from nl2sql.errors import Refusal, RefusalCode
from nl2sql.plan import ColumnRef, PlanModel, is_aggregate, walk
from nl2sql.reasoning.base import ValueLookup
from nl2sql.reasoning.offline.catalog.index import FKEdge, SchemaIndex
from nl2sql.reasoning.offline.catalog.labels import row_names
from nl2sql.reasoning.offline.confidence import calibrated, evidence, unnamed_shown, used_refs
from nl2sql.reasoning.offline.linking.linker import Linking, link
from nl2sql.reasoning.offline.plan.builder import PlanBuilder
from nl2sql.reasoning.offline.plan.fit import check_fit
from nl2sql.reasoning.offline.plan.joins import JoinError, JoinTree, Tie
from nl2sql.reasoning.offline.plan.ratio import RatioQuestion, ratio_plan, ratio_question
from nl2sql.reasoning.offline.shapes.analyze import analyze
from nl2sql.reasoning.offline.shapes.spec import Agg, Col, Part, Query, Target, Unclear
from nl2sql.reasoning.offline.split import split_question as two_parts
from nl2sql.reasoning.offline.words.relative import span_text
from nl2sql.reasoning.offline.words.scan import Scan, scan
from nl2sql.reasoning.offline.words.text import STOP

_INFERRED_JOIN_PENALTY = 0.05
_GUESSED_RELATION_PENALTY = 0.2
#: a reading that had to guess (a count that may include rows a join repeats, a column whose
#: table no word names, "that region" with nothing before it) falls under min_confidence
_GUESS_PENALTY = 0.5
_DEMONSTRATIVES = ("that", "this", "those", "these")
_PREPOSITIONS = ("to", "of", "in", "for", "with", "from", "by", "at", "on", "about")
_NESTED = {"above", "below", "than", "over", "under", "exceeds", "exceeding"}


@dataclass
class Outcome:
    """A plan (or None) with what the planner understood."""

    plan: PlanModel | None
    confidence: float
    reasoning: str
    query: Query | None = None
    linking: Linking | None = None
    notes: list[str] = field(default_factory=list)
    evidence: dict[str, float] = field(default_factory=dict)  # what the confidence is fitted on
    scan: Scan | None = None
    tree: JoinTree | None = None
    refusal: Refusal | None = None  # a refusal teaching could fix, as data
    ties: list[Tie] = field(default_factory=list)  # join paths no word chose, nested ones too


def plan_question(
    text: str,
    idx: SchemaIndex,
    lookup: ValueLookup | None = None,
    hints: Mapping[str, Any] | None = None,
    reference: date | None = None,
) -> Outcome:
    """Plan `text` against `idx`; a refusal has plan=None and says what was not understood.
    Relative dates ("last month") resolve against `reference`; without one they are refused."""
    hints = hints or {}
    s = scan(text, reference)
    if not any(t.kind == "word" and t.low not in STOP for t in s.tokens):
        return _refuse("could not plan: the question has no words to link to the schema")
    if s.relative:
        return _refuse(
            f"could not plan: '{s.relative[0]}' is not a period the engine can date"
            + (f" as of {reference.isoformat()}" if reference else "")
            + "; give explicit dates (e.g. 'in 2024', 'after 2024-03-01', 'last 30 days')"
        )
    ratio = ratio_question(text)
    if ratio is not None:
        return _plan_ratio(ratio, idx, lookup, hints, reference)
    return read_linked(text, s, link(s.tokens, idx, s.taken, lookup), idx, hints, reference)


def _plan_ratio(
    ratio: RatioQuestion,
    idx: SchemaIndex,
    lookup: ValueLookup | None,
    hints: Mapping[str, Any],
    reference: date | None,
) -> Outcome:
    """A ratio of two totals, each part planned as its own question; refused unless both parts
    plan as single totals. The evidence is the less confident part's."""
    if not ratio.numerator or not ratio.denominator:
        return _refuse("could not plan: could not tell which two quantities the ratio divides")
    parts = [plan_question(p, idx, lookup, hints, reference)
             for p in (ratio.numerator, ratio.denominator)]
    top, bottom = parts
    for side, text, part in (("numerator", ratio.numerator, top),
                             ("denominator", ratio.denominator, bottom)):
        if part.plan is None:
            return _refuse(f"could not plan the {side} of the ratio ('{text}'): {part.reasoning}",
                           refusal=part.refusal)
    plan = ratio_plan(top.plan, bottom.plan, ratio.factor) if top.plan and bottom.plan else None
    if plan is None:
        return _refuse("could not plan: a ratio needs a single total on each side")
    weaker = min(parts, key=lambda p: p.confidence)
    notes = [f"ratio of '{ratio.numerator}' to '{ratio.denominator}'"
             + (f", times {ratio.factor:g}" if ratio.factor != 1.0 else "")
             + (f"; '{ratio.scope}' read as applying to both sides" if ratio.scope else "")]
    # where a closing phrase attaches is a choice of reading: it costs a little confidence
    cost = 0.1 if ratio.scope else 0.0
    confidence = round(max(0.05, weaker.confidence - cost), 2)
    facts = dict(weaker.evidence)
    facts["heuristic"] = round(max(0.05, facts.get("heuristic", 0.95) - cost), 2)
    notes += [f"{side}: {p.reasoning}" for side, p in zip(("numerator", "denominator"), parts,
                                                           strict=True)]
    return Outcome(plan, confidence, "; ".join(notes), notes=notes, evidence=facts)


def read_linked(
    text: str,
    s: Scan,
    linking: Linking,
    idx: SchemaIndex,
    hints: Mapping[str, Any],
    reference: date | None,
) -> Outcome:
    """Plan a scanned and linked question (one reading of it: `linking` decides what each
    word names)."""
    scanned = s  # as scanned: a reading of another linking starts again from it
    try:
        _precheck(text, s, linking)
        analysis = analyze(s, linking, idx, hints)
        s = analysis.question.scan  # with this reading's bare numbers among its cues
        q = analysis.result()
        q.preferred = analysis.question.mentioned | {q.root}
        # a reading of a tied join says the other path's words (`readings.py`)
        words = {t.canon for t in s.tokens if t.kind == "word"} | set(hints.get("join_words", ()))
        words |= {role for _, role in linking.roles}
        builder = PlanBuilder(idx, words, bool(hints.get("avoid_join_fan_out")))
        plan = builder.build(q)
        _check_grouping(plan)
        _check_roles(linking, idx, builder.edges)
        check_fit(s, linking, analysis.res, q, builder.tree, analysis.question.named)
    except (Unclear, JoinError) as exc:
        return _refuse(f"could not plan: {exc}", linking, scanned, exc.refusal)
    plan = _apply_column_hints(plan, hints.get("column_suggestions") or {})
    inferred = list(dict.fromkeys(builder.inferred))
    notes, penalty = _as_of(s, reference) + analysis.notes + inferred + builder.notes, analysis.penalty
    if builder.ties:
        penalty += 0.15
    if any(tie.roles for tie in builder.ties):
        # the same tables joined on one of two columns (an origin or a destination) no word
        # chose: a coin toss
        penalty += _GUESS_PENALTY
    # a join no key declares is likely right (it passed name, key and value checks) but not sure
    penalty += _INFERRED_JOIN_PENALTY * min(len(inferred), 2)
    if builder.tree and builder.tree.fans_out and _sums(q):
        notes.append("a join repeats rows under SUM/AVG; the total may count some rows twice")
        penalty += 0.3
    if unnamed := unnamed_shown(s, linking, q, idx.table_words):
        # a column picked by a generic word ("name", "id") from a table no word names
        notes.append(f"{unnamed} column(s) shown from a table the question does not name")
        penalty += _GUESS_PENALTY
    if kinds := _kinds_read(linking, q):
        # "planes" read as `aircraft`, a kind of thing WordNet puts above it: offered, not stated
        notes.append(f"{kinds} read as the kind of thing a table or column is (WordNet): a guess")
        penalty += _GUESS_PENALTY
    dangling = _dangling_reference(s, linking)
    if dangling:
        notes.append(f"{dangling} refers to something the question does not say")
        penalty += _GUESS_PENALTY
    own = _counted_per_own_name(q, idx)
    if own:
        notes.append(f"counts {own} rows per {own}'s own key or name: each group holds one row")
        penalty += _GUESS_PENALTY
    penalty += 0.05 * min(len(linking.unexplained), 4)
    # a verb whose subject was chosen among several earlier entities is a guess
    penalty += _GUESSED_RELATION_PENALTY * sum(rel.guessed for rel in linking.relations)
    heuristic = round(max(0.05, min(0.95, 0.95 - penalty)), 2)
    facts = evidence(s, linking, q, builder.tree, heuristic, idx.table_words)
    return Outcome(plan, calibrated(facts), _reasoning(q, linking, notes), q, linking, notes, facts,
                   scanned, builder.tree, ties=builder.ties)


def _kinds_read(linking: Linking, q: Query) -> str:
    """The words of the plan linked only as a broader or narrower noun, quoted; "" for none."""
    refs = used_refs(q)
    return ", ".join(
        f"'{m.text}'" for m in linking.mentions
        if m.candidates and all(e.form == "broader" for e in m.candidates)
        and any(e.ref in refs for e in m.candidates))


def _as_of(s: Scan, reference: date | None) -> list[str]:
    """The reasoning line that says which days the relative dates became, and as of when."""
    if not s.resolved or reference is None:
        return []
    spans = [f"'{d.text}' → {span_text(d)}" for d in s.resolved]
    return [f"relative dates as of {reference.isoformat()}: " + "; ".join(spans)]


def _precheck(text: str, s: Scan, linking: Linking) -> None:
    """Refuse what no shape handles before trying one."""
    _check_nested(s)
    bad_days = [t.text for t in s.tokens if t.kind == "date" and t.index not in s.taken]
    if bad_days:
        raise Unclear(f"'{bad_days[0]}' is not a valid date")
    parts = two_parts(text)
    if parts is not None and parts.operation == "compare":
        raise Unclear(
            "the question has two parts to compare or join; it needs one sub-query per part"
        )
    if linking.unexplained:
        # precision over coverage: a word nothing explains may change the meaning entirely
        words = ", ".join(f"'{t.text}'" for t in linking.unexplained)
        raise Unclear(f"{words} matches no table, column or stored value", Refusal(
            code=RefusalCode.UNKNOWN_TERM, words=[t.text for t in linking.unexplained]))


def _check_roles(linking: Linking, idx: SchemaIndex, edges: list[FKEdge]) -> None:
    """A role word ("destination") the plan joins on no key of is a meaning it dropped."""
    joined = {w for e in edges for c in e.src_cols for w in idx.col_words.get((e.src, c), ())}
    for tok, role in linking.roles:
        if role not in joined:
            raise Unclear(f"'{tok.text}' names a key the query does not join on")


def _check_grouping(plan: PlanModel) -> None:
    """Unclear when a plain column sits beside aggregates without being grouped: the shapes
    should never produce it, and an invalid plan must not reach the database."""
    for p in [n for n in walk(plan) if isinstance(n, PlanModel)]:
        has_agg = p.group_by or any(
            is_aggregate(n) for item in p.select for n in walk(item.expr)
        )
        if not has_agg:
            continue
        grouped = {g.model_dump_json() for g in p.group_by}
        for item in p.select:
            if not any(is_aggregate(n) for n in walk(item.expr)) and (
                item.expr.model_dump_json() not in grouped
            ):
                raise Unclear(
                    f"could not tell how '{item.alias or 'a column'}' relates to the aggregate"
                )


def _refuse(message: str, linking: Linking | None = None, s: Scan | None = None,
            refusal: Refusal | None = None) -> Outcome:
    return Outcome(None, 0.0, message, linking=linking, scan=s, refusal=refusal)


def _check_nested(s: Scan) -> None:
    """Refuse comparisons with a nested query other than an aggregate of the same column."""
    nested = {i for c in s.nums if c.nested for i in range(c.start, c.end)}
    for a, b in zip(s.tokens, s.tokens[1:], strict=False):
        if a.index in nested:
            continue
        if a.low == "than" and b.low in ("the", "that", "those", "any", "all", "each", "every"):
            raise Unclear(f"comparing with '{a.text} {b.text} …' (a nested query) is not supported")
        nxt = b.low if b.low != "the" else ""
        if a.low in _NESTED and nxt in ("average", "avg", "mean", "total", "maximum", "minimum"):
            raise Unclear(f"comparing with '{a.text} {b.text} …' (a nested query) is not supported")
    for a, b, c in zip(s.tokens, s.tokens[1:], s.tokens[2:], strict=False):
        if (
            a.index not in nested
            and a.low in _NESTED
            and b.low == "the"
            and c.low in ("average", "avg", "mean", "total", "maximum", "minimum")
        ):
            raise Unclear(
                f"comparing with '{a.text} the {c.text} …' (a nested query) is not supported"
            )


def _dangling_reference(s: Scan, linking: Linking) -> str:
    """ "… belonging to that region": a demonstrative after a preposition points back at
    something; when no earlier word of the question names what it points at, the question
    continues a conversation this reading does not have ("" when there is none)."""
    for m in linking.mentions:
        if m.start < 2:
            continue
        det, prep = s.tokens[m.start - 1].low, s.tokens[m.start - 2].low
        if det in _DEMONSTRATIVES and prep in _PREPOSITIONS:
            earlier = {e.ref for x in linking.mentions if x.end < m.start for e in x.candidates}
            if not any(e.ref in earlier for e in m.candidates):
                return f"'{det} {m.text}'"
    return ""


def _counted_per_own_name(q: Query, idx: SchemaIndex) -> str:
    """The table whose rows `q` counts while grouping by that table's own key or name ("" when
    none): such a count is 1 in every group, so the question meant another grouping."""
    grouped = {(t.table, t.column) for t in q.group if isinstance(t, Col)}
    # the count shown, or the one that ranks the groups ("the most popular treatment")
    for t in [t for t, _ in q.select] + [t for t, _ in q.order]:
        if not isinstance(t, Agg) or t.func != "count" or t.metric is not None:
            continue
        if t.col is not None and t.col.column not in idx.pk(t.table):
            continue
        own = row_names(idx, t.table)
        if any(table == t.table and column in own for table, column in grouped):
            return t.table
    return ""


def _sums(q: Query) -> bool:
    return any(isinstance(t, Agg) and (t.func in ("sum", "avg") or t.metric) for t, _ in q.select)


def _apply_column_hints(plan: PlanModel, suggestions: Mapping[str, Any]) -> PlanModel:
    """Rename columns the validator did not find, as the refiner suggested ({old: new})."""
    renames = {
        str(k).lower(): (v[0] if isinstance(v, list) and v else v) for k, v in suggestions.items()
    }
    renames = {k: str(v) for k, v in renames.items() if v}
    if not renames:
        return plan
    plan = plan.model_copy(deep=True)
    for node in walk(plan):
        if isinstance(node, ColumnRef) and node.name.lower() in renames:
            node.name = renames[node.name.lower()].split(".")[-1]
    return plan


def _reasoning(q: Query, linking: Linking, notes: list[str]) -> str:
    refs = used_refs(q)
    parts = []
    links = []
    for m in linking.mentions:
        used = [e.ref for e in m.candidates if e.ref in refs]
        if used:
            links.append(f"'{m.text}' → {used[0]}")
    if links:
        parts.append("linked " + "; ".join(links))
    parts.append(f"shape: {q.shape} over {q.root}")
    shown = [_show(t) for t, _ in q.select] or ["*"]
    parts.append("select " + ", ".join(shown))
    conds = [
        f"OR of '{c.text}'"
        if c.op == "or"
        else f"{_show(c.target)} {'not ' if c.negated else ''}{c.op} {c.values}"
        + (f" (from '{c.text}')" if c.text else "")
        for c in q.where + q.having
    ]
    if conds:
        parts.append("conditions: " + "; ".join(conds))
    if q.group:
        parts.append("group by " + ", ".join(_show(t) for t in q.group))
    if q.order:
        parts.append("order by " + ", ".join(f"{_show(t)} {d}" for t, d in q.order[:2]))
    if q.limit is not None:
        parts.append(f"limit {q.limit}")
    parts += [rel.describe() for rel in linking.relations]
    unexplained = [t.text for t in linking.unexplained]
    if unexplained:
        parts.append("not used: " + ", ".join(unexplained))
    parts += notes
    return ". ".join(parts) + "."


def _show(t: Target) -> str:
    if isinstance(t, Col):
        return t.ref
    if isinstance(t, Part):
        return f"{t.part}({t.col.ref})"
    if t.metric is not None:
        return f"{t.metric} (metric)"
    if t.col is None:
        return f"COUNT(*) of {t.table}"
    return f"{t.func.upper()}({'DISTINCT ' if t.distinct else ''}{t.col.ref})"
