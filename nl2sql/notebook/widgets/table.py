"""PagedTable: a result table shown a page at a time (never dumped), with previous / next."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets
from traitlets import Int, observe

from nl2sql.notebook.html import table_html

if TYPE_CHECKING:
    import pyarrow as pa

    from nl2sql.labels import ColumnInfo


class PagedTable(widgets.VBox):  # type: ignore[misc]  # ipywidgets ships no type information
    """Rows of an Arrow table, `page_size` at a time. `page` is 0-based and clamped."""

    page = Int(0)
    page_size = Int(10)

    def __init__(self, table: pa.Table, page_size: int = 10, columns: Sequence[ColumnInfo] | None = None,
                 **kwargs: Any):
        self.table = table
        self.columns = list(columns) if columns is not None else None  # labels and roles, by column
        self.grid = widgets.HTML()
        self.previous = widgets.Button(description="◀ previous", layout=widgets.Layout(width="110px"))
        self.next = widgets.Button(description="next ▶", layout=widgets.Layout(width="110px"))
        self.label = widgets.Label()
        self.previous.on_click(lambda _: self._go(-1))
        self.next.on_click(lambda _: self._go(1))
        nav = widgets.HBox([self.previous, self.label, self.next])
        super().__init__([self.grid, nav], page_size=max(1, page_size), **kwargs)
        self._render()

    @property
    def pages(self) -> int:
        count: int = max(1, -(-self.table.num_rows // self.page_size))
        return count

    def _go(self, step: int) -> None:
        self.page = min(max(self.page + step, 0), self.pages - 1)

    @observe("page", "page_size")
    def _changed(self, _change: Any) -> None:
        self._render()

    def _render(self) -> None:
        start = self.page * self.page_size
        self.grid.value = table_html(self.table, start, self.page_size, self.columns)
        end = min(start + self.page_size, self.table.num_rows)
        self.label.value = f"rows {start + 1 if end else 0:,}–{end:,} of {self.table.num_rows:,}"
        self.previous.disabled = self.page == 0
        self.next.disabled = self.page >= self.pages - 1
