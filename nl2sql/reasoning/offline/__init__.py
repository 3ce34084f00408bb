"""The built-in deterministic reasoning engine: no model, no network, same inputs → same outputs.

`engine.OfflineEngine` implements every skill of `nl2sql.reasoning.base`. The modules follow the
path of a question: text/dates/numeric/cues/scan (words and cues) → index (per-snapshot phrase,
value and key index) → linking/lookup (words → tables, columns, stored values) → resolve/roles/
ranking/shapes/conditions (question shape → a resolved Query) → joins/builder (FK join tree →
PlanModel); answerability, split/decompose, refine and synthesis serve the other nodes.
"""
