"""The demo sales warehouse: generated column-wise with numpy, loaded into DuckDB through Arrow.

Each table draws from its own generator seeded with (SEED, table number), so the data depends
only on the seed, the scale and the vocabularies in `data.py` — never on the date of the build.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from nl2sql.demo import data
from nl2sql.demo.common import END, START, rng_for, zipf
from nl2sql.demo.sales import customer_spend, order_items_table, orders_table, signup_dates

N_STORES = 25
N_PRODUCTS = 200


@dataclass(frozen=True)
class CustomerFacts:
    """What the CRM needs to know about warehouse customers (the shared business keys)."""

    customer_id: np.ndarray
    first_name: np.ndarray
    last_name: np.ndarray
    email: np.ndarray
    segment: np.ndarray
    region_name: np.ndarray
    signup_date: np.ndarray  # datetime64[D]
    spend: np.ndarray  # completed-order revenue per customer, dollars


@dataclass(frozen=True)
class Warehouse:
    tables: dict[str, pa.Table]
    facts: CustomerFacts


def generate_warehouse(scale: float) -> Warehouse:
    """All warehouse tables at `scale` (1.0: ~2,000 customers, 42,000 orders, >100k items)."""
    n_customers = max(60, round(2_000 * scale))
    n_orders = max(300, round(42_000 * scale))
    regions = pa.table(
        {
            "region_id": np.arange(1, len(data.REGIONS) + 1, dtype=np.int32),
            "region_name": list(data.REGIONS),
        }
    )
    stores = _stores()
    customers, activity = _customers(n_customers)
    products = _products()
    orders = orders_table(n_orders, customers, activity, stores)
    items = order_items_table(orders, products)
    customers = customers.append_column("signup_date", pa.array(signup_dates(n_customers, orders)))
    tables = {
        "regions": regions,
        "stores": stores,
        "customers": customers,
        "products": products,
        "dates": _dates(),
        "orders": orders,
        "order_items": items,
    }
    return Warehouse(tables=tables, facts=_facts(customers, orders, items))


def _facts(customers: pa.Table, orders: pa.Table, items: pa.Table) -> CustomerFacts:
    def col(name: str) -> np.ndarray:
        return np.array(customers.column(name).to_pylist())

    region_names = np.array(data.REGIONS)[customers.column("region_id").to_numpy() - 1]
    return CustomerFacts(
        customer_id=customers.column("customer_id").to_numpy(),
        first_name=col("first_name"),
        last_name=col("last_name"),
        email=col("email"),
        segment=col("segment"),
        region_name=region_names,
        signup_date=customers.column("signup_date").to_numpy(),
        spend=customer_spend(customers.num_rows, orders, items),
    )


def _region_ids(regions: list[str] | np.ndarray) -> np.ndarray:
    lookup = {name: i + 1 for i, name in enumerate(data.REGIONS)}
    return np.array([lookup[r] for r in regions], dtype=np.int32)


def _stores() -> pa.Table:
    rng = rng_for(1)
    cities = np.arange(len(data.CITIES))
    weights = np.array(data.CITY_WEIGHTS, dtype=float)
    regions = np.array([c[2] for c in data.CITIES])
    chosen: list[int] = []
    for region in data.REGIONS:  # every region gets two stores, the rest go by population
        pool = cities[regions == region]
        chosen += rng.choice(pool, 2, replace=False, p=weights[pool] / weights[pool].sum()).tolist()
    rest = np.setdiff1d(cities, chosen)
    chosen += rng.choice(
        rest, N_STORES - len(chosen), replace=False, p=weights[rest] / weights[rest].sum()
    ).tolist()
    chosen.sort()
    suffixes = rng.choice(len(data.STORE_SUFFIXES), len(chosen))
    return pa.table(
        {
            "store_id": np.arange(1, len(chosen) + 1, dtype=np.int32),
            "store_name": [
                f"{data.CITIES[c][0]} {data.STORE_SUFFIXES[s]}"
                for c, s in zip(chosen, suffixes, strict=True)
            ],
            "city": [data.CITIES[c][0] for c in chosen],
            "state": [data.CITIES[c][1] for c in chosen],
            "region_id": _region_ids([data.CITIES[c][2] for c in chosen]),
        }
    )


def _customers(n: int) -> tuple[pa.Table, np.ndarray]:
    rng = rng_for(2)
    first = np.array(data.FIRST_NAMES)[
        rng.choice(len(data.FIRST_NAMES), n, p=zipf(len(data.FIRST_NAMES), 0.9, 8))
    ]
    last = np.array(data.LAST_NAMES)[
        rng.choice(len(data.LAST_NAMES), n, p=zipf(len(data.LAST_NAMES), 0.9, 8))
    ]
    weights = np.array(data.CITY_WEIGHTS, dtype=float)
    city = rng.choice(len(data.CITIES), n, p=weights / weights.sum())
    segment = np.array(data.SEGMENTS)[rng.choice(len(data.SEGMENTS), n, p=data.SEGMENT_WEIGHTS)]
    domain = np.array(data.EMAIL_DOMAINS)[rng.choice(len(data.EMAIL_DOMAINS), n)]
    ids = np.arange(1, n + 1, dtype=np.int32)
    email = [
        f"{f}.{la}{i}@{d}".lower().replace(" ", "").replace("'", "")
        for f, la, i, d in zip(first, last, ids, domain, strict=True)
    ]
    # A long tail of activity: a few heavy buyers, many occasional ones; businesses buy more.
    activity = rng.lognormal(0.0, 1.1, n) * np.where(segment == "Consumer", 1.0, 2.2)
    table = pa.table(
        {
            "customer_id": ids,
            "first_name": first,
            "last_name": last,
            "email": email,
            "segment": segment,
            "city": [data.CITIES[c][0] for c in city],
            "state": [data.CITIES[c][1] for c in city],
            "region_id": _region_ids([data.CITIES[c][2] for c in city]),
        }
    )
    return table, activity


def _products() -> pa.Table:
    rng = rng_for(3)
    combos = [
        (cat, brand, item)
        for cat, (brands, items, _, _) in data.CATALOG.items()
        for brand in brands
        for item in items
    ]
    order = rng.permutation(len(combos))
    picked = [combos[i] for i in order[:N_PRODUCTS]]
    names = [f"{b} {i}" for _, b, i in picked]
    for cat, brand, item in (combos[i] for i in order[: N_PRODUCTS - len(picked)]):
        picked.append((cat, brand, item))  # fewer combinations than products: "Pro" editions
        names.append(f"{brand} {item} Pro")
    low = np.array([data.CATALOG[c][2][0] for c, _, _ in picked])
    high = np.array([data.CATALOG[c][2][1] for c, _, _ in picked])
    price = np.exp(rng.uniform(np.log(low), np.log(high)))
    return pa.table(
        {
            "product_id": np.arange(1, len(picked) + 1, dtype=np.int32),
            "product_name": names,
            "category": [c for c, _, _ in picked],
            "brand": [b for _, b, _ in picked],
            "unit_price": np.floor(price) + 0.99,
        }
    )


def _dates() -> pa.Table:
    days = np.arange(START, END + 1)
    py = [dt.date.fromisoformat(str(d)) for d in days]
    return pa.table(
        {
            "date_key": pa.array(days),
            "year": np.array([d.year for d in py], dtype=np.int32),
            "quarter": np.array([(d.month - 1) // 3 + 1 for d in py], dtype=np.int32),
            "month": np.array([d.month for d in py], dtype=np.int32),
            # Names from fixed lists: strftime would follow the process locale.
            "month_name": [data.MONTH_NAMES[d.month - 1] for d in py],
            "day_of_week": [data.DAY_NAMES[d.weekday()] for d in py],
            "is_weekend": [d.weekday() >= 5 for d in py],
        }
    )
