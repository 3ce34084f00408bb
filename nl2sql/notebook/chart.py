"""Which chart a result gets, chosen from the plan's shape (`nl2sql.labels` roles), never from
column types alone.

- a measure over a time grain (a date part or a grouped date) → a line, sorted by time;
- a measure per category (a grouped column) → bars;
- measures of different scale (a count and a difference, counts and a sum 100× larger) never
  share an axis: each gets its own panel;
- ids, keys and free text are never plotted; a list of entities (no measure) gets no chart, nor
  does one row.

The reader may still draw another kind (`with_kind`). Axis titles and legends use the columns'
human labels; drawing is in `chart_draw` (SVG, re-exported here) and `chart_export` (files).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from nl2sql.labels import ColumnInfo, arrow_kind, describe_columns
from nl2sql.notebook.chart_draw import chart_svg

__all__ = ["KINDS", "ChartSpec", "Kind", "chart_svg", "choose_chart", "split_by_scale", "with_kind"]

if TYPE_CHECKING:
    import pyarrow as pa

Kind = Literal["line", "bar", "none"]
KINDS: tuple[Kind, ...] = ("bar", "line", "none")
_MAX_SERIES = 3  # per panel
_MAX_PANELS = 3
_SAME_SCALE = 10.0  # measures whose largest values differ by more than this get separate axes


@dataclass(frozen=True)
class ChartSpec:
    """What to draw: the kind, the x column, the measures and how they share axes."""

    kind: Kind
    x: str | None = None
    y: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()  # columns naming a point (default: x), e.g. first and last name
    panels: tuple[tuple[str, ...], ...] = ()  # y split over separate axes; () = one axis
    titles: tuple[tuple[str, str], ...] = ()  # (column, human label) for axis titles and legends
    sort_x: bool = False  # a time axis: rows drawn in time order

    def title(self, column: str) -> str:
        return dict(self.titles).get(column, column)

    def x_title(self) -> str:
        """The x axis title: the labels of every column naming a point ("First name, Last name")."""
        return ", ".join(self.title(c) for c in self.labels or ((self.x,) if self.x else ()))

    def axes(self) -> tuple[tuple[str, ...], ...]:
        """The measures of each panel, top to bottom."""
        return self.panels or ((self.y,) if self.y else ())


def infos_for(table: pa.Table, columns: Sequence[ColumnInfo] | None) -> list[ColumnInfo]:
    """The columns' roles: as given (from the result's plans), else guessed from names and types."""
    if columns is not None and [c.name for c in columns] == table.column_names:
        return list(columns)
    return describe_columns([(f.name, arrow_kind(f.type)) for f in table.schema], [])


def choose_chart(table: pa.Table | None, columns: Sequence[ColumnInfo] | None = None) -> ChartSpec:
    """The default chart for a result with the given column roles (see the module's rules)."""
    if table is None or table.num_rows < 2:
        return ChartSpec("none")
    infos = infos_for(table, columns)
    titles = tuple((c.name, c.label) for c in infos)
    measures = [c.name for c in infos if c.role == "measure"]
    if not measures:
        return ChartSpec("none", titles=titles)
    time = [c.name for c in infos if c.role == "time"]
    categories = [c.name for c in infos if c.role == "category"]
    labels: tuple[str, ...]
    if time:  # year and month: one point per (year, month), named and ordered by both
        kind: Kind = "line"
        x, labels = time[0], tuple(time)
    elif categories:
        kind, x, labels = "bar", categories[0], tuple(categories)
    else:
        return ChartSpec("none", titles=titles)
    panels = split_by_scale(table, measures)
    y = tuple(m for panel in panels for m in panel)
    return ChartSpec(kind, x, y, labels, panels if len(panels) > 1 else (), titles, sort_x=bool(time))


def with_kind(spec: ChartSpec, kind: Kind, table: pa.Table | None,
              columns: Sequence[ColumnInfo] | None = None) -> ChartSpec:
    """`spec` drawn as another kind (the reader's choice). Without a default, x is the first
    column that is not a measure or a key, and y the measures; keys are never drawn."""
    if kind == "none" or table is None or table.num_rows == 0:
        return ChartSpec("none", spec.x, spec.y, titles=spec.titles)
    if spec.x and spec.y:
        return ChartSpec(kind, spec.x, spec.y, spec.labels, spec.panels, spec.titles, spec.sort_x)
    infos = infos_for(table, columns)
    titles = spec.titles or tuple((c.name, c.label) for c in infos)
    x = next((c.name for c in infos if c.role not in ("measure", "key")), None)
    y = [c.name for c in infos if c.role == "measure" and c.name != x]
    if x is None or not y:
        return ChartSpec("none", titles=titles)
    panels = split_by_scale(table, y)
    return ChartSpec(kind, x, tuple(m for p in panels for m in p), (x,), panels if len(panels) > 1 else (),
                     titles, sort_x=any(c.name == x and c.role == "time" for c in infos))


def split_by_scale(table: pa.Table, measures: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """Measures grouped onto shared axes: a difference always alone, the others together while
    their largest values are within `_SAME_SCALE` of each other."""
    diffs = [m for m in measures if m.lower().endswith("_diff") or "_diff_" in m.lower()]
    rest = sorted((m for m in measures if m not in diffs), key=lambda m: -_peak(table, m))
    panels: list[list[str]] = []
    for m in rest:
        panel = panels[-1] if panels else None
        if (panel is not None and len(panel) < _MAX_SERIES
                and _peak(table, panel[0]) <= _SAME_SCALE * max(_peak(table, m), 1e-12)):
            panel.append(m)
        else:
            panels.append([m])
    order = {m: i for i, m in enumerate(measures)}  # each panel keeps the table's column order
    found = [tuple(sorted(p, key=order.__getitem__)) for p in panels]
    found += [(d,) for d in diffs]
    found.sort(key=lambda p: order[p[0]])
    return tuple(found[:_MAX_PANELS])


def _peak(table: pa.Table, column: str) -> float:
    values = [abs(float(v)) for v in table.column(column).to_pylist() if v is not None]
    return max(values, default=0.0)
