"""The Python facade on the demo sources: ask, read the result, look at the plan and the SQL.

Run: python examples/python_api.py
"""

from __future__ import annotations

import nl2sql


def main() -> None:
    session = nl2sql.connect("demo")  # built on first use, offline
    for question in (
        "How many orders were placed in 2024?",
        "Top 5 customers by number of orders",
        "For each region, compare the number of orders with the number of support tickets",
    ):
        result = session.ask(question)
        print(f"{question}\n  status: {result.status}\n  answer: {result.answer}")
        for out in result.sub_queries:
            print(f"  [{out.sub_query.datasource_id}] {out.sql_draft}")
        print(result.to_pandas().head(), end="\n\n")
    plan_only = session.ask("How many customers are in California?", execute=False)
    print("planned, not executed:", plan_only.sql)
    session.close()


if __name__ == "__main__":
    main()
