"""What a listing shows: the rows' names (or key) for "list / show / which …", every column only
when all the information is asked for, every table the question lists, the ranked rows without
their measure for "which N …"; plans whose answer does not fit the question ("how many" answered
per group, an answer that only repeats the question's value) are refused. Schemas are built here
in snake_case and in camelCase with coded prefixes, none with declared keys."""

from __future__ import annotations

import pytest

import nl2sql

_SNAKE = """
    CREATE TABLE departments (department_id INTEGER, department_name TEXT);
    INSERT INTO departments VALUES (1, 'IT'), (2, 'Sales'), (3, 'Legal');
    CREATE TABLE staff (staff_id INTEGER, full_name TEXT, department_id INTEGER, salary INTEGER);
    INSERT INTO staff VALUES (1, 'Ann Lee', 1, 50), (2, 'Bob Ray', 2, 70), (3, 'Cleo Diaz', 1, 65),
        (4, 'Dan Moss', 2, 40), (5, 'Eve Holt', 3, 90);
    CREATE TABLE customers (customer_id INTEGER, customer_name TEXT, city TEXT, email TEXT);
    INSERT INTO customers VALUES (1, 'Acme', 'Lyon', 'a@x.org'), (2, 'Bolt', 'Oslo', 'b@x.org'),
        (3, 'Crane', 'Lyon', 'c@x.org');
    CREATE TABLE orders (order_id INTEGER, customer_id INTEGER, order_date TEXT, amount REAL);
    INSERT INTO orders VALUES (10, 1, '2024-01-05', 20), (11, 1, '2024-03-09', 35),
        (12, 2, '2024-04-01', 12), (13, 3, '2023-12-30', 50);
    CREATE TABLE invoices (invoice_id INTEGER, total_amount REAL);
    INSERT INTO invoices VALUES (1, 10.5), (2, 4.0), (3, 7.5);
    CREATE TABLE shows (show_id INTEGER, title TEXT, show_date TEXT, seat_price REAL);
    INSERT INTO shows VALUES (1, 'Gala', '2024-05-01', 40), (2, 'Jam', '2024-06-01', 15),
        (3, 'Revue', '2024-07-01', 30);
    CREATE TABLE tickets (ticket_id INTEGER, opened_on TEXT, priority TEXT);
    INSERT INTO tickets VALUES (1, '2024-01-02', 'low'), (2, '2024-01-02', 'high'),
        (3, '2024-02-10', 'low');
"""
_CODED = """
    CREATE TABLE tblDept (deptId INTEGER, deptName TEXT);
    INSERT INTO tblDept VALUES (1, 'IT'), (2, 'Sales');
    CREATE TABLE tblStaff (stafId INTEGER, stafFullName TEXT, stafDeptId INTEGER, stafSalary INTEGER);
    INSERT INTO tblStaff VALUES (1, 'Ann Lee', 1, 50), (2, 'Bob Ray', 2, 70), (3, 'Cleo Diaz', 1, 65);
    CREATE TABLE tblProduct (prodId INTEGER, prodName TEXT, prodPrice REAL);
    INSERT INTO tblProduct VALUES (1, 'Kite', 9), (2, 'Tent', 120), (3, 'Lamp', 30), (4, 'Stove', 75);
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("projection")
    return nl2sql.connect(
        sources=sqlite_sources(folder, {"snake": _SNAKE, "coded": _CODED}),
        settings={"project_dir": str(folder / "p"), "min_confidence": 0},
    )


def _rows(result) -> list:
    assert result.status == "success", result.first_error
    return sorted(tuple(r) for r in result.to_dict()["rows"])


@pytest.mark.parametrize(
    "source, question, rows",
    [
        # a listing shows the rows' names, not every column
        ("snake", "List the customers in Lyon.", [("Acme",), ("Crane",)]),
        # rows without a name column are shown by their key
        ("snake", "Show the orders placed after 2024-03-01.", [(11,), (12,)]),
        ("coded", "List the products that cost more than 50.", [("Stove",), ("Tent",)]),
        # every column only when all the information is asked for
        (
            "snake",
            "Give me all the information about the customers in Lyon.",
            [(1, "Acme", "Lyon", "a@x.org"), (3, "Crane", "Lyon", "c@x.org")],
        ),
        # "which N …" asks for the rows; "top N … by …" shows the measure too
        ("coded", "Which 2 products have the highest price?", [("Stove",), ("Tent",)]),
        ("coded", "Show the top 2 products by price.", [("Stove", 75.0), ("Tent", 120.0)]),
        # "shows" names the table, not the column `show_date` it begins
        ("snake", "Which 2 shows have the highest seat price?", [("Gala",), ("Revue",)]),
        # a value written in capitals is a name, not the pronoun it spells
        ("snake", "Which staff work in the IT department?", [("Ann Lee",), ("Cleo Diaz",)]),
        ("coded", "Which staff work in the IT department?", [("Ann Lee",), ("Cleo Diaz",)]),
        # every table a listing names is shown
        (
            "snake",
            "List the staff and their departments.",
            [("Ann Lee", "IT"), ("Bob Ray", "Sales"), ("Cleo Diaz", "IT"), ("Dan Moss", "Sales"),
             ("Eve Holt", "Legal")],
        ),  # fmt: skip
        (
            "coded",
            "List the staff and their departments.",
            [("Ann Lee", "IT"), ("Bob Ray", "Sales"), ("Cleo Diaz", "IT")],
        ),
        # "the <rows> and their <column>": the rows' names beside the column
        (
            "snake",
            "Show the customers and their cities.",
            [("Acme", "Lyon"), ("Bolt", "Oslo"), ("Crane", "Lyon")],
        ),
        (
            "coded",
            "List the products and their prices.",
            [("Kite", 9.0), ("Lamp", 30.0), ("Stove", 75.0), ("Tent", 120.0)],
        ),
        # a column named "total …" listed row by row when "each" row is asked
        ("snake", "Show the total amount of each invoice.", [(4.0,), (7.5,), (10.5,)]),
        # … and over all of them, their sum
        ("snake", "What is the total amount of all invoices?", [(22.0,)]),
        # an explicit group cue still counts per group
        ("snake", "How many tickets does each priority have?", [("high", 1), ("low", 2)]),
    ],
)
def test_a_listing_shows_what_was_asked(session, source, question, rows):
    assert _rows(session.ask(question, datasource=source)) == rows


@pytest.mark.parametrize(
    "question",
    [
        # one number asked; the plan found counts per opening day
        "How many tickets are open?",
        # the departments named Sales, not who works there
        "Who works in the Sales department?",
        # the column `total_amount` listed, or its sum? ("of all invoices" says: the sum)
        "What is the total amount of invoices?",
    ],
)
def test_an_answer_that_does_not_fit_the_question_is_refused(session, question):
    result = session.ask(question, datasource="snake")
    assert result.status != "success", result.to_dict().get("sql")
