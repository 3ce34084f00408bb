"""Plans rendered by the real generator and run on the real library database, against hand SQL."""

from __future__ import annotations

import sqlite3

import pytest

from nl2sql.reasoning.offline.catalog.index import build_index
from nl2sql.reasoning.offline.plan.planner import plan_question
from nl2sql.sqlgen.render import render_plan

CASES = [
    (
        "How many loans were made in 2024?",
        "SELECT COUNT(*) FROM loans WHERE loan_date BETWEEN '2024-01-01' AND '2024-12-31'",
    ),
    ("How many books are there per genre?", "SELECT genre, COUNT(*) FROM books GROUP BY genre"),
    (
        "What is the average price of books in the Fantasy genre?",
        "SELECT AVG(price) FROM books WHERE genre = 'Fantasy'",
    ),
    (
        "What is the total fee per district?",
        "SELECT d.district_name, SUM(l.fee) FROM loans l JOIN members m ON l.member_id = m.member_id "
        "JOIN branches b ON m.home_branch_id = b.branch_id JOIN districts d ON b.district_id = d.district_id "
        "GROUP BY d.district_id, d.district_name",
    ),
    (
        "Top 2 members by number of loans",
        "SELECT m.first_name, m.last_name, COUNT(*) FROM loans l JOIN members m ON l.member_id = m.member_id "
        "GROUP BY m.member_id ORDER BY COUNT(*) DESC, m.member_id LIMIT 2",
    ),
    (
        "Which 3 books have the highest price?",
        "SELECT title FROM books ORDER BY price DESC LIMIT 3",
    ),
    ("How many members are in ohio?", "SELECT COUNT(*) FROM members WHERE state = 'Ohio'"),
    ("How many loans are overdue?", "SELECT COUNT(*) FROM loans WHERE status = 'overdue'"),
    ("How many books have more than 400 pages?", "SELECT COUNT(*) FROM books WHERE pages > 400"),
    (
        "How many loans were made between 2024-03-01 and 2024-05-31?",
        "SELECT COUNT(*) FROM loans WHERE loan_date BETWEEN '2024-03-01' AND '2024-05-31'",
    ),
    (
        "How many members have more than 1 loans?",
        "SELECT COUNT(*) FROM (SELECT member_id FROM loans GROUP BY member_id HAVING COUNT(*) > 1)",
    ),
    (
        "How many members borrowed copies in good condition?",
        "SELECT COUNT(DISTINCT l.member_id) FROM loans l JOIN copies c ON l.copy_id = c.copy_id "
        "WHERE c.condition = 'good'",
    ),
    (
        "How many loans were returned before 2024?",
        "SELECT COUNT(*) FROM loans WHERE status = 'returned' AND returned_date < '2024-01-01'",
    ),
    (
        "Which author has the most books?",
        "SELECT a.name FROM books b JOIN authors a ON a.author_id = b.author_id "
        "GROUP BY a.author_id ORDER BY COUNT(*) DESC, a.author_id LIMIT 1",
    ),
]


@pytest.mark.parametrize("question, hand_sql", CASES, ids=[c[0] for c in CASES])
def test_plan_returns_the_same_rows_as_hand_written_sql(
    question, hand_sql, library, library_db, lookup
):
    out = plan_question(question, build_index(library), lookup)
    assert out.plan is not None, out.reasoning
    sql = render_plan(out.plan, "sqlite", library)
    con = sqlite3.connect(library_db)
    try:
        got, want = con.execute(sql).fetchall(), con.execute(hand_sql).fetchall()
    finally:
        con.close()
    if "LIMIT" in hand_sql:
        assert got == want
    else:
        assert sorted(got, key=repr) == sorted(want, key=repr)
