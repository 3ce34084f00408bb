"""The question's shape -> a resolved Query (spec), read by rules over one state.

`analyze.analyze` starts an `state.Analysis` (the question's scan, linking and schema index,
read-only, and the fields the rules write) and runs `analyze.RULES` in order: set aside the
tables inside a negation (negation), find the measure (measures, counts), read the shape
(select: ranking / rank_terms, aggregate / having, listing — each filling its WHERE / HAVING
clauses through clauses, conditions, comparisons, date_conditions, combine and negation, its
ORDER BY through ordering, its groups and projections through roles), then complete the query
(dependent, intersect), refuse a dropped negation or "or" (checks), and join a table named but
given no role (existence). resolve picks one table or column per mention; scopes finds what each
negation word negates.
"""
