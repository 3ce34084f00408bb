"""Other readings of a question, for "I'm not sure — did you mean …?".

When the planner's reading is not likely enough (its confidence is under the run's
`min_confidence`) or it refused because a word could name several columns, the question is read
again with each mention that has rivals pinned to one of its top candidates ("weight" read as
the weight column of one table, then of another). Every reading that plans becomes a
candidate with its own plan, confidence and a one-line description; identical plans are kept
once. The user chooses one and it runs like any plan (validated, guarded, executed read-only).
Each reading also says what it takes the words with rivals to mean (`meaning`), for the words the
readings disagree on: teaching one of those as a term makes it the question's only reading.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from nl2sql.plan import PlanModel
from nl2sql.reasoning.llm.run_limits import checkpoint
from nl2sql.reasoning.offline.catalog.index import SchemaIndex
from nl2sql.reasoning.offline.confidence import calibrated, margin, used_refs
from nl2sql.reasoning.offline.linking.linker import Linking
from nl2sql.reasoning.offline.plan.joins import Tie
from nl2sql.reasoning.offline.plan.planner import Outcome, read_linked
from nl2sql.reasoning.offline.shapes.spec import Col, Cond, Part, Query, Target

MAX_CANDIDATES = 4
_PER_MENTION = 3  # candidates of one mention tried in turn
_MAX_READINGS = 12  # re-plans per question, at most
_FUNCS = {"sum": "total", "avg": "average", "max": "highest", "min": "lowest"}


@dataclass(frozen=True)
class Reading:
    """One candidate reading: its plan, its confidence, what it does in one line and what it
    takes the disputed words to mean ({word: table or table.column})."""

    plan: PlanModel
    confidence: float
    description: str
    meaning: Mapping[str, str] = field(default_factory=dict)


def readings(
    text: str,
    base: Outcome,
    idx: SchemaIndex,
    hints: Mapping[str, Any],
    reference: date | None,
) -> list[Reading]:
    """The planner's own reading first (when it planned), then the likeliest others; empty
    when the question offers no other reading."""
    if base.scan is None or base.linking is None:
        return []
    found: dict[str, Reading] = {}
    if base.plan is not None and base.query is not None:
        found[base.plan.model_dump_json()] = Reading(
            base.plan, base.confidence, describe(base.query) + _joined(base.ties, chosen=True),
            _meaning(base.linking, base.query)
        )
    # each mention pinned to one of its rivals, then each tied join taken the other way
    tries = [(linking, hints, "") for linking in _variants(base.linking)] + [
        (base.linking, {**hints, "join_words": tie.other_words}, _joined([tie], chosen=False))
        for tie in base.ties if tie.other_words
    ]
    others: list[Reading] = []
    for linking, asked, joined in tries:
        checkpoint()
        alt = read_linked(text, base.scan, linking, idx, asked, reference)
        if alt.plan is None or alt.query is None:
            continue
        key = alt.plan.model_dump_json()
        if key in found:
            continue
        # judged against every candidate of the original words, not the one it was pinned to;
        # never likelier than the engine's own reading, nor than a coin when it could not choose
        facts = dict(alt.evidence, margin=margin(base.linking, alt.query))
        cap = base.confidence if base.plan is not None else 0.5
        found[key] = reading = Reading(
            alt.plan, min(cap, calibrated(facts)),
            describe(alt.query) + (joined or _joined(alt.ties, chosen=True)),
            _meaning(base.linking, alt.query))
        others.append(reading)
    own = list(found.values())[: 1 if base.plan is not None else 0]
    others.sort(key=lambda r: -r.confidence)
    return _disputed((own + others)[:MAX_CANDIDATES])


def _joined(ties: list[Tie], chosen: bool) -> str:
    """The join columns a reading took where the question did not choose ("; joined on
    flights.origin_airport_id"), or ""."""
    cols = [c for tie in ties for c in (tie.chosen if chosen else tie.other)]
    return f"; joined on {', '.join(dict.fromkeys(cols))}" if cols else ""


def _meaning(linking: Linking, q: Query) -> dict[str, str]:
    """What the reading `q` takes each word with rivals to mean: the first of its candidates
    the reading uses."""
    refs = used_refs(q)
    out: dict[str, str] = {}
    for mention in linking.mentions:
        if len({e.ref for e in mention.candidates}) < 2:
            continue
        chosen = next((e.ref for e in mention.candidates if e.ref in refs), None)
        if chosen is not None:
            out[mention.text.lower()] = chosen
    return out


def _disputed(found: list[Reading]) -> list[Reading]:
    """The readings with their meaning cut to the words they do not all read alike."""
    words = {w for r in found for w in r.meaning}
    disputed = {w for w in words if len({r.meaning.get(w) for r in found}) > 1}
    return [replace(r, meaning={w: ref for w, ref in r.meaning.items() if w in disputed})
            for r in found]


def _variants(linking: Linking) -> list[Linking]:
    """The linking with one mention pinned to one of its top candidates, for each mention
    whose candidates name different things."""
    out: list[Linking] = []
    for pos, mention in enumerate(linking.mentions):
        refs = list(dict.fromkeys(e.ref for e in mention.candidates))
        if len(refs) < 2:
            continue
        for ref in refs[:_PER_MENTION]:
            pinned = replace(mention, candidates=[e for e in mention.candidates if e.ref == ref])
            mentions = list(linking.mentions)
            mentions[pos] = pinned
            out.append(replace(linking, mentions=mentions))
    return out[:_MAX_READINGS]


def describe(q: Query) -> str:
    """What a reading computes, in one line ("count of orders where year of orders.order_date
    = 2024 per customers.region")."""
    shown = [_target(t) for t, _ in q.select if t not in q.group]  # groups are said after "per"
    if not shown:
        shown = [_target(t) for t, _ in q.select] or [f"all columns of {q.root}"]
    line = ("distinct " if q.distinct else "") + ", ".join(shown)
    conds = [_cond(c) for c in q.where + q.having]
    if q.in_subquery is not None:
        conds.append(f"{q.in_subquery[0].ref} in ({describe(q.in_subquery[1])})")
    conds += [f"{col.ref} not in ({describe(sub)})" for col, sub in q.anti]
    if conds:
        line += " where " + " and ".join(conds)
    if q.group:
        line += " per " + ", ".join(_target(t) for t in q.group)
    if q.order and not (q.order[0][0] in q.group and q.order[0][1] == "asc"):  # not mere sorting
        t, direction = q.order[0]
        line += f", {'highest' if direction == 'desc' else 'lowest'} {_target(t)} first"
    if q.limit is not None:
        line += f", first {q.limit}"
    if q.set_op is not None:
        line += f"; {q.set_op[0]} {describe(q.set_op[1])}"
    return line


def _target(t: Target) -> str:
    if isinstance(t, Col):
        return t.ref
    if isinstance(t, Part):
        return f"{t.part} of {t.col.ref}"
    if t.metric is not None:
        return f"{t.metric} (metric of {t.table})"
    if t.col is None:
        return f"count of {t.table}"
    if t.func == "count":
        return f"count of {'distinct ' if t.distinct else ''}{t.col.ref}"
    return f"{_FUNCS[t.func]} {'distinct ' if t.distinct else ''}{t.col.ref}"


def _cond(c: Cond) -> str:
    if c.op == "or":
        return "(" + " or ".join(_cond(p) for p in c.values) + ")"
    values = [v.root if isinstance(v, Query) else v for v in c.values]
    shown = ", ".join(str(v) for v in values)
    op = {"in": "in", "between": "between", "range": "in"}.get(c.op, c.op)
    return f"{_target(c.target)} {'not ' if c.negated else ''}{op} {shown}"
