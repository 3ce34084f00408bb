"""RunView: the one widget a run displays — live progress, then the tabs and the buttons.

It arranges standard ipywidgets around a QueryResult and holds no pipeline logic: a button calls
the result's own method (`widgets.actions`) and the view re-renders with what comes back. Where
widgets cannot render (GitHub, nbviewer, a terminal), its mime bundle carries the static HTML and
text of the same sections, which are deterministic so saved notebooks compare equal.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from html import escape
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets
from traitlets import Bool, Unicode

from nl2sql.errors import safe_one_line
from nl2sql.notebook.hints import problem_line
from nl2sql.notebook.html import header_html, render_html
from nl2sql.notebook.text import render_text
from nl2sql.notebook.widgets.actions import ActionBar
from nl2sql.notebook.widgets.exports import ExportRow
from nl2sql.notebook.widgets.tabs import build_tabs
from nl2sql.progress import PREPARE, PREPARED

if TYPE_CHECKING:
    from nl2sql.result import QueryResult

_LOG = "margin:0;font-size:11px;max-height:220px;overflow:auto"
_STATUS = "font-size:12px;color:#555"


class ProgressLog(widgets.HTML):  # type: ignore[misc]  # ipywidgets ships no type information
    """One line per node as it starts and finishes, with its time. Fed from the run's thread."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lines: list[str] = []
        self._lock = threading.Lock()

    def reset(self, title: str) -> None:
        with self._lock:
            self.lines = [title]
            self._render()

    def on_event(self, event: dict[str, Any]) -> None:
        """The `Session.ask(on_event=...)` callback: a node's {"event": "start"|"finish", "node",
        "seconds"}, or a first-run step's {"event": "prepare"|"prepared", "text", "seconds"}."""
        kind = event.get("event")
        name = str(event.get("text") if kind in (PREPARE, PREPARED) else event.get("node", "?"))
        if kind in ("finish", PREPARED):
            line = f"✓ {name}  {float(event.get('seconds') or 0.0):.3f} s"
        else:
            line = f"▸ {name} …"
        with self._lock:
            self.lines.append(line)
            self._render()

    def _render(self) -> None:
        self.value = f'<pre style="{_LOG}">{escape(chr(10).join(self.lines))}</pre>'


class StatusLine(widgets.HTML):  # type: ignore[misc]  # ipywidgets ships no type information
    """While a run goes: a spinner and what it is doing now — a first run's slow steps (opening
    the sources, reading schemas, loading the model) by name, then the node that runs."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.text = ""
        self._steps: list[str] = []  # first-run steps under way, innermost last
        self._lock = threading.Lock()

    def on_event(self, event: dict[str, Any]) -> None:
        kind, text = event.get("event"), str(event.get("text") or "")
        with self._lock:
            if kind == PREPARE:
                self._steps.append(text)
            elif kind == PREPARED and text in self._steps:
                self._steps.remove(text)
            if self._steps:
                self._set(f"{self._steps[-1]}…")
            elif kind == "start":
                self._set(f"Running {event.get('node', '')}…")

    def show(self, text: str) -> None:
        with self._lock:
            self._set(text)

    def clear(self) -> None:
        with self._lock:
            self._steps = []
            self.text = ""
            self.value = ""

    def _set(self, text: str) -> None:
        self.text = text
        self.value = (f'<span style="{_STATUS}"><i class="fa fa-spinner fa-spin"></i> '
                      f"{escape(text)}</span>")


class RunView(widgets.VBox):  # type: ignore[misc]  # ipywidgets ships no type information
    """The run widget. `result` is the QueryResult shown; `status` mirrors its status and `busy`
    is True while a button's action runs."""

    status = Unicode("")
    busy = Bool(False)

    def __init__(self, result: QueryResult | None = None, *, page_size: int = 10, **kwargs: Any):
        self.page_size = page_size
        self.result: QueryResult | None = None
        self.header = widgets.HTML()
        #: the shown run's error and hint, in red (a re-run that answers replaces it)
        self.problem = widgets.HTML()
        self.problem_text = ""
        self.progress = ProgressLog()
        self.status_line = StatusLine()
        self.live: widgets.Widget | None = None  # what the magic shows while the run goes
        #: the variable holding the Session an inserted SQL cell calls (None: the magic's own)
        self.session_variable: str | None = None
        self.exports: widgets.HTML = widgets.HTML()  # an ExportRow once a result is shown
        self.run_log = widgets.Accordion(children=[self.progress], titles=("Run log",))
        self.notice = widgets.HTML()
        self.actions: ActionBar | None = None
        self.actions_box = widgets.VBox()
        self.tabs = widgets.Tab()
        super().__init__([self.header, self.problem, self.status_line, self.run_log, self.actions_box,
                          self.notice, self.tabs], **kwargs)
        if result is not None:
            self.show(result)

    def start(self, question: str) -> None:
        """Before a run: show the question and open the live log."""
        self.header.value = f"<p><b>{escape(question)}</b> <i>running…</i></p>"
        self.progress.reset(f"question: {question}")
        self.status_line.show("Starting…")
        self.run_log.selected_index = 0

    def on_event(self, event: dict[str, Any]) -> None:
        self.progress.on_event(event)
        self.status_line.on_event(event)

    def show(self, result: QueryResult) -> None:
        """Render `result`: header, buttons and the tabs (replacing what was shown)."""
        self.result = result
        self.header.value = header_html(result)
        self.problem_text = problem_line(result) or ""
        self.problem.value = f'<p style="color:#c62828">{escape(self.problem_text)}</p>' if self.problem_text else ""
        self.status_line.clear()
        self.actions = ActionBar(result, self._act)
        self.exports = ExportRow(result, self.session_variable)
        self.actions_box.children = (self.actions, self.exports)
        self.tabs = build_tabs(result, self.page_size, act=self._act)
        self.children = (self.header, self.problem, self.status_line, self.run_log, self.actions_box,
                         self.notice, self.tabs)
        self.run_log.selected_index = None
        self.status = result.status

    def _act(self, name: str, method: Callable[..., Any], *args: Any) -> None:
        """Run one button's QueryResult method; show its outcome or a one-line error."""
        if self.busy:
            return
        self.busy = True
        # the action bar's buttons are the only callers: show() set it and the result
        assert self.actions is not None and self.result is not None
        self.actions.set_busy(True)
        self.notice.value = f"<p><i>{escape(name)}…</i></p>"
        kwargs = {"on_event": self.on_event} if _accepts(method, "on_event") else {}
        if kwargs:
            self.progress.reset(f"{name}: {self.result.question}")
            self.status_line.show(f"{name}…")
            self.run_log.selected_index = 0
        try:
            outcome = method(*args, **kwargs)
        except Exception as exc:  # a button never shows a traceback: one line the analyst can act on
            self.notice.value = f'<p style="color:#c62828">{escape(name)} failed: {escape(safe_one_line(exc, None) or type(exc).__name__)}</p>'
            self.actions.set_busy(False)
            return
        finally:
            self.busy = False
        self._settle(name, outcome)

    def _settle(self, name: str, outcome: Any) -> None:
        from nl2sql.result import QueryResult

        if isinstance(outcome, QueryResult):
            self.show(outcome)
            written = f"<pre>{escape(outcome.taught)}</pre>" if name == "teach" and outcome.taught else ""
            self.notice.value = f"<p>{escape(_DONE.get(name, name))}</p>{written}"
            return
        if self.actions is not None:
            self.actions.set_busy(False)
        self.notice.value = f"<p>{escape(describe_outcome(name, outcome))}</p>"

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        data = super()._repr_mimebundle_(**kwargs) or {}
        if self.result is not None:
            # Seen where widgets cannot render; deterministic, so nbval compares it.
            # a failed run's error line first, as the widget shows it
            data["text/plain"] = "".join(f"{t}\n" for t in [self.problem_text] if t) + render_text(self.result)
            data["text/html"] = self.problem.value + render_html(self.result)
        return data

    def __repr__(self) -> str:
        return f"RunView({self.result!r})"


_DONE = {"approve": "Approved: ran again on the approved plan.",
         "reject": "Rejected: the held query was dropped and nothing ran.",
         "rerun": "Ran again.",
         "choose": "Ran the chosen reading (validated and guarded like any plan).",
         "teach": "Wrote the suggestion into the semantic layer file and asked again.",
         "rerun_from": "Ran again from the selected trace node."}


def describe_outcome(name: str, outcome: Any) -> str:
    """One line about what pin / verify did."""
    if name == "pin":
        plans = len(getattr(outcome, "plans", {}) or {})
        return f"Pinned {plans} plan(s): the next run of this question uses them (Run again)."
    if name == "verify":
        return f"Verified: saved as a curated answer on {getattr(outcome, 'datasource', 'its datasource')}."
    return f"{name}: done."


def _accepts(method: Callable[..., Any], name: str) -> bool:
    try:
        return name in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False


class LiveLog(widgets.VBox):  # type: ignore[misc]  # ipywidgets ships no type information
    """The progress log shown on its own while the magic's first run streams; closed after it.

    Its plain-text form is empty: a saved notebook keeps no trace of it (the run's view, shown
    next, carries the answer and the same log), so saved outputs have no timings.
    """

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        data = super()._repr_mimebundle_(**kwargs) or {}
        data["text/plain"] = ""
        return data
