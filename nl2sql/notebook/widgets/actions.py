"""The run widget's buttons. Each calls the QueryResult method a script would call — the widget
holds no pipeline logic — and hands what it returns to the view:

    Approve / Reject (per held sub-query) → result.approve(id) / result.reject(id) → a new result
    Run again → result.rerun() → a new result
    Pin → result.pin() → the pinned run (the next run of the question uses it)
    Verify → result.verify() → the curated answer it saved
    Run N (per candidate reading of a needs_clarification run) → result.choose(N) → a new result
    Teach N (per suggestion of a refused run, its diff shown) → result.teach(N) → a new result
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from nl2sql.notebook import sections

if TYPE_CHECKING:
    from nl2sql.result import QueryResult

Act = Callable[..., None]  # act(name, method, *args)


class ActionBar(widgets.VBox):  # type: ignore[misc]  # ipywidgets ships no type information
    """Buttons for one result. `act(name, method, *args)` runs a button's QueryResult method (the
    view decides how to show what it returns); buttons are off where the action cannot apply."""

    def __init__(self, result: QueryResult, act: Act, **kwargs: Any):
        self.result = result
        self.rerun = _button("Run again", "refresh", "")
        self.pin = _button("Pin", "thumb-tack", "")
        self.verify = _button("Verify", "check", "")
        self.rerun.on_click(lambda _: act("rerun", result.rerun))
        self.pin.on_click(lambda _: act("pin", result.pin))
        self.verify.on_click(lambda _: act("verify", result.verify))
        self.pin.disabled = not any(o.plan is not None for o in result.sub_queries)
        self.verify.disabled = result.status != "success" or not result.executed
        self.approve_buttons: dict[str, widgets.Button] = {}
        self.reject_buttons: dict[str, widgets.Button] = {}
        self.choose_buttons: list[widgets.Button] = []
        self.teach_buttons: list[widgets.Button] = []
        rows = [self._held_row(req, act) for req in sections.held_requests(result)]
        rows += self._candidate_rows(act)
        rows += self._suggestion_rows(act)
        super().__init__([*rows, widgets.HBox([self.rerun, self.pin, self.verify])], **kwargs)
        # buttons off by nature stay off when a busy spell ends
        self._off = {id(b) for b in self.buttons if b.disabled}

    def _held_row(self, request: Any, act: Act) -> widgets.HBox:
        approve = _button("Approve", "check", "success")
        reject = _button("Reject", "times", "danger")
        approve.on_click(lambda _: act("approve", self.result.approve, request.id))
        reject.on_click(lambda _: act("reject", self.result.reject, request.id))
        self.approve_buttons[request.id] = approve
        self.reject_buttons[request.id] = reject
        text = (f"<b>{escape(request.datasource_id)}</b>: {escape(request.intent or request.sub_query_id)}"
                f" — {escape(request.reason)}")
        return widgets.HBox([approve, reject, widgets.HTML(text)])

    def _candidate_rows(self, act: Act) -> list[widgets.Widget]:
        """ "Did you mean": one button per candidate reading, running it (result.choose)."""
        found = self.result.candidates
        if not found:
            return []
        rows: list[widgets.Widget] = [widgets.HTML("<b>Not sure what the question means. "
                                                   "Did you mean:</b>")]
        for c in found:
            button = _button(f"Run {c.number}", "play", "info")
            button.on_click(lambda _, n=c.number: act("choose", self.result.choose, n))
            self.choose_buttons.append(button)
            sql = f"<br><code>{escape(c.sql)}</code>" if c.sql else ""
            rows.append(widgets.HBox([button, widgets.HTML(
                f"{escape(c.description)} <i>(confidence {c.confidence:.2f})</i>{sql}")]))
        return rows

    def _suggestion_rows(self, act: Act) -> list[widgets.Widget]:
        """One button per suggestion of a refused run, with the diff it would write to the layer
        file (a dry run); a click writes it and asks again (result.teach)."""
        from nl2sql.errors import ConfigError

        found = self.result.suggestions
        if not found:
            return []
        rows: list[widgets.Widget] = [widgets.HTML("<b>Teach the semantic layer to answer it:</b>")]
        for number, suggestion in enumerate(found, 1):
            button = _button(f"Teach {number}", "graduation-cap", "info")
            try:
                diff = self.result.session.teach(suggestion, dry_run=True)
                shown = f"<pre>{escape(diff)}</pre>"
            except ConfigError as exc:  # e.g. the file cannot take it: said, not offered
                button.disabled = True
                shown = f'<br><span style="color:#c62828">{escape(str(exc))}</span>'
            button.on_click(lambda _, n=number: act("teach", self.result.teach, n))
            self.teach_buttons.append(button)
            rows.append(widgets.HBox([button, widgets.HTML(
                f"{escape(suggestion.text)} <i>({escape(suggestion.evidence)})</i>{shown}")]))
        return rows

    def set_busy(self, busy: bool) -> None:
        """Disable every button while an action runs (a second click would run it twice)."""
        for button in self.buttons:
            button.disabled = busy or id(button) in self._off

    @property
    def buttons(self) -> list[widgets.Button]:
        return [*self.approve_buttons.values(), *self.reject_buttons.values(), *self.choose_buttons,
                *self.teach_buttons, self.rerun, self.pin, self.verify]


def _button(description: str, icon: str, style: str) -> widgets.Button:
    # never shrunk below its label by the text beside it (a long diff, a long reading)
    return widgets.Button(description=description, icon=icon, button_style=style,
                          layout=widgets.Layout(width="auto", flex="0 0 auto"))

