"""Cells as text, one rule for the widget, the static HTML, the text view and the CLI.

Numbers get thousands separators and the same number of decimals down a column (none when every
value is whole, two otherwise, more for values below one); years, ids and codes are written as
stored (2024, not 2,024); dates read as dates and a timestamp at midnight as its day.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING

from nl2sql.labels import ColumnInfo

if TYPE_CHECKING:
    import pyarrow as pa

Formatter = Callable[[object], str]


def column_formatter(values: Sequence[object], info: ColumnInfo | None = None) -> Formatter:
    """How to write every value of one column (`values`: the column's values, or a sample)."""
    plain = info is not None and info.role in ("key", "time")
    numbers = [float(v) for v in values if isinstance(v, (int, float, Decimal)) and not isinstance(v, bool)]
    decimals = _decimals(numbers)

    def write(value: object) -> str:
        if value is None:
            return ""
        if isinstance(value, bool):
            return "yes" if value else "no"
        if _is_number(value):
            number = float(value)  # type: ignore[arg-type]  # int, float or Decimal
            if number.is_integer() and (plain or isinstance(value, int) or decimals == 0):
                return str(int(number)) if plain else f"{int(number):,}"
            return f"{number:,.{decimals or 2}f}"
        if isinstance(value, (dt.date, dt.datetime)):
            return format_date(value)
        return str(value)

    return write


def format_value(value: object) -> str:
    """One value on its own: "12,345", "3.14", "2024-05-01", "" for NULL.

    >>> [format_value(v) for v in (12345, 3.14159, None, dt.date(2024, 5, 1), 2.0)]
    ['12,345', '3.14', '', '2024-05-01', '2']
    """
    return column_formatter([value])(value)


def format_date(value: dt.date | dt.datetime) -> str:
    """A date as ISO; a timestamp without its midnight time; seconds only when they are set.

    >>> format_date(dt.datetime(2024, 5, 1)), format_date(dt.datetime(2024, 5, 1, 9, 30))
    ('2024-05-01', '2024-05-01 09:30')
    """
    if isinstance(value, dt.datetime):
        if value.time() == dt.time(0) and value.tzinfo is None:
            return value.date().isoformat()
        return value.isoformat(sep=" ", timespec="seconds" if value.second or value.microsecond else "minutes")
    return value.isoformat()


def formatted_rows(table: pa.Table, infos: Sequence[ColumnInfo] | None, start: int, count: int) -> list[list[str]]:
    """Rows `start`..`start+count` of `table` as text, each column written by one rule decided on
    the whole column, so a page of whole numbers and a page with decimals agree."""
    formatters = []
    for i, name in enumerate(table.column_names):
        info = infos[i] if infos is not None and i < len(infos) else None
        formatters.append(column_formatter(table.column(name).to_pylist()[:2000], info))
    return [[formatters[i](v) for i, v in enumerate(row.values())]
            for row in table.slice(start, count).to_pylist()]


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


def _decimals(numbers: list[float]) -> int:
    """0 when every value is whole, 2 otherwise; up to 4 when the fractions are all below 0.01."""
    fractions = [abs(n) for n in numbers if not float(n).is_integer()]
    if not fractions:
        return 0
    if all(n < 0.01 for n in fractions):
        return 4
    return 2
