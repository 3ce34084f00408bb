"""Rich rendering of a QueryResult for the terminal."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pyarrow as pa
    from rich.console import Console
    from rich.table import Table

    from nl2sql.labels import ColumnInfo
    from nl2sql.result import QueryResult

_STATUS_STYLE = {"success": "bold green", "error": "bold red", "needs_approval": "bold yellow",
                 "needs_clarification": "bold yellow", "not_answerable": "bold yellow"}


def print_result(console: Console, result: QueryResult, *, max_rows: int = 10) -> None:
    from rich.markup import escape
    from rich.panel import Panel
    from rich.syntax import Syntax

    style = _STATUS_STYLE.get(result.status, "bold")
    console.print(f"[bold]Q:[/bold] {_echo(result.question)}")
    console.print(f"[{style}]{result.status}[/{style}]  ({result.timings['total_s']:.2f}s)")
    if result.answer:
        console.print(Panel(f"[bold]{escape(result.answer)}[/bold]", title="answer", expand=False))
    table = result.table()
    if table is not None and (table.num_rows > 1 or table.num_columns > 1):  # one value: the answer says it
        console.print(result_table(result, table, max_rows))
    for out in result.sub_queries:
        if out.sql_draft:
            source = out.sub_query.datasource_id if out.sub_query else out.subgraph_id
            title = f"{source} · {out.dialect} · {out.status}"
            console.print(Panel(Syntax(out.sql_draft, "sql", word_wrap=True), title=title, expand=False))
    # Messages may hold brackets ("api_key in [models]") that rich would read as markup.
    for err in result.errors:
        console.print(f"[red]{err.error_code.value}[/red] ({err.node}): {escape(err.message)}")
    for warn in result.warnings:
        console.print(f"[yellow]warning {warn.code}[/yellow] ({warn.node}): {escape(warn.message)}")
    print_candidates(console, result)
    print_suggestions(console, result)
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


def print_suggestions(console: Console, result: QueryResult) -> None:
    """The layer entries that would answer a refused run, numbered, and how to teach one."""
    from rich.markup import escape

    found = result.suggestions
    if not found:
        return
    console.print("[bold]Teach the semantic layer to answer it:[/bold]")
    for number, s in enumerate(found, 1):
        console.print(f"  {number}. {escape(s.text)}", soft_wrap=True)
        console.print(f"     [dim]{escape(s.evidence)}[/dim]", soft_wrap=True)
    console.print(f"[dim]teach one with: nl2sql teach {escape(_quoted(result.question))} N "
                  "(--dry-run shows the diff only)[/dim]", soft_wrap=True)


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


def result_table(result: QueryResult, table: pa.Table, max_rows: int = 10) -> Table:
    """The answer's first rows as a rich Table headed by the columns' human labels."""
    from nl2sql.labels import result_columns

    return rich_table(table, result_columns(result, table), max_rows)


def rich_table(table: pa.Table, columns: Sequence[ColumnInfo], max_rows: int = 10) -> Table:
    """The first rows as a rich Table. Headers fold or wrap on a narrow terminal rather than
    being cut with "…" (two long labels cut alike would look like one column twice); numbers
    are formatted as everywhere else and right-aligned."""
    from rich.table import Column, Table
    from rich.text import Text

    from nl2sql.labels import arrow_kind
    from nl2sql.notebook.formatting import formatted_rows

    labels = {c.name: c.label for c in columns}
    rows = formatted_rows(table, columns, 0, max_rows)
    heads = []
    for f in table.schema:
        kind = arrow_kind(f.type)
        # The header folds (its own overflow) and so do numbers and dates (no digit is lost);
        # a long word of text (an email) is cut with "…" rather than folded over five lines.
        heads.append(Column(Text(labels.get(f.name, f.name), overflow="fold"),
                            overflow="ellipsis" if kind == "text" else "fold",
                            justify="right" if kind == "number" else "left"))
    view = Table(*heads, show_lines=False)
    for row in rows:
        view.add_row(*row)
    if table.num_rows > max_rows:
        view.caption = f"{max_rows} of {table.num_rows:,} rows"
    return view
