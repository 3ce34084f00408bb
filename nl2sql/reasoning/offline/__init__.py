"""The built-in deterministic reasoning engine: no model, no network, same inputs → same outputs.

`engine.OfflineEngine` implements every skill of `nl2sql.reasoning.base`. The subpackages follow
the path of a question:
- `words/` — words and cues: text (tokens, stems, synonyms), lexicon (generic English: measure
  adjectives, relation verbs, fillers, units), dates, numeric, cues, scan;
- `catalog/` — the schema: naming (identifier words, column kinds), index (phrase, value and key
  index per snapshot), cache;
- `linking/` — linker, lookup, mentions (words → tables, columns, stored values; what is left is
  unexplained and refused);
- `shapes/` — the question's shape → a resolved Query (spec): resolve (one table/column per
  mention), roles, ordering, ranking, negation (anti-joins), combine ("or", "both … and …"),
  clauses (WHERE / HAVING), conditions and comparisons, measures, listing, analyzer (the
  Analyzer, which tries the shapes);
- `plan/` — joins (FK join tree), builder (Query → PlanModel), planner (refusals, confidence).
The skills that serve the other nodes stay at the top: answerability, split/decompose, refine
and synthesis.
"""
