"""`nl2sql teach "QUESTION" N`: write suggestion N of a refused question into the semantic layer
file (shown as a diff first) and ask the question again (nl2sql/semantic/teach.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape

if TYPE_CHECKING:
    from rich.console import Console


def run_teach(console: Console, question: str, number: int, *, config: str | None = None,
              datasource: str | None = None, dry_run: bool = False) -> int:
    """Ask `question`; teach its suggestion `number`; print the diff and (unless dry) the new run."""
    from nl2sql.cli.render import print_result
    from nl2sql.wiring import connect

    session = connect(config=config)
    try:
        refused = session.ask(question, datasource=datasource)
        found = refused.suggestions
        if not found:
            console.print(f"nothing to teach: the run's status is {refused.status} and it has no "
                          "suggestions")
            print_result(console, refused)
            return 0 if refused.status == "success" else 1
        if not 1 <= number <= len(found):
            raise ValueError(f"choose a suggestion between 1 and {len(found)}, not {number}")
        chosen = found[number - 1]
        diff = session.teach(chosen, dry_run=dry_run)
        console.print(f"[bold]{escape(chosen.text)}[/bold]  [dim]({escape(chosen.evidence)})[/dim]",
                      soft_wrap=True)
        console.print(escape(diff), soft_wrap=True, highlight=False)
        if dry_run:
            console.print("[dim]dry run: nothing was written[/dim]")
            return 0
        console.print(f"[dim]wrote {escape(str(session.layer_file))}; asking again[/dim]")
        result = session.ask(question, datasource=datasource, follow_up=False)
        result.suggestions  # noqa: B018 - computed while the sources are open
    finally:
        session.close()
    print_result(console, result)
    return 0 if result.status == "success" else 1
