"""A ChartSpec drawn as a small self-contained SVG: plain text with fixed number formatting, so
it is as deterministic as the data.

Each panel of the spec is its own plot with its own y axis, stacked top to bottom over one
x axis; a panel with one measure is titled by its label, one with several has a legend. The
x axis is titled by the x column's label.
"""

from __future__ import annotations

import datetime as dt
import math
from html import escape
from typing import TYPE_CHECKING, Any

from nl2sql.notebook.formatting import format_date

if TYPE_CHECKING:
    import pyarrow as pa

    from nl2sql.notebook.chart import ChartSpec

MAX_POINTS = 40
_W, _LEFT, _RIGHT, _TOP = 600, 84, 12, 8
_PLOT_H = {1: 190, 2: 130, 3: 100}  # plot height by number of panels
_HEAD = 18  # a panel's title or legend row
_COLORS = ("#4c78a8", "#f58518", "#54a24b")


def chart_svg(table: pa.Table | None, spec: ChartSpec) -> str:
    """The chart as an SVG string ('' when the spec says no chart)."""
    if spec.kind == "none" or table is None or spec.x is None or not spec.y:
        return ""
    rows = chart_rows(table, spec, MAX_POINTS)
    names = [" ".join(_label(r[c]) for c in spec.labels or (spec.x,)) for r in rows]
    axes = spec.axes()
    plot_h = _PLOT_H.get(len(axes), 100)
    heads = [_head_rows(panel, spec) for panel in axes]
    # room for the x labels, rotated 35°: about 3.6 px of height per character
    x_labels = 22 + int(3.6 * max((len(n[:18]) for n in names), default=0))
    height = _TOP + sum(h * _HEAD + plot_h + 10 for h in heads) + x_labels + 16
    what = ", ".join(spec.title(y) for y in spec.y)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{height}" '
        f'viewBox="0 0 {_W} {height}" font-family="sans-serif" font-size="11" role="img">',
        f"<title>{escape(spec.kind)} chart of {escape(what)} by {escape(spec.x_title())}</title>",
    ]
    top = _TOP
    series_index = 0
    for panel, head in zip(axes, heads, strict=True):
        series = [[_number(r[name]) for r in rows] for name in panel]
        top += head * _HEAD
        low, high = min(0.0, *(v for s in series for v in s)), max(0.0, *(v for s in series for v in s))
        scale = _Scale(low, high if high > low else low + 1.0, top, plot_h)
        parts += _panel_head(panel, spec, top - head * _HEAD, series_index)
        parts += _y_axis(scale)
        colors = tuple(_COLORS[(series_index + i) % len(_COLORS)] for i in range(len(panel)))
        parts += _bars(series, scale, colors) if spec.kind == "bar" else _lines(series, scale, colors)
        series_index += len(panel)
        top += plot_h + 10
    parts += _x_axis(names, top - 10, spec.x_title(), height)
    parts.append("</svg>")
    return "".join(parts)


class _Scale:
    """Maps a value to a y pixel of one panel (top..top+height). The range is widened to round
    numbers (steps of 1, 2 or 5 × 10^k), so the axis labels read well."""

    def __init__(self, low: float, high: float, top: float, height: float):
        self.top, self.height = top, height
        step = _nice_step((high - low) / 4 if high > low else 1.0)
        self.step = step
        self.low = math.floor(low / step) * step
        self.high = max(math.ceil(high / step) * step, self.low + step)

    def ticks(self) -> list[float]:
        count = round((self.high - self.low) / self.step)
        return [self.low + self.step * i for i in range(count + 1)]

    def y(self, value: float) -> float:
        return self.top + self.height * (self.high - value) / (self.high - self.low)


def _head_rows(panel: tuple[str, ...], spec: ChartSpec) -> int:
    if len(panel) == 1:
        return 1
    width = sum(14 + 7 * len(spec.title(n)[:40]) + 16 for n in panel)
    return 1 + width // (_W - _LEFT)


def _panel_head(panel: tuple[str, ...], spec: ChartSpec, top: float, first: int) -> list[str]:
    """A one-measure panel's title (its label), or a legend of its measures."""
    if len(panel) == 1:
        color = _COLORS[first % len(_COLORS)]
        return [f'<rect x="{_LEFT}" y="{top + 3}" width="10" height="10" fill="{color}"/>'
                f'<text x="{_LEFT + 14}" y="{top + 12}" font-weight="bold">{escape(spec.title(panel[0]))}</text>']
    out, x, row = [], _LEFT, 0
    for s, name in enumerate(panel):
        text = spec.title(name)[:40]
        width = 14 + 7 * len(text) + 16
        if x + width > _W and x > _LEFT:
            x, row = _LEFT, row + 1
        y = top + 3 + _HEAD * row
        out.append(f'<rect x="{x}" y="{y}" width="10" height="10" fill="{_COLORS[(first + s) % len(_COLORS)]}"/>'
                   f'<text x="{x + 14}" y="{y + 9}">{escape(text)}</text>')
        x += width
    return out


def _y_axis(scale: _Scale) -> list[str]:
    bottom = scale.top + scale.height
    out = [f'<line x1="{_LEFT}" y1="{scale.top:.1f}" x2="{_LEFT}" y2="{bottom:.1f}" stroke="#888"/>']
    for value in scale.ticks():
        y = scale.y(value)
        out.append(f'<text x="{_LEFT - 4}" y="{y + 3:.1f}" text-anchor="end">{_tick(value)}</text>')
        out.append(f'<line x1="{_LEFT}" y1="{y:.1f}" x2="{_W - _RIGHT}" y2="{y:.1f}" stroke="#eee"/>')
    zero = scale.y(0.0)
    out.append(f'<line x1="{_LEFT}" y1="{zero:.1f}" x2="{_W - _RIGHT}" y2="{zero:.1f}" stroke="#888"/>')
    return out


def _x_axis(names: list[str], bottom: float, title: str, height: float) -> list[str]:
    out = []
    step = max(1, len(names) // 12)  # at most ~12 labels, so they stay readable
    for i, label in enumerate(names):
        if i % step == 0:
            x = _slot_center(i, len(names))
            out.append(f'<text x="{x:.1f}" y="{bottom + 14}" text-anchor="end" '
                       f'transform="rotate(-35 {x:.1f} {bottom + 14})">{escape(label[:18])}</text>')
    center = _LEFT + (_W - _RIGHT - _LEFT) / 2
    out.append(f'<text x="{center:.1f}" y="{height - 4}" text-anchor="middle" font-weight="bold">'
               f"{escape(title)}</text>")
    return out


def _slot_center(i: int, n: int) -> float:
    width = (_W - _RIGHT - _LEFT) / max(n, 1)
    return _LEFT + width * (i + 0.5)


def _bars(series: list[list[float]], scale: _Scale, colors: tuple[str, ...]) -> list[str]:
    n = len(series[0])
    slot = (_W - _RIGHT - _LEFT) / max(n, 1)
    bar = slot * 0.8 / len(series)
    zero = scale.y(0.0)
    out = []
    for s, values in enumerate(series):
        for i, value in enumerate(values):
            x = _LEFT + slot * i + slot * 0.1 + bar * s
            top, bottom = sorted((scale.y(value), zero))
            out.append(f'<rect x="{x:.1f}" y="{top:.1f}" width="{bar:.1f}" height="{bottom - top:.1f}" '
                       f'fill="{colors[s]}"><title>{_tick(value)}</title></rect>')
    return out


def _lines(series: list[list[float]], scale: _Scale, colors: tuple[str, ...]) -> list[str]:
    out = []
    n = len(series[0])
    for s, values in enumerate(series):
        points = " ".join(f"{_slot_center(i, n):.1f},{scale.y(v):.1f}" for i, v in enumerate(values))
        out.append(f'<polyline points="{points}" fill="none" stroke="{colors[s]}" stroke-width="2"/>')
        out += [f'<circle cx="{_slot_center(i, n):.1f}" cy="{scale.y(v):.1f}" r="2.5" fill="{colors[s]}">'
                f"<title>{_tick(v)}</title></circle>" for i, v in enumerate(values)]
    return out


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
    if value is None:
        return ""
    if isinstance(value, (dt.date, dt.datetime)):
        return format_date(value)
    return str(value)


def _tick(value: float) -> str:
    if abs(value) >= 1000 or float(value).is_integer():
        return f"{value:,.0f}"
    return f"{value:,.2f}"


def chart_rows(table: pa.Table, spec: ChartSpec, limit: int) -> list[dict[str, object]]:
    """The rows a chart draws: the first `limit`, in time order when x is a time axis."""
    if not spec.sort_x or spec.x is None:
        head: list[dict[str, object]] = table.slice(0, limit).to_pylist()
        return head
    keys = spec.labels or (spec.x,)
    rows: list[dict[str, Any]] = table.to_pylist()
    rows.sort(key=lambda r: tuple((r[k] is None, type(r[k]).__name__, r[k] if r[k] is not None else 0)
                                  for k in keys))
    return rows[:limit]
