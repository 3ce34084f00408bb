"""Rule: columns shown beside a grouped entity are grouped by too.

"the branch name and city with the most concerts" groups by the branch's key; the city depends on
that key, so grouping by it as well changes no group and makes the query valid SQL everywhere.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.shapes.spec import Col
from nl2sql.reasoning.offline.shapes.state import Analysis


def dependent_columns(a: Analysis) -> None:
    """Rule: add to GROUP BY every shown column of a table grouped by its primary key."""
    q = a.result()
    if not q.group:
        return
    idx = a.question.idx
    keyed = {g.table for g in q.group if isinstance(g, Col) and [g.column] == idx.pk(g.table)}
    for target, _ in q.select:
        if isinstance(target, Col) and target not in q.group and target.table in keyed:
            q.group.append(target)
