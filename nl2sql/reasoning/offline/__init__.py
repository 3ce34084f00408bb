"""The built-in deterministic reasoning engine: no model, no network, same inputs → same outputs.

`engine.OfflineEngine` implements every skill of `nl2sql.reasoning.base`. The subpackages follow
the path of a question:
- `words/` — words and cues: text (tokens, stems, synonyms), lexicon (generic English: measure
  adjectives, relation verbs, fillers, units), dates, numeric, cues, scan;
- `catalog/` — the schema: naming (identifier words, column kinds), index (phrase, value and key
  index per snapshot), cache;
- `linking/` — linker, lookup, mentions (words → tables, columns, stored values; what is left is
  unexplained and refused);
- `shapes/` — the question's shape → a resolved Query (spec): rule functions over one
  analysis state (state), run in order by analyze (`RULES`): negated tables, the measure, the
  shape (select: ranking, aggregate, listing), dependent columns, intersections, checks of
  dropped negations and "or", existence joins; the shapes' parts are their own modules (resolve:
  one table/column per mention; roles, ordering, clauses with conditions, comparisons,
  date_conditions, combine and negation; measures and counts; rank_terms; having);
- `plan/` — joins (FK join tree), builder (Query → PlanModel), planner (refusals, confidence).
The skills that serve the other nodes stay at the top: answerability, split/decompose, refine
and synthesis.
"""
