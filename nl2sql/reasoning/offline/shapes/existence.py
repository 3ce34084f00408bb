"""Rule: a table named but given no role is joined, so only rows with a match count.

"members who have loans" lists members; the loans table has no column asked for and no
condition, yet the question restricts the members to those with a loan row. Only listings and
counts read it so; elsewhere the unused table is reported and costs confidence.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.shapes.state import Analysis


def existence_joins(a: Analysis) -> None:
    """Rule: join every named table the query does not reach yet (listing and count shapes)."""
    q = a.result()
    for m in a.question.mentions:
        table = a.res.table(m) if m.start not in a.used else None
        if table is None or table in q.tables():
            continue
        if q.shape not in ("listing", "count"):
            a.notes.append(f"'{m.text}' ({table}) was not used")
            a.penalty += 0.1
            continue
        a.used.add(m.start)
        q.joined.append(table)
        a.notes.append(f"joined {table} for '{m.text}': only rows with a matching {table} row count")
