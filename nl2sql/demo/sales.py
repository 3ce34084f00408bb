"""Demo sales facts: orders and order items with seasonality, a long tail and Pareto products."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from nl2sql.demo import data
from nl2sql.demo.common import END, START, rng_for, zipf

_PRICE_GROWTH = {2023: 1.00, 2024: 1.03, 2025: 1.06}  # list prices rise a little each year
_DISCOUNTS = np.array([0.0, 0.05, 0.10, 0.15, 0.20, 0.25])
_DISCOUNT_P = np.array([0.62, 0.14, 0.11, 0.07, 0.04, 0.02])
_HOLIDAY_DISCOUNT_P = np.array([0.40, 0.18, 0.17, 0.13, 0.08, 0.04])
_PENDING_DAYS = 21  # orders this close to the reference date may still be pending


def _day_weights(days: np.ndarray) -> np.ndarray:
    """Relative order volume per day: growth trend x month seasonality x weekend bump."""
    years = np.arange(len(days)) / 365.0
    month = days.astype("datetime64[M]").astype(np.int64) % 12
    weekday = (days.astype(np.int64) + 3) % 7  # 1970-01-01 was a Thursday (3)
    weights = (1 + 0.18 * years) * np.array(data.MONTH_WEIGHTS)[month]
    weights = weights * np.where(weekday >= 5, 1.15, 1.0)
    probabilities: np.ndarray = weights / weights.sum()
    return probabilities


def orders_table(n: int, customers: pa.Table, activity: np.ndarray, stores: pa.Table) -> pa.Table:
    """Orders: a customer by activity, a date by seasonality, a store in the customer's region."""
    rng = rng_for(4)
    days = np.arange(START, END + 1)
    day = rng.choice(len(days), n, p=_day_weights(days))
    day[0], day[1] = 0, len(days) - 1  # the span is exactly START..END at every scale
    customer = rng.choice(len(activity), n, p=activity / activity.sum())
    order = np.lexsort((customer, day))  # order ids increase with the date
    day, customer = day[order], customer[order]
    online = rng.random(n) < 0.38 + 0.17 * day / (len(days) - 1)  # online share grows
    status = np.array(data.ORDER_STATUSES)[rng.choice(3, n, p=data.ORDER_STATUS_WEIGHTS)]
    recent = (day >= len(days) - _PENDING_DAYS) & (rng.random(n) < 0.6)
    status = np.where(recent, "pending", status)
    return pa.table(
        {
            "order_id": np.arange(1, n + 1, dtype=np.int32),
            "customer_id": customers.column("customer_id").to_numpy()[customer],
            "store_id": _stores_for(
                rng, customers.column("region_id").to_numpy()[customer], stores
            ),
            "order_date": pa.array(days[day]),
            "status": status,
            "channel": np.where(online, data.CHANNELS[0], data.CHANNELS[1]),
        }
    )


def _stores_for(rng: np.random.Generator, region: np.ndarray, stores: pa.Table) -> np.ndarray:
    """A store in the order's region; one order in twelve is placed at any store (travel)."""
    store_ids = stores.column("store_id").to_numpy()
    store_region = stores.column("region_id").to_numpy()
    picked = store_ids[rng.integers(0, len(store_ids), len(region))]
    local = rng.random(len(region)) >= 1 / 12
    for r in np.unique(region):
        mask = local & (region == r)
        in_region = store_ids[store_region == r]
        picked[mask] = in_region[rng.integers(0, len(in_region), mask.sum())]
    ids: np.ndarray = picked.astype(np.int32)
    return ids


def order_items_table(orders: pa.Table, products: pa.Table) -> pa.Table:
    """Order lines: 1-8 per order, popular products far more often, holiday discounts."""
    rng = rng_for(5)
    lines = 1 + np.minimum(rng.poisson(1.6, orders.num_rows), 7)
    n = int(lines.sum())
    dates = np.repeat(orders.column("order_date").to_numpy(), lines)
    category = np.array(products.column("category").to_pylist())
    boost = np.array([data.CATALOG[c][3] for c in category])
    popularity = boost * zipf(len(category), 1.1, 2.0)[rng.permutation(len(category))]
    product = rng.choice(len(category), n, p=popularity / popularity.sum())
    bulk = category[product] == "Office Supplies"
    quantity = np.where(
        bulk, np.minimum(rng.geometric(0.3, n), 24), np.minimum(rng.geometric(0.62, n), 9)
    )
    year = dates.astype("datetime64[Y]").astype(np.int64) + 1970
    growth = np.select([year == y for y in _PRICE_GROWTH], list(_PRICE_GROWTH.values()))
    list_price = products.column("unit_price").to_numpy()[product]
    month = dates.astype("datetime64[M]").astype(np.int64) % 12
    holiday = month >= 10  # November and December
    discount = np.where(
        holiday,
        rng.choice(_DISCOUNTS, n, p=_HOLIDAY_DISCOUNT_P),
        rng.choice(_DISCOUNTS, n, p=_DISCOUNT_P),
    )
    return pa.table(
        {
            "order_item_id": np.arange(1, n + 1, dtype=np.int32),
            "order_id": np.repeat(orders.column("order_id").to_numpy(), lines),
            "product_id": products.column("product_id").to_numpy()[product],
            "quantity": quantity.astype(np.int32),
            "unit_price": np.round(list_price * growth, 2),
            "discount": discount,
        }
    )


def signup_dates(n_customers: int, orders: pa.Table) -> np.ndarray:
    """Each customer signs up before their first order; those without orders at any time."""
    rng = rng_for(6)
    earliest = int((np.datetime64("2021-01-01") - START).astype(np.int64))
    latest = int((END - START).astype(np.int64)) - 30
    offsets = (orders.column("order_date").to_numpy() - START).astype(np.int64)
    index = orders.column("customer_id").to_numpy() - 1
    first = np.full(n_customers, latest, dtype=np.int64)
    np.minimum.at(first, index, offsets)
    has_orders = np.bincount(index, minlength=n_customers) > 0
    anytime = rng.integers(earliest, latest + 1, n_customers)
    lead = rng.integers(0, 540, n_customers)
    days = np.where(has_orders, np.maximum(first - lead, earliest), anytime)
    return START + days.astype("timedelta64[D]")


def customer_spend(n_customers: int, orders: pa.Table, items: pa.Table) -> np.ndarray:
    """Revenue of completed orders per customer (quantity x price x (1 - discount))."""
    completed = np.array(orders.column("status").to_pylist()) == "completed"
    order_customer = orders.column("customer_id").to_numpy() - 1
    order_index = items.column("order_id").to_numpy() - 1
    revenue = (
        items.column("quantity").to_numpy()
        * items.column("unit_price").to_numpy()
        * (1 - items.column("discount").to_numpy())
    )
    revenue = np.where(completed[order_index], revenue, 0.0)
    return np.bincount(order_customer[order_index], weights=revenue, minlength=n_customers)
