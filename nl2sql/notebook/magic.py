"""`%load_ext nl2sql`, `%nl2sql QUESTION`, `%%nl2sql [options]` and `%config NL2SQL.<setting>`.

`x = %nl2sql QUESTION` assigns the QueryResult, as `%%nl2sql x <<` (jupysql's form) and `-o x` do;
`--sql` puts the run's SQL in a new cell below. Tab completes the options (`completion`), and a
question ending in `?` is asked, not taken for IPython's help (`inputs`).

A thin magic (jupysql's SqlMagic traitlets, anywidget's small cell magic): parse, call the
Session facade, display. Settings are traitlets whose defaults come from the config file (and
NL2SQL_* environment variables), so `%config NL2SQL` shows what a run will use; a value set with
`%config` wins over both. Every failure the analyst can fix is a one-line UsageError.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class
from IPython.display import display
from traitlets import Bool, Float, Int, Unicode, default
from traitlets.config.configurable import Configurable

from nl2sql.errors import safe_one_line
from nl2sql.notebook import args, completion, hints
from nl2sql.notebook.inputs import keep_question_marks

if TYPE_CHECKING:
    from nl2sql.result import QueryResult
    from nl2sql.session import Session
    from nl2sql.settings import FileConfig, Settings

#: Settings fields exposed as traitlets (the rest stay in the config file).
SETTING_TRAITS = ("row_cap", "statement_timeout_s", "pipeline_timeout_s", "sql_agent_max_retries")


@magics_class
class NL2SQL(Magics, Configurable):
    """The %nl2sql magics. The class name is the %config section: `%config NL2SQL.row_cap = 100`."""

    config_file = Unicode("", help="config file (default: the nearest nl2sql.toml)").tag(config=True)
    model = Unicode(help='model for every node: "offline" or "provider:model"').tag(config=True)
    datasource = Unicode("", help="datasource asked by default ('' lets the resolver pick)").tag(config=True)
    project_dir = Unicode("", help="where pins, approvals and caches live ('' = .nl2sql)").tag(config=True)
    widget = Bool(True, help="show the interactive widget in a notebook (else static HTML)").tag(config=True)
    page_size = Int(10, help="rows per page of the widget's table").tag(config=True)
    row_cap = Int(help="rows kept per sub-query result").tag(config=True)
    statement_timeout_s = Float(help="per-statement timeout, seconds").tag(config=True)
    pipeline_timeout_s = Float(help="whole-run timeout, seconds").tag(config=True)
    sql_agent_max_retries = Int(help="re-plans per sub-query after a retryable failure").tag(config=True)

    def __init__(self, shell: Any):
        Configurable.__init__(self, config=shell.config)
        Magics.__init__(self, shell=shell)
        self._session: Session | None = None
        self._session_key: tuple[Any, ...] | None = None

    # -- defaults from the config file --------------------------------------------------------
    @property
    def open_session(self) -> Session | None:
        """The session the magic opened already (None before its first run)."""
        return self._session

    def _file(self) -> FileConfig:
        from pathlib import Path

        from nl2sql.settings import find_config_file, load_config_file

        return load_config_file(Path(self.config_file) if self.config_file else find_config_file())

    def _file_settings(self) -> Settings:
        from nl2sql.settings import build_settings

        return build_settings(self._file().settings)

    @default("model")
    def _model_default(self) -> str:
        import os

        models = self._file().models
        spec = models.get("default") or models.get("model")
        return os.environ.get("NL2SQL_MODEL") or (spec if isinstance(spec, str) else "") or "offline"

    @default("row_cap")
    def _row_cap_default(self) -> int:
        return self._file_settings().row_cap

    @default("statement_timeout_s")
    def _statement_timeout_default(self) -> float:
        return self._file_settings().statement_timeout_s

    @default("pipeline_timeout_s")
    def _pipeline_timeout_default(self) -> float:
        return self._file_settings().pipeline_timeout_s

    @default("sql_agent_max_retries")
    def _retries_default(self) -> int:
        return self._file_settings().sql_agent_max_retries

    # -- the magic ----------------------------------------------------------------------------
    @line_cell_magic
    def nl2sql(self, line: str, cell: str | None = None) -> QueryResult | None:
        """Ask a question: `%nl2sql QUESTION`, or `%%nl2sql [VAR <<] [options]` with the
        question below. The line magic returns the QueryResult (`x = %nl2sql ...`).

        Options: -d/--datasource ID, --no-exec, -o/--out VAR, --approve, --pin, --model SPEC,
        -s/--session VAR, --sql, -h/--help. See `%nl2sql --help`.
        """
        # `%nl2sql ...;` (a bare line: `inputs` adds the `;`) shows the run and returns nothing
        silenced = cell is None and line.rstrip().endswith(";")
        call = args.parse(line.rstrip().removesuffix(";") if silenced else line, cell)
        if call.options.help:
            print(args.help_text())
            return None
        if not call.question:
            raise UsageError(f"no question; usage: {args.USAGE}")
        try:
            result = self._ask(call)
        except UsageError:
            raise
        except Exception as exc:  # an analyst sees one line they can act on, never a traceback
            raise UsageError(safe_one_line(exc, None) or type(exc).__name__) from None
        # A cell's Out would show the answer a second time: the cell magic returns nothing (its
        # result is in VAR with `VAR <<` or -o), nor does a bare line magic (marked by `;`).
        return result if cell is None and not silenced else None

    def _ask(self, call: args.Invocation) -> QueryResult:
        opts = call.options
        if opts.model:
            _check_model(opts.model)
        view = self._live_view(call.question)
        try:
            session = self._open(opts.session, opts.model, view)
            source = opts.datasource or self.datasource or None
            if source is not None and source not in session.datasources:
                raise UsageError(hints.unknown_datasource(source, session.datasources))
            result = self._run(session, call.question, source, not opts.no_exec, view,
                                   follow_up=not opts.new)
        finally:
            if view is not None:  # its place is taken by the run's view (which keeps the log),
                view.live.close()  # or by the one-line error
        if opts.approve and result.status == "needs_approval":
            result = result.approve()
        for variable in (opts.out, call.assign):
            if variable:
                self._user_ns()[variable] = result
        self._display(result, view, opts.session)
        if opts.sql:
            self._insert_sql(result, opts.session)
        if opts.pin:
            pinned = result.pin()
            print(f"Pinned {len(pinned.plans)} plan(s): the next run of this question uses them.")
        problem = hints.problem_line(result) if view is None else None  # a view shows its own
        if problem:
            print(problem, file=sys.stderr)
        return result

    def _open(self, variable: str | None, model: str | None, view: Any) -> Session:
        """The run's session; a first one is opened with its steps shown in the live view."""
        if view is None or variable:
            return self.session(variable, model)
        from nl2sql.progress import listening

        with listening(view.on_event):
            return self.session(variable, model)

    def _insert_sql(self, result: QueryResult, session_variable: str | None) -> None:
        from nl2sql.notebook.cells import jupysql_aliases, sql_cell

        code = sql_cell(result, session_variable, jupysql_aliases=jupysql_aliases())
        if code is None:
            print("nl2sql: no SQL was generated, so no cell was added.", file=sys.stderr)
            return
        assert self.shell is not None
        self.shell.set_next_input(code, replace=False)

    def _run(self, session: Session, question: str, source: str | None, execute: bool,
             view: Any, *, follow_up: bool = True) -> QueryResult:
        if view is None:
            return session.ask(question, datasource=source, execute=execute, follow_up=follow_up)
        return session.ask(question, datasource=source, execute=execute, on_event=view.on_event,
                           follow_up=follow_up)

    def _live_view(self, question: str) -> Any:
        """A RunView when widgets can render here (a kernel, ipywidgets installed), else None."""
        if not (self.widget and getattr(self.shell, "kernel", None) is not None):
            return None
        try:
            from nl2sql.notebook.widgets import RunView
        except ImportError:  # no ipywidgets: the static HTML still shows every section
            return None
        from nl2sql.notebook.widgets import LiveLog

        view = RunView(page_size=self.page_size)
        view.start(question)
        # shown at once, before a first session opens: a cold kernel's steps show as they run
        view.live = LiveLog([view.status_line, view.progress])
        _show(view.live)
        return view

    def _display(self, result: QueryResult, view: Any, session_variable: str | None) -> None:
        if view is None:
            _show(result)
        else:
            view.session_variable = session_variable  # "Insert as cell" calls .sql() on it
            view.show(result)
            _show(view)

    def _user_ns(self) -> dict[str, Any]:
        """The notebook's namespace (a magic always runs inside a shell)."""
        assert self.shell is not None
        namespace: dict[str, Any] = self.shell.user_ns
        return namespace

    @line_magic
    def nl2sql_history(self, line: str) -> None:
        """`%nl2sql_history` lists the project's runs; `%nl2sql_history N` opens run N as its
        widget; `%nl2sql_history --rerun N` runs it again. `-s VAR` uses the Session in VAR."""
        words = line.split()
        variable = None
        if "-s" in words or "--session" in words:
            at = words.index("-s") if "-s" in words else words.index("--session")
            if at + 1 >= len(words):
                raise UsageError("-s needs a variable name; usage: %nl2sql_history [-s VAR] [--rerun] [N]")
            variable = words[at + 1]
            del words[at:at + 2]
        rerun = "--rerun" in words
        words = [w for w in words if w != "--rerun"]
        if len(words) > 1 or (words and not words[0].isdigit()):
            raise UsageError("usage: %nl2sql_history [-s VAR] [--rerun] [N]")
        session = self.session(variable)
        if not words:
            _show(session.history)
            return
        try:
            run = session.history.run(int(words[0]))
        except IndexError as exc:
            raise UsageError(str(exc)) from None
        view = self._live_view(run.question)
        try:
            result = run.rerun() if rerun else run.open()
        finally:
            if view is not None:
                view.live.close()  # its place is taken by the run's view
        self._display(result, view, variable)

    # -- the session --------------------------------------------------------------------------
    def session(self, variable: str | None = None, model: str | None = None) -> Session:
        """The Session a run uses: the one in `variable`, else one built from the settings."""
        if variable:
            from nl2sql.session import Session

            found = self._user_ns().get(variable)
            if not isinstance(found, Session):
                raise UsageError(f"{variable!r} is not an nl2sql Session (make one with nl2sql.connect())")
            return found
        models = model or (self.model if self.model != self._model_default() else None)
        settings = {name: getattr(self, name) for name in SETTING_TRAITS}
        if self.project_dir:
            settings["project_dir"] = self.project_dir
        key = (self.config_file, models, tuple(sorted(settings.items())))
        if self._session is None or key != self._session_key:
            from nl2sql.notebook import warmup

            warmup.ready()  # a first run waits for the warm-up, shown as "Loading nl2sql"
            from nl2sql.wiring import connect

            self._session = connect(config=self.config_file or None, models=models, settings=settings)
            self._session_key = key
        return self._session


def _check_model(spec: str) -> None:
    from nl2sql.reasoning.llm.config import OFFLINE

    provider, _, name = spec.partition(":")
    if spec != OFFLINE and not (provider and name):
        raise UsageError(f"--model {spec!r}: a model is 'offline' or 'provider:model', e.g. openai:gpt-4.1-mini")


def _show(obj: object) -> None:
    display(obj)  # type: ignore[no-untyped-call]  # IPython's display() has no annotations


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics, make NL2SQL configurable with %config, keep questions' '?'."""
    if any(isinstance(c, NL2SQL) for c in ipython.configurables):
        return  # loaded already: %load_ext twice must not register twice
    magic = NL2SQL(ipython)  # Magics.__init__ adds it to ipython.configurables (for %config)
    ipython.register_magics(magic)
    ipython.input_transformers_cleanup.append(keep_question_marks)
    completion.register(ipython, magic)
    from nl2sql.notebook import warmup

    warmup.start()  # loads the pipeline while the first question is typed (NL2SQL_WARMUP=0: off)
