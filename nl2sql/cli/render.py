"""Rich rendering of a QueryResult for the terminal."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from nl2sql.result import QueryResult

_STATUS_STYLE = {"success": "bold green", "error": "bold red", "needs_approval": "bold yellow",
                 "needs_clarification": "bold yellow", "not_answerable": "bold yellow"}


def print_result(console: Console, result: QueryResult, *, max_rows: int = 10) -> None:
    from rich.panel import Panel
    from rich.syntax import Syntax
    from rich.table import Table

    style = _STATUS_STYLE.get(result.status, "bold")
    console.print(f"[bold]Q:[/bold] {_echo(result.question)}")
    console.print(f"[{style}]{result.status}[/{style}]  ({result.timings['total_s']:.2f}s)")
    if result.answer:
        console.print(Panel(result.answer, title="answer", expand=False))
    for out in result.sub_queries:
        if out.sql_draft:
            source = out.sub_query.datasource_id if out.sub_query else out.subgraph_id
            title = f"{source} · {out.dialect} · {out.status}"
            console.print(Panel(Syntax(out.sql_draft, "sql", word_wrap=True), title=title, expand=False))
    table = result.table()
    if table is not None and table.num_rows > 1:
        view = Table(*table.column_names, show_lines=False)
        for row in table.slice(0, max_rows).to_pylist():
            view.add_row(*(_cell(v) for v in row.values()))
        if table.num_rows > max_rows:
            view.caption = f"{max_rows} of {table.num_rows} rows"
        console.print(view)
    from rich.markup import escape

    # Messages may hold brackets ("api_key in [models]") that rich would read as markup.
    for err in result.errors:
        console.print(f"[red]{err.error_code.value}[/red] ({err.node}): {escape(err.message)}")
    for warn in result.warnings:
        console.print(f"[yellow]warning {warn.code}[/yellow] ({warn.node}): {escape(warn.message)}")
    print_candidates(console, result)
    print_usage(console, result.usage)


def print_candidates(console: Console, result: QueryResult) -> None:
    """The readings of a needs_clarification run, numbered, each with its SQL, and how to run one."""
    from rich.markup import escape

    found = result.candidates
    if not found:
        return
    console.print("[bold]I'm not sure what the question means. Did you mean:[/bold]")
    for c in found:
        console.print(f"  {escape(c.line())}")
        console.print(f"     [dim]{escape(c.sql or '(no SQL: the plan cannot be rendered)')}[/dim]")
    console.print(f"[dim]run one with: nl2sql ask {escape(_quoted(result.question))} --choose N[/dim]")


def _quoted(question: str) -> str:
    import shlex

    return shlex.quote(question if len(question) <= 300 else question[:300])


def _echo(question: str, limit: int = 300) -> str:
    """The question as echoed back: a long one is cut, its length said (the user has it)."""
    from rich.markup import escape

    if len(question) <= limit:
        return escape(question)
    return f"{escape(question[:limit])}… ({len(question):,} characters)"


def print_usage(console: Console, usage: dict[str, Any]) -> None:
    """One line per run and per node: model calls and tokens (nothing when no model was called)."""
    total = usage.get("total", {})
    if not total.get("calls"):
        return
    nodes = ", ".join(
        f"{node} {u['calls']}×/{u['input_tokens'] + u['output_tokens']:,} tok"
        for node, u in usage.get("by_node", {}).items()
    )
    console.print(
        f"[dim]model usage: {total['calls']} call(s), {total['input_tokens']:,} input + "
        f"{total['output_tokens']:,} output tokens ({nodes})[/dim]"
    )


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:,.2f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return "" if value is None else str(value)
