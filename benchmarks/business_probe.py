"""A small probe of analyst questions over synthetic business databases, in Spider format,
to see what the offline engine answers on plain snake_case schemas that declare no foreign
keys (the keys are left to be inferred). Four databases are generated deterministically from a
seed: `shop` (customers, orders, order lines, products, categories, employees, departments, with
yes/no and 1/0 flags, dates, amounts and a status column), `helpdesk` (clients, agents, support
tickets, subscriptions and invoices) and two smaller ones, `fleet` (depots, drivers, vehicles,
trips) and `events` (venues, events, bookings), so that leave-databases-out folds have four.
About sixty questions are worded the way an analyst asks them (counts, totals and averages by
group, top-N, most/least, flags, explicit date ranges, listings, distinct values, HAVING, set
difference); each has a gold SQLite query, and the script checks that every gold query runs and
returns rows.

    python benchmarks/business_probe.py /tmp/biz [--seed 7]
    python benchmarks/renamed_copy.py /tmp/biz /tmp/biz_camel
    nl2sql bench spider --questions /tmp/biz/questions.json --databases /tmp/biz/database \
        --min-confidence 0 --out /tmp/biz.mc0.jsonl

The folder goes outside the repository (benchmark data is never committed).
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
from datetime import date, timedelta
from pathlib import Path

FIRST = ("Ava", "Ben", "Chloe", "Dev", "Elif", "Farid", "Grace", "Hugo", "Iris", "Jonas",
         "Kira", "Liam", "Mona", "Nils", "Olga", "Pavel", "Quinn", "Rosa", "Sami", "Tara")
LAST = ("Archer", "Baker", "Castro", "Dalton", "Engel", "Fischer", "Garcia", "Holm", "Ito",
        "Jensen", "Kowalski", "Lopez", "Moreau", "Novak", "Okafor", "Petrov")
CITIES = (("Lyon", "France"), ("Paris", "France"), ("Munich", "Germany"), ("Berlin", "Germany"),
          ("Madrid", "Spain"), ("Porto", "Portugal"), ("Leeds", "United Kingdom"))
DEPARTMENTS = ("Sales", "IT", "Logistics", "Finance", "Marketing")
CATEGORIES = {
    "Garden": ("Hose Reel", "Pruning Shears", "Seed Tray", "Watering Can"),
    "Kitchen": ("Chef Knife", "Cutting Board", "Kettle", "Salad Spinner", "Toaster"),
    "Office": ("Desk Lamp", "Stapler", "Notebook", "Monitor Stand"),
    "Toys": ("Puzzle Box", "Kite", "Wooden Train"),
    "Outdoor": ("Tent", "Camping Stove", "Sleeping Bag"),
}
STATUSES = ("delivered", "delivered", "delivered", "shipped", "pending", "cancelled")
INDUSTRIES = ("Retail", "Banking", "Healthcare", "Education", "Logistics")
REGIONS = ("North", "South", "East", "West")
TEAMS = ("Billing", "Technical", "Onboarding")
PLANS = (("Basic", 29.0), ("Team", 79.0), ("Enterprise", 249.0))


def _day(rng: random.Random, start: date, span: int) -> str:
    return (start + timedelta(days=rng.randrange(span))).isoformat()


def _person(rng: random.Random, used: set[str]) -> tuple[str, str]:
    while True:
        first, last = rng.choice(FIRST), rng.choice(LAST)
        if f"{first} {last}" not in used:
            used.add(f"{first} {last}")
            return first, last


SHOP_SCHEMA = """
CREATE TABLE departments (department_id INTEGER PRIMARY KEY, department_name TEXT, floor INTEGER);
CREATE TABLE employees (employee_id INTEGER PRIMARY KEY, first_name TEXT, last_name TEXT,
  department_id INTEGER, hire_date TEXT, salary REAL, is_active INTEGER);
CREATE TABLE categories (category_id INTEGER PRIMARY KEY, category_name TEXT);
CREATE TABLE products (product_id INTEGER PRIMARY KEY, product_name TEXT, category_id INTEGER,
  unit_price REAL, in_stock TEXT);
CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, customer_name TEXT, email TEXT,
  city TEXT, country TEXT, signup_date TEXT, is_active INTEGER);
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER, employee_id INTEGER,
  order_date TEXT, status TEXT, total_amount REAL);
CREATE TABLE order_lines (order_line_id INTEGER PRIMARY KEY, order_id INTEGER,
  product_id INTEGER, quantity INTEGER, line_amount REAL);
"""


def build_shop(con: sqlite3.Connection, rng: random.Random) -> None:
    """Fill the shop database: 5 departments, 18 employees, 19 products, 30 customers, 120 orders."""
    con.executescript(SHOP_SCHEMA)
    for i, name in enumerate(DEPARTMENTS, 1):
        con.execute("INSERT INTO departments VALUES (?, ?, ?)", (i, name, rng.randint(1, 4)))
    used = {"Ava Archer"}  # the first customer, named in a question
    for i in range(1, 19):
        first, last = _person(rng, used)
        con.execute("INSERT INTO employees VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (i, first, last, rng.randint(1, len(DEPARTMENTS)),
                     _day(rng, date(2015, 1, 1), 3000), float(rng.randrange(32, 95) * 1000),
                     int(rng.random() < 0.8)))
    prices: dict[int, float] = {}
    pid = 0
    for cid, (category, products) in enumerate(CATEGORIES.items(), 1):
        con.execute("INSERT INTO categories VALUES (?, ?)", (cid, category))
        for product in products:
            pid += 1
            prices[pid] = round(rng.uniform(4, 180), 2)
            con.execute("INSERT INTO products VALUES (?, ?, ?, ?, ?)",
                        (pid, product, cid, prices[pid], rng.choice(("yes", "yes", "no"))))
    for i in range(1, 31):
        first, last = ("Ava", "Archer") if i == 1 else _person(rng, used)
        city, country = rng.choice(CITIES)
        con.execute("INSERT INTO customers VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (i, f"{first} {last}", f"{first.lower()}.{last.lower()}@example.com", city,
                     country, _day(rng, date(2021, 1, 1), 900), int(rng.random() < 0.7)))
    line = 0
    # products 1..pid-3 are sold; the last three never appear on an order line
    sold = list(range(1, pid - 2))
    for order in range(1, 121):
        # customers 29 and 30 never order; customer 1 orders most, so "the most" has one answer
        customer = 1 if order % 10 == 0 else rng.choice(range(1, 29))
        lines = []
        for product in rng.sample(sold, rng.randint(1, 4)):
            quantity = rng.randint(1, 5)
            lines.append((product, quantity, round(quantity * prices[product], 2)))
        con.execute("INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?)",
                    (order, customer, rng.randint(1, 18), _day(rng, date(2023, 1, 1), 600),
                     rng.choice(STATUSES), round(sum(a for _, _, a in lines), 2)))
        for product, quantity, amount in lines:
            line += 1
            con.execute("INSERT INTO order_lines VALUES (?, ?, ?, ?, ?)",
                        (line, order, product, quantity, amount))


HELPDESK_SCHEMA = """
CREATE TABLE clients (client_id INTEGER PRIMARY KEY, client_name TEXT, industry TEXT,
  region TEXT, is_vip TEXT);
CREATE TABLE agents (agent_id INTEGER PRIMARY KEY, agent_name TEXT, team TEXT,
  is_active INTEGER);
CREATE TABLE tickets (ticket_id INTEGER PRIMARY KEY, client_id INTEGER, agent_id INTEGER,
  subject TEXT, priority TEXT, status TEXT, opened_on TEXT, closed_on TEXT);
CREATE TABLE subscriptions (subscription_id INTEGER PRIMARY KEY, client_id INTEGER,
  plan_name TEXT, monthly_fee REAL, start_date TEXT, is_cancelled INTEGER);
CREATE TABLE invoices (invoice_id INTEGER PRIMARY KEY, subscription_id INTEGER,
  invoice_date TEXT, amount REAL, paid TEXT);
"""

SUBJECTS = ("Login fails", "Invoice question", "Slow dashboard", "Export broken",
            "Password reset", "New user setup", "Data import error")
COMPANY = ("Acme", "Borealis", "Cobalt", "Dune", "Ember", "Fjord", "Granite", "Harbor", "Indigo",
           "Juniper", "Keystone", "Lumen", "Meridian", "Nimbus", "Orchid", "Pioneer")


def build_helpdesk(con: sqlite3.Connection, rng: random.Random) -> None:
    """Fill the helpdesk database: 16 clients, 9 agents, 150 tickets, subscriptions, invoices."""
    con.executescript(HELPDESK_SCHEMA)
    for i, name in enumerate(COMPANY, 1):
        con.execute("INSERT INTO clients VALUES (?, ?, ?, ?, ?)",
                    (i, f"{name} {rng.choice(('Ltd', 'Group', 'Inc'))}", rng.choice(INDUSTRIES),
                     rng.choice(REGIONS), rng.choice(("yes", "no", "no"))))
    used: set[str] = set()
    for i in range(1, 10):
        first, last = _person(rng, used)
        con.execute("INSERT INTO agents VALUES (?, ?, ?, ?)",
                    (i, f"{first} {last}", TEAMS[i % 3], int(i != 9)))
    for i in range(1, 151):
        opened = date(2024, 1, 1) + timedelta(days=rng.randrange(300))
        status = rng.choice(("open", "closed", "closed", "pending"))
        closed = (opened + timedelta(days=rng.randint(0, 20))).isoformat() if status == "closed" \
            else None
        con.execute("INSERT INTO tickets VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (i, rng.randint(1, 14), rng.randint(1, 8), rng.choice(SUBJECTS),
                     rng.choice(("low", "medium", "high", "urgent")), status, opened.isoformat(),
                     closed))
    invoice = 0
    for sid in range(1, 21):
        plan, fee = rng.choice(PLANS)
        start = date(2023, 6, 1) + timedelta(days=rng.randrange(400))
        con.execute("INSERT INTO subscriptions VALUES (?, ?, ?, ?, ?, ?)",
                    (sid, rng.randint(1, 16), plan, fee, start.isoformat(),
                     int(rng.random() < 0.25)))
        for month in range(rng.randint(1, 6)):
            invoice += 1
            con.execute("INSERT INTO invoices VALUES (?, ?, ?, ?, ?)",
                        (invoice, sid, (start + timedelta(days=30 * month)).isoformat(), fee,
                         rng.choice(("yes", "yes", "no"))))


FLEET_SCHEMA = """
CREATE TABLE depots (depot_id INTEGER PRIMARY KEY, depot_name TEXT, city TEXT);
CREATE TABLE drivers (driver_id INTEGER PRIMARY KEY, driver_name TEXT, depot_id INTEGER,
  licence_class TEXT, hired_on TEXT);
CREATE TABLE vehicles (vehicle_id INTEGER PRIMARY KEY, plate TEXT, model TEXT, depot_id INTEGER,
  capacity_kg INTEGER);
CREATE TABLE trips (trip_id INTEGER PRIMARY KEY, driver_id INTEGER, vehicle_id INTEGER,
  trip_date TEXT, distance_km REAL, fuel_cost REAL);
"""
MODELS = ("Sprinter", "Transit", "Daily", "Master")


def build_fleet(con: sqlite3.Connection, rng: random.Random) -> None:
    """Fill the fleet database: 4 depots, 12 drivers, 10 vehicles, 90 trips."""
    con.executescript(FLEET_SCHEMA)
    for i, (city, _) in enumerate(CITIES[:4], 1):
        con.execute("INSERT INTO depots VALUES (?, ?, ?)", (i, f"{city} Yard", city))
    used: set[str] = set()
    for i in range(1, 13):
        first, last = _person(rng, used)
        con.execute(
            "INSERT INTO drivers VALUES (?, ?, ?, ?, ?)",
            (i, f"{first} {last}", rng.randint(1, 4), rng.choice("BCD"),
             _day(rng, date(2016, 1, 1), 2500)),
        )  # fmt: skip
    for i in range(1, 11):
        con.execute(
            "INSERT INTO vehicles VALUES (?, ?, ?, ?, ?)",
            (i, f"FL-{100 + i}", rng.choice(MODELS), rng.randint(1, 4), rng.choice((800, 1200, 3500))),
        )
    for i in range(1, 91):
        km = round(rng.uniform(12, 480), 1)
        con.execute(
            "INSERT INTO trips VALUES (?, ?, ?, ?, ?, ?)",
            (i, rng.randint(1, 11), rng.randint(1, 10), _day(rng, date(2024, 1, 1), 360), km,
             round(km * rng.uniform(0.18, 0.26), 2)),
        )  # fmt: skip  (driver 12 never drives)


EVENTS_SCHEMA = """
CREATE TABLE venues (venue_id INTEGER PRIMARY KEY, venue_name TEXT, city TEXT, seats INTEGER);
CREATE TABLE events (event_id INTEGER PRIMARY KEY, title TEXT, venue_id INTEGER, event_date TEXT,
  genre TEXT, ticket_price REAL);
CREATE TABLE bookings (booking_id INTEGER PRIMARY KEY, event_id INTEGER, attendee_email TEXT,
  tickets INTEGER, booked_on TEXT);
"""
GENRES = ("Jazz", "Rock", "Comedy", "Theatre")


def build_events(con: sqlite3.Connection, rng: random.Random) -> None:
    """Fill the events database: 5 venues, 24 events, 200 bookings."""
    con.executescript(EVENTS_SCHEMA)
    for i, name in enumerate(("Blue Hall", "Dock Arena", "Elm Theatre", "Pier Club", "Rex Hall"), 1):
        con.execute(
            "INSERT INTO venues VALUES (?, ?, ?, ?)",
            (i, name, rng.choice(CITIES)[0], rng.choice((300, 800, 1500, 5000))),
        )
    for i in range(1, 25):
        con.execute(
            "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)",
            (i, f"{rng.choice(('Night', 'Evening', 'Festival', 'Gala'))} {i}", rng.randint(1, 4),
             _day(rng, date(2024, 1, 1), 365), rng.choice(GENRES), float(rng.randrange(15, 90))),
        )  # fmt: skip  (venue 5 hosts nothing)
    for i in range(1, 201):
        con.execute(
            "INSERT INTO bookings VALUES (?, ?, ?, ?, ?)",
            (i, rng.randint(1, 24), f"guest{rng.randint(1, 60)}@example.com", rng.randint(1, 6),
             _day(rng, date(2023, 10, 1), 300)),
        )  # fmt: skip


# (db_id, question, gold SQL): the analyst's wording, then the query that answers it
QUESTIONS: tuple[tuple[str, str, str], ...] = (
    ("shop", "How many customers are there?", "SELECT count(*) FROM customers"),
    ("shop", "How many orders were placed in 2023?",
     "SELECT count(*) FROM orders WHERE order_date BETWEEN '2023-01-01' AND '2023-12-31'"),
    ("shop", "What is the total amount of all orders?", "SELECT sum(total_amount) FROM orders"),
    ("shop", "What is the average order amount?", "SELECT avg(total_amount) FROM orders"),
    ("shop", "How many orders does each status have?",
     "SELECT status, count(*) FROM orders GROUP BY status"),
    ("shop", "What is the total order amount per customer?",
     "SELECT c.customer_name, sum(o.total_amount) FROM customers c JOIN orders o "
     "ON o.customer_id = c.customer_id GROUP BY c.customer_id"),
    ("shop", "Show the average salary in each department.",
     "SELECT d.department_name, avg(e.salary) FROM employees e JOIN departments d "
     "ON e.department_id = d.department_id GROUP BY d.department_id"),
    ("shop", "Which 5 products have the highest unit price?",
     "SELECT product_name FROM products ORDER BY unit_price DESC LIMIT 5"),
    ("shop", "Which product is the cheapest?",
     "SELECT product_name FROM products ORDER BY unit_price ASC LIMIT 1"),
    ("shop", "Which customer placed the most orders?",
     "SELECT c.customer_name FROM customers c JOIN orders o ON o.customer_id = c.customer_id "
     "GROUP BY c.customer_id ORDER BY count(*) DESC LIMIT 1"),
    ("shop", "Which department has the most employees?",
     "SELECT d.department_name FROM departments d JOIN employees e "
     "ON e.department_id = d.department_id GROUP BY d.department_id ORDER BY count(*) DESC LIMIT 1"),
    ("shop", "What is the highest salary in each department?",
     "SELECT d.department_name, max(e.salary) FROM employees e JOIN departments d "
     "ON e.department_id = d.department_id GROUP BY d.department_id"),
    ("shop", "How many active customers do we have?",
     "SELECT count(*) FROM customers WHERE is_active = 1"),
    ("shop", "List the active employees.",
     "SELECT first_name, last_name FROM employees WHERE is_active = 1"),
    ("shop", "Which products are in stock?",
     "SELECT product_name FROM products WHERE in_stock = 'yes'"),
    ("shop", "List the orders placed after 2024-03-01.",
     "SELECT order_id FROM orders WHERE order_date > '2024-03-01'"),
    ("shop", "How many orders were cancelled?",
     "SELECT count(*) FROM orders WHERE status = 'cancelled'"),
    ("shop", "List the customers in Lyon.", "SELECT customer_name FROM customers WHERE city = 'Lyon'"),
    ("shop", "Which employees work in the IT department?",
     "SELECT e.first_name, e.last_name FROM employees e JOIN departments d "
     "ON e.department_id = d.department_id WHERE d.department_name = 'IT'"),
    ("shop", "What are the categories?", "SELECT category_name FROM categories"),
    ("shop", "Which countries do our customers come from?",
     "SELECT DISTINCT country FROM customers"),
    ("shop", "What are the different order statuses?", "SELECT DISTINCT status FROM orders"),
    ("shop", "Which customers have more than 5 orders?",
     "SELECT c.customer_name FROM customers c JOIN orders o ON o.customer_id = c.customer_id "
     "GROUP BY c.customer_id HAVING count(*) > 5"),
    ("shop", "Which products have never been ordered?",
     "SELECT product_name FROM products WHERE product_id NOT IN "
     "(SELECT product_id FROM order_lines)"),
    ("shop", "Which customers have not placed any order?",
     "SELECT customer_name FROM customers WHERE customer_id NOT IN "
     "(SELECT customer_id FROM orders)"),
    ("shop", "How many products does each category contain?",
     "SELECT c.category_name, count(*) FROM categories c JOIN products p "
     "ON p.category_id = c.category_id GROUP BY c.category_id"),
    ("shop", "What is the total quantity sold for each product?",
     "SELECT p.product_name, sum(l.quantity) FROM products p JOIN order_lines l "
     "ON l.product_id = p.product_id GROUP BY p.product_id"),
    ("shop", "Show the email of customer Ava Archer.",
     "SELECT email FROM customers WHERE customer_name = 'Ava Archer'"),
    ("shop", "How many customers live in Germany?",
     "SELECT count(*) FROM customers WHERE country = 'Germany'"),
    ("shop", "What is the average unit price of products in the Kitchen category?",
     "SELECT avg(p.unit_price) FROM products p JOIN categories c ON p.category_id = c.category_id "
     "WHERE c.category_name = 'Kitchen'"),
    ("shop", "Which employees were hired before 2017-01-01?",
     "SELECT first_name, last_name FROM employees WHERE hire_date < '2017-01-01'"),
    ("shop", "What is the largest order amount?", "SELECT max(total_amount) FROM orders"),
    ("shop", "How many customers signed up in 2022?",
     "SELECT count(*) FROM customers WHERE signup_date BETWEEN '2022-01-01' AND '2022-12-31'"),
    ("helpdesk", "How many tickets are open?", "SELECT count(*) FROM tickets WHERE status = 'open'"),
    ("helpdesk", "How many tickets does each priority have?",
     "SELECT priority, count(*) FROM tickets GROUP BY priority"),
    ("helpdesk", "Which agent handled the most tickets?",
     "SELECT a.agent_name FROM agents a JOIN tickets t ON t.agent_id = a.agent_id "
     "GROUP BY a.agent_id ORDER BY count(*) DESC LIMIT 1"),
    ("helpdesk", "List the clients in the Banking industry.",
     "SELECT client_name FROM clients WHERE industry = 'Banking'"),
    ("helpdesk", "What are the different ticket priorities?",
     "SELECT DISTINCT priority FROM tickets"),
    ("helpdesk", "Which clients are VIP?", "SELECT client_name FROM clients WHERE is_vip = 'yes'"),
    ("helpdesk", "How many tickets were opened in March 2024?",
     "SELECT count(*) FROM tickets WHERE opened_on BETWEEN '2024-03-01' AND '2024-03-31'"),
    ("helpdesk", "What is the total invoiced amount?", "SELECT sum(amount) FROM invoices"),
    ("helpdesk", "What is the total amount of unpaid invoices?",
     "SELECT sum(amount) FROM invoices WHERE paid = 'no'"),
    ("helpdesk", "How many subscriptions does each plan have?",
     "SELECT plan_name, count(*) FROM subscriptions GROUP BY plan_name"),
    ("helpdesk", "What is the average monthly fee of the subscriptions?",
     "SELECT avg(monthly_fee) FROM subscriptions"),
    ("helpdesk", "Which clients have no subscription?",
     "SELECT client_name FROM clients WHERE client_id NOT IN "
     "(SELECT client_id FROM subscriptions)"),
    ("helpdesk", "Which agents belong to the Technical team?",
     "SELECT agent_name FROM agents WHERE team = 'Technical'"),
    ("helpdesk", "How many tickets has each client raised?",
     "SELECT c.client_name, count(*) FROM clients c JOIN tickets t ON t.client_id = c.client_id "
     "GROUP BY c.client_id"),
    ("helpdesk", "Which clients have raised more than 12 tickets?",
     "SELECT c.client_name FROM clients c JOIN tickets t ON t.client_id = c.client_id "
     "GROUP BY c.client_id HAVING count(*) > 12"),
    ("helpdesk", "How many agents are active?", "SELECT count(*) FROM agents WHERE is_active = 1"),
    ("helpdesk", "What are the regions of the clients?", "SELECT DISTINCT region FROM clients"),
    ("helpdesk", "List the subjects of the urgent tickets.",
     "SELECT subject FROM tickets WHERE priority = 'urgent'"),
    ("helpdesk", "How many subscriptions have been cancelled?",
     "SELECT count(*) FROM subscriptions WHERE is_cancelled = 1"),
    ("fleet", "How many trips were made in June 2024?",
     "SELECT count(*) FROM trips WHERE trip_date BETWEEN '2024-06-01' AND '2024-06-30'"),
    ("fleet", "What is the total distance driven by each driver?",
     "SELECT d.driver_name, sum(t.distance_km) FROM drivers d JOIN trips t "
     "ON t.driver_id = d.driver_id GROUP BY d.driver_id"),
    ("fleet", "Which drivers have never made a trip?",
     "SELECT driver_name FROM drivers WHERE driver_id NOT IN (SELECT driver_id FROM trips)"),
    ("fleet", "List the vehicles of the Lyon Yard depot.",
     "SELECT v.plate FROM vehicles v JOIN depots d ON v.depot_id = d.depot_id "
     "WHERE d.depot_name = 'Lyon Yard'"),
    ("fleet", "What are the different vehicle models?", "SELECT DISTINCT model FROM vehicles"),
    ("fleet", "What is the average fuel cost of a trip?", "SELECT avg(fuel_cost) FROM trips"),
    ("fleet", "How many vehicles does each depot have?",
     "SELECT d.depot_name, count(*) FROM depots d JOIN vehicles v ON v.depot_id = d.depot_id "
     "GROUP BY d.depot_id"),
    ("events", "How many events are there in each genre?",
     "SELECT genre, count(*) FROM events GROUP BY genre"),
    ("events", "Which venues have not hosted any event?",
     "SELECT venue_name FROM venues WHERE venue_id NOT IN (SELECT venue_id FROM events)"),
    ("events", "List the jazz events.", "SELECT title FROM events WHERE genre = 'Jazz'"),
    ("events", "What is the total number of tickets booked?", "SELECT sum(tickets) FROM bookings"),
    ("events", "Which 3 events have the highest ticket price?",
     "SELECT title FROM events ORDER BY ticket_price DESC LIMIT 3"),
    ("events", "How many bookings were made before 2024-01-01?",
     "SELECT count(*) FROM bookings WHERE booked_on < '2024-01-01'"),
    ("events", "What is the average ticket price of the comedy events?",
     "SELECT avg(ticket_price) FROM events WHERE genre = 'Comedy'"),
)

BUILDERS = {"shop": build_shop, "helpdesk": build_helpdesk, "fleet": build_fleet,
            "events": build_events}  # fmt: skip


def build(out: Path, seed: int) -> list[dict[str, str]]:
    """Write the databases and questions.json under `out`; the questions, gold checked."""
    for offset, (db_id, builder) in enumerate(BUILDERS.items()):
        path = out / "database" / db_id / f"{db_id}.sqlite"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        con = sqlite3.connect(path)
        builder(con, random.Random(seed + offset))
        con.commit()
        con.close()
    questions = []
    for i, (db_id, question, query) in enumerate(QUESTIONS):
        con = sqlite3.connect(out / "database" / db_id / f"{db_id}.sqlite")
        rows = con.execute(query).fetchall()
        con.close()
        if not rows or rows == [(None,)] or rows == [(0,)]:
            sys.exit(f"gold query of {question!r} returns no rows: {query}")
        questions.append({"id": f"biz-{i}", "db_id": db_id, "question": question, "query": query})
    (out / "questions.json").write_text(json.dumps(questions, indent=1))
    return questions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="where the probe goes (not the repository)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    questions = build(args.out, args.seed)
    print(f"{len(questions)} questions over {len(BUILDERS)} databases in {args.out}")


if __name__ == "__main__":
    main()
