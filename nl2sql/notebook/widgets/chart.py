"""ChartView: the chart chosen from the plan's shape, a dropdown to draw it another way, and its
export as SVG (a download link) or PNG (drawn on request: `result.save_chart` is the API twin)."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from nl2sql.errors import safe_one_line
from nl2sql.notebook.chart import KINDS, choose_chart, with_kind
from nl2sql.notebook.chart_draw import chart_svg

if TYPE_CHECKING:
    import pyarrow as pa

    from nl2sql.labels import ColumnInfo

_LABELS = {"bar": "bar chart", "line": "line chart", "none": "no chart"}
_LINK = "margin-right:12px;color:#1565c0;text-decoration:underline"


class ChartView(widgets.VBox):  # type: ignore[misc]  # ipywidgets ships no type information
    """`kind.value` is "bar", "line" or "none"; the SVG is in `svg.value`; `png` draws the PNG
    and `downloads.value` holds the download links."""

    def __init__(self, table: pa.Table | None, columns: Sequence[ColumnInfo] | None = None, **kwargs: Any):
        self.table = table
        self.columns = list(columns) if columns is not None else None
        self.default = choose_chart(table, self.columns)
        self.kind = widgets.Dropdown(
            options=[(_LABELS[k], k) for k in KINDS], value=self.default.kind, description="Chart",
            layout=widgets.Layout(width="220px"),
        )
        self.svg = widgets.HTML()
        self.png = widgets.Button(description="PNG", tooltip="Draw the chart as a PNG to download",
                                  layout=widgets.Layout(width="70px"))
        self.downloads = widgets.HTML()
        self.png.on_click(lambda _: self._png())
        self.kind.observe(lambda _: self._render(), names="value")
        bar = widgets.HBox([self.kind, self.png, self.downloads])
        super().__init__([bar, self.svg], **kwargs)
        self._render()

    @property
    def spec(self) -> Any:
        return with_kind(self.default, self.kind.value, self.table, self.columns)

    def _render(self) -> None:
        svg = chart_svg(self.table, self.spec)
        self.svg.value = svg
        self.png.disabled = not svg
        self.downloads.value = _link(svg.encode("utf-8"), "image/svg+xml", "chart.svg", "Download SVG") if svg else ""

    def _png(self) -> None:
        from nl2sql.notebook.chart_export import chart_png

        svg_link = _link(self.svg.value.encode("utf-8"), "image/svg+xml", "chart.svg", "Download SVG")
        try:
            data = chart_png(self.table, self.spec) if self.table is not None else b""
        except Exception as exc:  # a button never shows a traceback
            self.downloads.value = svg_link + f'<span style="color:#c62828">PNG failed: {escape(safe_one_line(exc, None) or type(exc).__name__)}</span>'
            return
        self.downloads.value = svg_link + _link(data, "image/png", "chart.png", "Download PNG")


def _link(data: bytes, mime: str, name: str, text: str) -> str:
    encoded = base64.b64encode(data).decode("ascii")
    return f'<a style="{_LINK}" download="{name}" href="data:{mime};base64,{encoded}">{escape(text)}</a>'
