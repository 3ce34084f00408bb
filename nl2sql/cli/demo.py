"""`nl2sql demo`: build the demo data, answer every demo question, check each answer."""

from __future__ import annotations

import time

from rich.console import Console


def run_demo(console: Console, *, scale: float = 1.0) -> int:
    from nl2sql.cli.render import print_result
    from nl2sql.demo import DEMO_SETTINGS, demo_sources, ensure_demo
    from nl2sql.demo.check import check
    from nl2sql.demo.questions import DEMO_QUESTIONS
    from nl2sql.wiring import connect

    started = time.perf_counter()
    paths = ensure_demo(scale=scale)
    console.print(f"[bold]demo data[/bold] ready in {time.perf_counter() - started:.1f}s "
                  f"(warehouse: DuckDB, crm: SQLite)")
    session = connect(sources=demo_sources(paths), settings=DEMO_SETTINGS)
    passed = 0
    try:
        for item in DEMO_QUESTIONS:
            console.rule(item.shape)
            result = session.ask(item.question)
            print_result(console, result)
            ok, why = check(session, item, result)
            passed += ok
            mark = "[green]✓ correct[/green]" if ok else "[red]✗ wrong[/red]"
            console.print(f"{mark} — {why}")
    finally:
        session.close()
    console.rule()
    console.print(f"[bold]{passed}/{len(DEMO_QUESTIONS)}[/bold] demo answers correct "
                  f"in {time.perf_counter() - started:.1f}s")
    return 0 if passed == len(DEMO_QUESTIONS) else 1
