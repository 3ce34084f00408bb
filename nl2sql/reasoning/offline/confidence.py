"""The offline planner's confidence: its evidence about one reading, as a calibrated probability.

The planner knows how it read a question: how each word was linked (an exact name, a short or
head-noun form, a stored value, a value found by look-up, a near miss), how many content words
nothing linked, how far apart the best and second-best candidates of a mention were, how many
tables the joins span and how many joins no key declares, and the rule-based score the shapes
lowered for tie-breaks (`heuristic`). `evidence()` turns these into named numbers;
`calibrated()` maps them to the probability that the answer is right, with a logistic model
fitted on leave-databases-out benchmark results and shipped as `calibration.json` beside this
file (refit with `nl2sql bench calibrate --write`, see the README). Without the file the
rule-based score is the confidence.

    >>> round(_sigmoid(0.0), 2)
    0.5
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from typing import Any

from nl2sql.reasoning.offline.catalog.segments import is_descriptor
from nl2sql.reasoning.offline.linking.lexical import value_nouns
from nl2sql.reasoning.offline.linking.linker import Linking
from nl2sql.reasoning.offline.plan.joins import JoinTree
from nl2sql.reasoning.offline.shapes.spec import Agg, Col, Part, Query
from nl2sql.reasoning.offline.words.scan import Scan
from nl2sql.reasoning.offline.words.text import is_content

CALIBRATION_FILE = "calibration.json"
#: every shape the analyzer produces gets a 0/1 feature of its own
SHAPES = ("listing", "count", "aggregate", "ranking")
_STRONG_FORMS = ("name", "original", "qualified")


def evidence(
    s: Scan, linking: Linking, q: Query, tree: JoinTree | None, heuristic: float,
    table_words: Mapping[str, tuple[str, ...]] | None = None,
) -> dict[str, float]:
    """The named evidence of one planned reading (every value a plain number); `table_words`
    are the words of each table's name (a table whose head noun the question says is named)."""
    refs = used_refs(q)
    used = [m for m in linking.mentions if any(e.ref in refs for e in m.candidates)]
    forms = [_chosen(m, refs).form for m in used]
    weak = sum(1 for f in forms if f not in _STRONG_FORMS)
    linked = {i for m in linking.mentions for i in range(m.start, m.end)}
    linked |= {i for v in linking.values for i in range(v.start, v.end)}
    linked |= {t.index for t in linking.lexical + linking.units} | s.taken
    content = [t for t in s.tokens if is_content(t)]
    unlinked = sum(1 for t in content if t.index not in linked)
    sources = [v.source for v in linking.values]
    features = {
        "heuristic": heuristic,
        "tables": float(len(tree.tables) if tree else 1),
        "inferred_joins": float(len(tree.inferred) if tree else 0),
        "ambiguous_join": float(bool(tree and tree.ambiguous)),
        "fan_out": float(bool(tree and tree.fans_out)),
        "weak_links": float(weak),
        # a WordNet synonym, or a broader or narrower noun, no name
        "synonym_links": float(forms.count("synonym") + forms.count("broader")),
        "margin": margin(linking, q),
        "unlinked_share": unlinked / len(content) if content else 0.0,
        "lexical_words": float(len(linking.lexical)),
        "values_stored": float(sum(s in ("sample", "quoted") for s in sources)),
        "values_looked_up": float(sources.count("lookup")),
        "values_close": float(sources.count("close")),
        "conditions": float(len(q.where) + len(q.having)),
        "nested": float(bool(q.in_subquery or q.anti or q.set_op)),
        "grouped": float(bool(q.group)),
        "words": float(len(content)),
        "unnamed_shown": float(unnamed_shown(s, linking, q, table_words or {})),
    }
    for shape in SHAPES:
        features[f"shape_{shape}"] = float(q.shape == shape)
    return features


def calibrated(features: dict[str, float]) -> float:
    """The probability, by the shipped model, that the reading is right (the rule-based score
    when no model is shipped, and never above it); rounded to two places."""
    model = _model()
    if model is None:
        return round(features["heuristic"], 2)
    return score(model, features)


def with_interactions(features: dict[str, float]) -> dict[str, float]:
    """The evidence with the combinations a linear model cannot form itself: a count or an
    aggregate over joined tables (rows a join repeats), and the share of joins no key declares."""
    joins = max(0.0, features.get("tables", 1.0) - 1.0)
    counted = features.get("shape_count", 0.0) + features.get("shape_aggregate", 0.0)
    return {
        **features,
        "aggregate_over_join": counted * float(joins > 0),
        "inferred_share": features.get("inferred_joins", 0.0) / joins if joins else 0.0,
    }


def score(model: dict[str, Any], features: dict[str, float]) -> float:
    """The probability `model` (a calibration file's content) gives `features`, never above
    the rule-based score: the model may only lower it (a rule such as "a SUM over a join that
    repeats rows" stands even where the benchmarks had too few cases to teach it)."""
    return round(
        min(_logistic(model, with_interactions(features)), features.get("heuristic", 1.0)), 2
    )


def _logistic(model: dict[str, Any], features: dict[str, float]) -> float:
    z = float(model["bias"])
    for name, weight, mean, scale in zip(
        model["features"], model["weights"], model["mean"], model["scale"], strict=True
    ):
        z += weight * (features.get(name, 0.0) - mean) / scale
    return min(0.99, max(0.01, _sigmoid(z)))


@lru_cache(maxsize=1)
def _model() -> dict[str, Any] | None:
    path = resources.files(__package__).joinpath(CALIBRATION_FILE)
    if not path.is_file():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


def used_refs(q: Query) -> set[str]:
    """The tables and columns the reading uses (those the mentions were resolved to)."""
    out = set(q.tables())
    targets = [t for t, _ in q.select] + q.group + [c.target for c in q.where + q.having]
    for t in targets + [t for t, _ in q.order]:
        col = t if isinstance(t, Col) else t.col if isinstance(t, Part | Agg) else None
        if col is not None:
            out.add(col.ref)
    return out


def margin(linking: Linking, q: Query) -> float:
    """The smallest lead, over the mentions `q` uses, of the element read over its best rival."""
    refs = used_refs(q)
    used = [m for m in linking.mentions if any(e.ref in refs for e in m.candidates)]
    return min((_margin(m, refs) for m in used), default=1.0)


def unnamed_shown(s: Scan, linking: Linking, q: Query,
                  table_words: Mapping[str, tuple[str, ...]]) -> int:
    """How many columns the answer shows from a table no word of the question names: neither
    the table's head noun nor a column's full name, only a short or generic word ("the name of
    the brewers" read as a nation's name). Such a column is a guess at whose it is; a head word
    that is no generic descriptor ("regions" for `salesRegion`, not "name" or "code") names it."""
    refs = used_refs(q)
    named = {e.table for m in linking.mentions for e in m.candidates
             if e.ref in refs and (e.column is None or e.form in _STRONG_FORMS)}
    named |= {e.table for m in linking.mentions if not is_descriptor(m.text)
              for e in m.candidates if e.ref in refs}
    said = {t.canon for t in s.tokens}
    named |= {table for table, words in table_words.items() if words and words[-1] in said}
    # a stored value written as the noun of a phrase ("each rabbit", "the cats") names its table
    named |= {table for v in value_nouns(s.tokens, linking)
              for table, column, _ in v.options if f"{table}.{column}" in refs}
    return sum(1 for t, _ in q.select if isinstance(t, Col) and t.table not in named)


def _chosen(m: Any, refs: set[str]) -> Any:
    return next(e for e in m.candidates if e.ref in refs)


def _margin(m: Any, refs: set[str]) -> float:
    """How much stronger the element a mention was read as is than its best rival (1: none)."""
    chosen = _chosen(m, refs)
    rivals = [e.score for e in m.candidates if e.ref != chosen.ref and e.ref not in refs]
    return max(0.0, min(1.0, chosen.score - max(rivals))) if rivals else 1.0
