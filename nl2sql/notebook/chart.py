"""A chart chosen from the result's shape, drawn as a small self-contained SVG.

The choice is a pure function of the column names and types, so the same result always gets the
same chart: a time column (a date/timestamp, or an integer named year/month/...) gives a line,
a category with a measure gives bars, anything else (one row, no measure) gives no chart. The
SVG is plain text with fixed number formatting, so it is as deterministic as the data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import pyarrow as pa

Kind = Literal["line", "bar", "none"]
KINDS: tuple[Kind, ...] = ("bar", "line", "none")
_TIME_NAMES = {"year", "quarter", "month", "week", "day", "date", "hour", "period"}
_MAX_SERIES = 3
_MAX_POINTS = 40
_W, _H, _LEFT, _BOTTOM, _TOP = 560, 260, 64, 72, 16
_COLORS = ("#4c78a8", "#f58518", "#54a24b")


@dataclass(frozen=True)
class ChartSpec:
    """What to draw: the kind, the x column and the measure columns."""

    kind: Kind
    x: str | None = None
    y: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()  # columns naming a point (default: x), e.g. first and last name


def _is_numeric(t: pa.DataType) -> bool:
    import pyarrow.types as pt

    return bool(pt.is_integer(t) or pt.is_floating(t) or pt.is_decimal(t))


def _is_time(name: str, t: pa.DataType) -> bool:
    import pyarrow.types as pt

    if pt.is_temporal(t):
        return True
    words = set(name.lower().replace("-", "_").split("_"))
    return pt.is_integer(t) and bool(words & _TIME_NAMES)


def choose_chart(table: pa.Table | None) -> ChartSpec:
    """The default chart for a result: time → line, category + measure → bar, else none."""
    if table is None or table.num_rows < 2:
        return ChartSpec("none")
    fields = list(table.schema)
    time = [f.name for f in fields if _is_time(f.name, f.type)]
    measures = tuple(f.name for f in fields if _is_numeric(f.type) and f.name not in time)
    if not measures:
        return ChartSpec("none")
    if time:
        return ChartSpec("line", time[0], measures[:_MAX_SERIES])
    labels = tuple(f.name for f in fields if not _is_numeric(f.type))
    if labels:
        return ChartSpec("bar", labels[0], measures[:_MAX_SERIES], labels)
    return ChartSpec("none")


def with_kind(spec: ChartSpec, kind: Kind, table: pa.Table | None) -> ChartSpec:
    """`spec` drawn as another kind (the reader's choice); x falls back to the first column."""
    if kind == "none" or table is None or table.num_rows == 0:
        return ChartSpec("none", spec.x, spec.y)
    x = spec.x or table.column_names[0]
    y = spec.y or tuple(f.name for f in table.schema if _is_numeric(f.type) and f.name != x)[:_MAX_SERIES]
    return ChartSpec(kind, x, y, spec.labels if x == spec.x else ()) if y else ChartSpec("none")


def chart_svg(table: pa.Table | None, spec: ChartSpec) -> str:
    """The chart as an SVG string ('' when the spec says no chart)."""
    if spec.kind == "none" or table is None or spec.x is None or not spec.y:
        return ""
    rows = table.slice(0, _MAX_POINTS).to_pylist()
    labels = [" ".join(_label(r[c]) for c in spec.labels or (spec.x,)) for r in rows]
    series = [[_number(r[name]) for r in rows] for name in spec.y]
    low = min(0.0, *(v for s in series for v in s))
    high = max(0.0, *(v for s in series for v in s)) or 1.0
    legend, rows_used = _legend(spec.y)
    scale = _Scale(low, high, top=_TOP + 14 * max(rows_used - 1, 0))
    body = _bars(series, scale) if spec.kind == "bar" else _lines(series, scale)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{_H}" '
        f'viewBox="0 0 {_W} {_H}" font-family="sans-serif" font-size="10" role="img">',
        f"<title>{escape(spec.kind)} chart of {escape(', '.join(spec.y))} by {escape(spec.x)}</title>",
        *_axes(scale, labels),
        *body,
        *legend,
        "</svg>",
    ]
    return "".join(parts)


class _Scale:
    """Maps a value to the plot's y pixel; the plot spans _TOP.._H-_BOTTOM. The range is widened
    to round numbers (steps of 1, 2 or 5 × 10^k), so the axis labels read well."""

    def __init__(self, low: float, high: float, top: float = _TOP):
        self.top = top
        step = _nice_step((high - low) / 4 if high > low else 1.0)
        self.step = step
        self.low = math.floor(low / step) * step
        self.high = max(math.ceil(high / step) * step, self.low + step)

    def ticks(self) -> list[float]:
        count = round((self.high - self.low) / self.step)
        return [self.low + self.step * i for i in range(count + 1)]

    def y(self, value: float) -> float:
        span = _H - _BOTTOM - self.top
        return self.top + span * (self.high - value) / (self.high - self.low)


def _axes(scale: _Scale, labels: list[str]) -> list[str]:
    out = [f'<line x1="{_LEFT}" y1="{scale.top}" x2="{_LEFT}" y2="{_H - _BOTTOM}" stroke="#888"/>']
    for value in scale.ticks():
        y = scale.y(value)
        out.append(f'<text x="{_LEFT - 4}" y="{y + 3:.1f}" text-anchor="end">{_tick(value)}</text>')
        out.append(f'<line x1="{_LEFT}" y1="{y:.1f}" x2="{_W - 8}" y2="{y:.1f}" stroke="#eee"/>')
    zero = scale.y(0.0)
    out.append(f'<line x1="{_LEFT}" y1="{zero:.1f}" x2="{_W - 8}" y2="{zero:.1f}" stroke="#888"/>')
    step = max(1, len(labels) // 12)  # at most ~12 labels, so they stay readable
    for i, label in enumerate(labels):
        if i % step == 0:
            x = _slot_center(i, len(labels))
            out.append(f'<text x="{x:.1f}" y="{_H - _BOTTOM + 12}" text-anchor="end" '
                       f'transform="rotate(-35 {x:.1f} {_H - _BOTTOM + 12})">{escape(label[:18])}</text>')
    return out


def _slot_center(i: int, n: int) -> float:
    width = (_W - 8 - _LEFT) / max(n, 1)
    return _LEFT + width * (i + 0.5)


def _bars(series: list[list[float]], scale: _Scale) -> list[str]:
    n = len(series[0])
    slot = (_W - 8 - _LEFT) / max(n, 1)
    bar = slot * 0.8 / len(series)
    zero = scale.y(0.0)
    out = []
    for s, values in enumerate(series):
        for i, value in enumerate(values):
            x = _LEFT + slot * i + slot * 0.1 + bar * s
            top, bottom = sorted((scale.y(value), zero))
            out.append(f'<rect x="{x:.1f}" y="{top:.1f}" width="{bar:.1f}" height="{bottom - top:.1f}" '
                       f'fill="{_COLORS[s]}"><title>{_tick(value)}</title></rect>')
    return out


def _lines(series: list[list[float]], scale: _Scale) -> list[str]:
    out = []
    n = len(series[0])
    for s, values in enumerate(series):
        points = " ".join(f"{_slot_center(i, n):.1f},{scale.y(v):.1f}" for i, v in enumerate(values))
        out.append(f'<polyline points="{points}" fill="none" stroke="{_COLORS[s]}" stroke-width="2"/>')
    return out


def _legend(names: tuple[str, ...]) -> tuple[list[str], int]:
    """Legend keys for two or more series, wrapped onto rows; (SVG parts, rows used)."""
    if len(names) < 2:
        return [], 0
    out, x, row = [], _LEFT + 8, 0
    for s, name in enumerate(names):
        text = name[:48]
        width = 14 + 6 * len(text) + 16  # ~6 px per character at font-size 10
        if x + width > _W and x > _LEFT + 8:
            x, row = _LEFT + 8, row + 1
        y = 2 + 12 * row
        out.append(f'<rect x="{x}" y="{y}" width="10" height="10" fill="{_COLORS[s]}"/>'
                   f'<text x="{x + 14}" y="{y + 9}">{escape(text)}</text>')
        x += width
    return out, row + 1


def _nice_step(raw: float) -> float:
    """The round step (1, 2 or 5 × 10^k) at or above `raw`.

    >>> [_nice_step(x) for x in (0.3, 117.5, 2500, 4)]
    [0.5, 200.0, 5000.0, 5.0]
    """
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * power:
            return float(factor * power)
    return float(10 * power)


def _number(value: Any) -> float:
    try:
        return float(value) if value is not None else 0.0
    except (TypeError, ValueError):
        return 0.0


def _label(value: object) -> str:
    return "" if value is None else str(value)


def _tick(value: float) -> str:
    if abs(value) >= 1000 or float(value).is_integer():
        return f"{value:,.0f}"
    return f"{value:,.2f}"
