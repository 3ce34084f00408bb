"""The run widget and its parts, built from standard ipywidgets (needs the `notebook` extra)."""

from __future__ import annotations

from nl2sql.notebook.widgets.run_view import LiveLog, ProgressLog, RunView

__all__ = ["LiveLog", "ProgressLog", "RunView"]
