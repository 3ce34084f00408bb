"""The question's shape -> a resolved Query (spec): the Analyzer (analyzer) tries the shapes; the
other modules resolve mentions, assign roles and build ordering, ranking, measures, listings and
the WHERE / HAVING clauses."""
