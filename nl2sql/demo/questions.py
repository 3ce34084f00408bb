"""The demo questions, each with the SQL an analyst would write by hand to check the answer.

The reference SQL is only used to check the pipeline's result (`nl2sql demo` prints ✓ or ✗);
the engine never sees it. A two-source question has one reference per datasource.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class DemoQuestion:
    question: str
    shape: str
    references: dict[str, str] = field(default_factory=dict)  # datasource id -> reference SQL
    expect_status: str = "success"


DEMO_QUESTIONS: tuple[DemoQuestion, ...] = (
    DemoQuestion(
        "How many orders were placed in 2024?",
        "count + date range",
        {
            "warehouse": "SELECT COUNT(*) FROM orders WHERE order_date BETWEEN DATE '2024-01-01' AND DATE '2024-12-31'"
        },
    ),
    DemoQuestion(
        "How many orders were placed in the last 30 days?",
        "count + relative date (as of the demo's pinned reference date, 2025-06-30)",
        {
            "warehouse": "SELECT COUNT(*) FROM orders WHERE order_date BETWEEN DATE '2025-06-01' AND DATE '2025-06-30'"
        },
    ),
    DemoQuestion(
        "What is the total quantity sold per product category?",
        "sum + group-by + join",
        {
            "warehouse": "SELECT p.category, SUM(i.quantity) FROM order_items i JOIN products p "
            "ON i.product_id = p.product_id GROUP BY p.category"
        },
    ),
    DemoQuestion(
        "What is the average unit price of products in the Electronics category?",
        "average + text filter",
        {"warehouse": "SELECT AVG(unit_price) FROM products WHERE category = 'Electronics'"},
    ),
    DemoQuestion(
        "Top 5 customers by number of orders",
        "top-N + join + order",
        {
            "warehouse": "SELECT c.first_name, c.last_name, COUNT(*) AS n FROM orders o JOIN customers c "
            "ON o.customer_id = c.customer_id GROUP BY c.customer_id, c.first_name, c.last_name "
            "ORDER BY n DESC LIMIT 5"
        },
    ),
    DemoQuestion(
        "How many customers are in california?",
        "count + value found by lookup",
        {"warehouse": "SELECT COUNT(*) FROM customers WHERE state = 'California'"},
    ),
    DemoQuestion(
        "How many orders were cancelled?",
        "count + value filter",
        {"warehouse": "SELECT COUNT(*) FROM orders WHERE status = 'cancelled'"},
    ),
    DemoQuestion(
        "How many order items have a quantity greater than 5?",
        "count + numeric filter",
        {"warehouse": "SELECT COUNT(*) FROM order_items WHERE quantity > 5"},
    ),
    DemoQuestion(
        "How many orders were placed between 2024-03-01 and 2024-05-31?",
        "count + explicit date range",
        {
            "warehouse": "SELECT COUNT(*) FROM orders WHERE order_date BETWEEN DATE '2024-03-01' AND DATE '2024-05-31'"
        },
    ),
    DemoQuestion(
        "How many support tickets are there per priority?",
        "count + group-by (CRM)",
        {"crm": "SELECT priority, COUNT(*) FROM support_tickets GROUP BY priority"},
    ),
    DemoQuestion(
        "For each region, compare the number of orders with the number of support tickets",
        "two sources combined (compare)",
        {
            "warehouse": "SELECT r.region_name, COUNT(*) FROM orders o JOIN customers c ON o.customer_id = c.customer_id "
            "JOIN regions r ON c.region_id = r.region_id GROUP BY r.region_name",
            "crm": "SELECT a.region, COUNT(*) FROM support_tickets t JOIN accounts a "
            "ON t.account_id = a.account_id GROUP BY a.region",
        },
    ),
    DemoQuestion("What is the weather today?", "refusal", {}, expect_status="not_answerable"),
)
