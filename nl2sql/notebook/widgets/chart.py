"""ChartView: the chart chosen from the result's shape, with a dropdown to draw it another way."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from nl2sql.notebook.chart import KINDS, chart_svg, choose_chart, with_kind

if TYPE_CHECKING:
    import pyarrow as pa

_LABELS = {"bar": "bar chart", "line": "line chart", "none": "no chart"}


class ChartView(widgets.VBox):  # type: ignore[misc]  # ipywidgets ships no type information
    """`kind.value` is "bar", "line" or "none"; the SVG is in `svg.value`."""

    def __init__(self, table: pa.Table | None, **kwargs: Any):
        self.table = table
        self.default = choose_chart(table)
        self.kind = widgets.Dropdown(
            options=[(_LABELS[k], k) for k in KINDS], value=self.default.kind, description="Chart",
            layout=widgets.Layout(width="220px"),
        )
        self.svg = widgets.HTML()
        self.kind.observe(lambda _: self._render(), names="value")
        super().__init__([self.kind, self.svg], **kwargs)
        self._render()

    def _render(self) -> None:
        spec = with_kind(self.default, self.kind.value, self.table)
        self.svg.value = chart_svg(self.table, spec)
