"""A result's chart as a file: SVG (the drawing the notebook shows) or PNG (drawn with
matplotlib's Agg backend, offline, from the same ChartSpec: the same rows, order, panels and
labels).

    result.save_chart("orders.png")      # or .svg; kind="bar" / "line" draws another kind
"""

from __future__ import annotations

import io
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from nl2sql.errors import NL2SQLError
from nl2sql.notebook.chart import ChartSpec, Kind, choose_chart, with_kind
from nl2sql.notebook.chart_draw import MAX_POINTS, chart_rows, chart_svg
from nl2sql.notebook.formatting import format_value

if TYPE_CHECKING:
    import pyarrow as pa

    from nl2sql.result import QueryResult

_COLORS = ("#4c78a8", "#f58518", "#54a24b")
FORMATS = (".png", ".svg")


def result_chart(result: QueryResult, kind: Kind | None = None) -> tuple[pa.Table | None, ChartSpec]:
    """The result's answer table and its chart: the default one, or drawn as `kind`."""
    from nl2sql.labels import result_columns

    table = result.table()
    columns = result_columns(result, table) if table is not None else []
    spec = choose_chart(table, columns)
    if kind is not None and kind != spec.kind:
        spec = with_kind(spec, kind, table, columns)
    return table, spec


def save_chart(table: pa.Table | None, spec: ChartSpec, path: str | Path) -> Path:
    """Write the chart to `path` (.png or .svg); a clear error when there is nothing to draw."""
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in FORMATS:
        raise NL2SQLError(f"cannot save a chart as {target.suffix or 'a file without a suffix'}: "
                          f"use .png or .svg")
    if spec.kind == "none" or table is None:
        raise NL2SQLError("this result has no chart to save (a list or a single value): "
                          "pass kind='bar' or kind='line' to draw one")
    data = chart_png(table, spec) if suffix == ".png" else chart_svg(table, spec).encode("utf-8")
    target.write_bytes(data)
    return target


def chart_png(table: pa.Table, spec: ChartSpec, dpi: int = 120) -> bytes:
    """The chart as PNG bytes, drawn with matplotlib (no pyplot state, no network)."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:  # an optional dependency: say how to get it
        raise NL2SQLError("saving a chart as PNG needs matplotlib: pip install 'nl2sql[chart]'") from exc
    if spec.x is None or not spec.y:
        raise NL2SQLError("this chart has no measure to draw")
    rows = chart_rows(table, spec, MAX_POINTS)
    names = [" ".join(format_value(r[c]) for c in spec.labels or (spec.x,))[:18] for r in rows]
    axes_spec = spec.axes()
    figure = Figure(figsize=(7.5, 1.6 + 2.2 * len(axes_spec)), dpi=dpi, layout="constrained")
    FigureCanvasAgg(figure)
    plots = figure.subplots(len(axes_spec), 1, sharex=True, squeeze=False)[:, 0]
    color = 0
    positions = list(range(len(rows)))
    for ax, panel in zip(plots, axes_spec, strict=True):
        width = 0.8 / len(panel)
        for s, name in enumerate(panel):
            values = [_number(r[name]) for r in rows]
            if spec.kind == "bar":
                ax.bar([p - 0.4 + width * (s + 0.5) for p in positions], values, width,
                       color=_COLORS[color % 3], label=spec.title(name))
            else:
                ax.plot(positions, values, marker="o", markersize=3, color=_COLORS[color % 3],
                        label=spec.title(name))
            color += 1
        ax.axhline(0, color="#888", linewidth=0.8)
        ax.set_axisbelow(True)  # grid lines behind the bars
        ax.grid(axis="y", color="#eee")
        ax.yaxis.set_major_formatter(lambda v, _pos: f"{v:,.0f}" if abs(v) >= 1000 or v == int(v) else f"{v:,.2f}")
        if len(panel) == 1:
            ax.set_ylabel(spec.title(panel[0]))
        else:
            ax.legend(loc="upper left", fontsize="small", frameon=False)
    plots[-1].set_xticks(positions, names, rotation=35, ha="right", fontsize="small")
    plots[-1].set_xlabel(spec.x_title())
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def _number(value: object) -> float:
    return float(value) if isinstance(value, (int, float, Decimal)) else 0.0
