"""The demo CRM (SQLite): accounts keyed by the warehouse's customer id, contacts, support tickets.

Accounts share two business keys with the warehouse: `customer_id` and the region *name*. An
account's tier follows the customer's completed-order revenue, so cross-source questions
("revenue by account tier") have meaningful answers.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np

from nl2sql.demo import data
from nl2sql.demo.common import END, START, rng_for
from nl2sql.demo.warehouse import CustomerFacts

Rows = list[tuple[Any, ...]]

# Fixed DDL (no interpolated names or values); dates are ISO-8601 text, as SQLite keeps them.
DDL = (
    """CREATE TABLE accounts (
        account_id INTEGER PRIMARY KEY,
        customer_id INTEGER NOT NULL UNIQUE,
        account_name TEXT NOT NULL,
        region TEXT NOT NULL,
        tier TEXT NOT NULL,
        created_date TEXT NOT NULL)""",
    """CREATE TABLE contacts (
        contact_id INTEGER PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts (account_id),
        full_name TEXT NOT NULL,
        email TEXT NOT NULL,
        role TEXT NOT NULL,
        phone TEXT NOT NULL)""",
    """CREATE TABLE support_tickets (
        ticket_id INTEGER PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts (account_id),
        opened_date TEXT NOT NULL,
        closed_date TEXT,
        priority TEXT NOT NULL,
        status TEXT NOT NULL,
        category TEXT NOT NULL,
        satisfaction_score INTEGER CHECK (satisfaction_score BETWEEN 1 AND 5))""",
)
_INSERTS = {
    "accounts": "INSERT INTO accounts VALUES (?, ?, ?, ?, ?, ?)",
    "contacts": "INSERT INTO contacts VALUES (?, ?, ?, ?, ?, ?)",
    "support_tickets": "INSERT INTO support_tickets VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
}


def generate_crm(facts: CustomerFacts, scale: float) -> dict[str, Rows]:
    """Rows of accounts, contacts and support_tickets for the given warehouse customers."""
    accounts, segments = _accounts(facts)
    return {
        "accounts": accounts,
        "contacts": _contacts(accounts, segments, facts),
        "support_tickets": _tickets(accounts, segments, max(120, round(6_000 * scale))),
    }


def write_crm(path: Path, rows: dict[str, Rows]) -> None:
    """Create the SQLite file at `path` (which must not exist) and insert every row."""
    con = sqlite3.connect(path)
    try:
        con.execute("PRAGMA foreign_keys = ON")  # the build itself proves the keys resolve
        with con:
            for statement in DDL:
                con.execute(statement)
            for table, insert in _INSERTS.items():
                con.executemany(insert, rows[table])
    finally:
        con.close()


def _iso(day: np.datetime64) -> str:
    return str(day.astype("datetime64[D]"))


def _tiers(spend: np.ndarray) -> np.ndarray:
    """Platinum: top 10% by revenue, Gold: next 20%, Silver: next 30%, Bronze: the rest."""
    rank = np.argsort(np.argsort(-spend, kind="stable"), kind="stable") / max(len(spend), 1)
    tiers: np.ndarray = np.array(data.TIERS)[
        np.select([rank < 0.1, rank < 0.3, rank < 0.6], [3, 2, 1], 0)
    ]
    return tiers


def _accounts(facts: CustomerFacts) -> tuple[Rows, list[str]]:
    rng = rng_for(10)
    n = len(facts.customer_id)
    # Every business customer has an account; two consumers in five do.
    keep = (facts.segment != "Consumer") | (rng.random(n) < 0.4)
    idx = np.flatnonzero(keep)
    words = rng.integers(0, len(data.COMPANY_WORDS), n)
    kinds = rng.integers(0, len(data.COMPANY_KINDS), n)
    suffixes = rng.integers(0, len(data.COMPANY_SUFFIXES), n)
    created = facts.signup_date + rng.integers(0, 90, n).astype("timedelta64[D]")
    created = np.minimum(created, END)
    tiers = _tiers(facts.spend[idx])
    rows: Rows = []
    for account_id, (i, tier) in enumerate(zip(idx, tiers, strict=True), start=1):
        if facts.segment[i] == "Consumer":
            name = f"{facts.first_name[i]} {facts.last_name[i]}"
        else:
            name = (
                f"{data.COMPANY_WORDS[words[i]]} {data.COMPANY_KINDS[kinds[i]]} "
                f"{data.COMPANY_SUFFIXES[suffixes[i]]}"
            )
        rows.append(
            (
                account_id,
                int(facts.customer_id[i]),
                name,
                str(facts.region_name[i]),
                str(tier),
                _iso(created[i]),
            )
        )
    return rows, [str(facts.segment[i]) for i in idx]


def _contacts(accounts: Rows, segments: list[str], facts: CustomerFacts) -> Rows:
    rng = rng_for(11)
    emails = {int(c): str(e) for c, e in zip(facts.customer_id, facts.email, strict=True)}
    rows: Rows = []
    for (account_id, customer_id, name, *_), segment in zip(accounts, segments, strict=True):
        if segment == "Consumer":  # the account holder is the customer
            rows.append(
                (
                    len(rows) + 1,
                    account_id,
                    name,
                    emails[customer_id],
                    "Account Holder",
                    _phone(rng),
                )
            )
            continue
        domain = "".join(ch for ch in name.lower().rsplit(" ", 1)[0] if ch.isalnum()) + ".example"
        extra = rng.poisson(1.5 if segment == "Corporate" else 0.6)
        roles = rng.permutation(len(data.CONTACT_ROLES))[: 1 + min(int(extra), 3)]
        for role in roles:
            first = data.FIRST_NAMES[rng.integers(len(data.FIRST_NAMES))]
            last = data.LAST_NAMES[rng.integers(len(data.LAST_NAMES))]
            email = f"{first}.{last}@{domain}".lower().replace(" ", "").replace("'", "")
            rows.append(
                (
                    len(rows) + 1,
                    account_id,
                    f"{first} {last}",
                    email,
                    data.CONTACT_ROLES[role],
                    _phone(rng),
                )
            )
    return rows


def _phone(rng: np.random.Generator) -> str:
    # 555-01xx numbers are reserved for fiction: they never reach a real person.
    return f"({rng.integers(201, 990)}) 555-01{rng.integers(0, 100):02d}"


def _tickets(accounts: Rows, segments: list[str], n: int) -> Rows:
    rng = rng_for(12)
    weight = np.array([{"Corporate": 3.0, "Small Business": 2.0}.get(s, 1.0) for s in segments])
    weight = weight * rng.lognormal(0.0, 0.8, len(segments))
    account = np.sort(rng.choice(len(accounts), n, p=weight / weight.sum()))
    opened_from = np.array([max(np.datetime64(a[5]), START) for a in accounts])[account]
    span = (END - opened_from).astype(np.int64) + 1
    opened = opened_from + (rng.random(n) * span).astype("timedelta64[D]")
    priority = rng.choice(len(data.TICKET_PRIORITIES), n, p=data.TICKET_PRIORITY_WEIGHTS)
    category = rng.choice(len(data.TICKET_CATEGORIES), n, p=data.TICKET_CATEGORY_WEIGHTS)
    # Urgent tickets close within days, low-priority ones can take weeks.
    days_to_close = np.ceil(rng.gamma(1.5, np.array([5.0, 3.0, 2.0, 1.0])[priority])).astype(
        np.int64
    )
    closed = opened + days_to_close.astype("timedelta64[D]")
    fresh = (END - opened).astype(np.int64) < 7
    roll = rng.random(n)
    status = np.where(
        roll < np.where(fresh, 0.6, 0.02),
        "open",
        np.where(roll < np.where(fresh, 0.7, 0.05), "escalated", "closed"),
    )
    status = np.where((status == "closed") & (closed > END), "open", status)
    score = 4.4 - 0.3 * np.sqrt(days_to_close) - 0.5 * (category == 2) + rng.normal(0, 0.9, n)
    score = np.clip(np.rint(score), 1, 5).astype(np.int64)
    answered = rng.random(n) < 0.75  # a quarter of customers skip the survey
    order = np.lexsort((account, opened))
    return [
        (
            ticket_id,
            accounts[account[i]][0],
            _iso(opened[i]),
            _iso(closed[i]) if status[i] == "closed" else None,
            data.TICKET_PRIORITIES[priority[i]],
            str(status[i]),
            data.TICKET_CATEGORIES[category[i]],
            int(score[i]) if status[i] == "closed" and answered[i] else None,
        )
        for ticket_id, i in enumerate(order, start=1)
    ]
