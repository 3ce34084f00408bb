"""The `nl2sql` command: ask, run (the same), teach, history, demo, doctor, describe, clean, bench."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from rich.markup import escape

from nl2sql.errors import NL2SQLError, mask_url_passwords
from nl2sql.eval.cli import add_bench_parser

if TYPE_CHECKING:
    from rich.console import Console


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="nl2sql", description="Ask your data questions in plain language.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("ask", "run"):
        ask = sub.add_parser(name, help="answer one question (exit 1 when the run fails)")
        ask.add_argument("question")
        ask.add_argument("-d", "--datasource", help="the datasource id to use")
        ask.add_argument("-c", "--config", help="config file (default: the nearest nl2sql.toml)")
        ask.add_argument("--json", action="store_true", help="print the QueryResult as JSON")
        ask.add_argument("--no-exec", action="store_true", help="plan and generate SQL only")
        ask.add_argument("--timeout", type=float, help="whole-run timeout in seconds")
        ask.add_argument("--choose", type=int, metavar="N",
                         help="when the run needs clarification, run its reading N (as listed)")
    teach = sub.add_parser("teach", help="write suggestion N of a refused question into the semantic "
                           "layer file (shown as a diff) and ask it again")
    teach.add_argument("question")
    teach.add_argument("number", type=int, metavar="N", help="the suggestion's number, as `ask` lists them")
    teach.add_argument("-d", "--datasource", help="the datasource id to use")
    teach.add_argument("-c", "--config", help="config file (default: the nearest nl2sql.toml)")
    teach.add_argument("-n", "--dry-run", action="store_true", help="show the diff, write nothing")
    doctor = sub.add_parser("doctor", help="check the configuration, the models and the datasources")
    doctor.add_argument("-c", "--config", help="config file (default: the nearest nl2sql.toml)")
    doctor.add_argument("--offline", action="store_true", help="do not call any model")
    clean = sub.add_parser("clean", help="remove result artifacts (and snapshots) of the project folder")
    clean.add_argument("-c", "--config", help="config file (default: the nearest nl2sql.toml)")
    clean.add_argument("--snapshots", action="store_true", help="also remove the schema snapshots")
    clean.add_argument("-n", "--dry-run", action="store_true", help="list what would be removed")
    describe = sub.add_parser("describe", help="draft a semantic layer (relationships, labels, units, "
                              "vocabularies) from a datasource's data, for review")
    describe.add_argument("source", help="the datasource id")
    describe.add_argument("-c", "--config", help="config file (default: the nearest nl2sql.toml)")
    describe.add_argument("-o", "--output", help="write the draft to this file (default: print it)")
    history = sub.add_parser("history", help="list the project's runs (or run one again)")
    history.add_argument("-c", "--config", help="config file (default: the nearest nl2sql.toml)")
    history.add_argument("-n", "--last", type=int, help="only the last N runs")
    history.add_argument("--json", action="store_true", help="print the entries as JSON")
    history.add_argument("--rerun", type=int, metavar="N", help="run run N again and print it")
    demo = sub.add_parser("demo", help="build the demo data and answer the demo questions")
    demo.add_argument("--scale", type=float, default=1.0, help="demo data scale (1.0 ≈ 100k order items)")
    add_bench_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from rich.console import Console

    console = Console(stderr=False, highlight=False)
    try:
        if args.command == "demo":
            from nl2sql.cli.demo import run_demo

            return run_demo(console, scale=args.scale)
        if args.command == "doctor":
            from nl2sql.cli.doctor import run_doctor

            return run_doctor(console, config=args.config, offline=args.offline)
        if args.command == "describe":
            from nl2sql.cli.describe import run_describe

            return run_describe(console, args.source, config=args.config, out=args.output)
        if args.command == "teach":
            from nl2sql.cli.teach import run_teach

            return run_teach(console, args.question, args.number, config=args.config,
                             datasource=args.datasource, dry_run=args.dry_run)
        if args.command == "clean":
            from nl2sql.cli.clean import run_clean

            return run_clean(console, config=args.config, snapshots=args.snapshots, dry_run=args.dry_run)
        if args.command == "history":
            from nl2sql.cli.history import run_history

            return run_history(console, config=args.config, last=args.last, as_json=args.json,
                               rerun=args.rerun)
        if args.command == "bench":
            from nl2sql.eval.cli import run_bench

            return run_bench(console, args)
        return _ask(console, args)
    except (NL2SQLError, ValueError) as exc:
        Console(stderr=True).print(f"[red]error:[/red] {escape(mask_url_passwords(exc))}", soft_wrap=True)
        return 1


def _ask(console: Console, args: argparse.Namespace) -> int:
    from rich.console import Console

    from nl2sql.cli.progress import spinner
    from nl2sql.cli.render import print_result
    from nl2sql.wiring import connect

    with spinner() as on_event:  # on a terminal, says what a cold first run is doing
        session = connect(config=args.config, on_progress=on_event)
        try:
            result = session.ask(args.question, datasource=args.datasource,
                                 execute=not args.no_exec, timeout_s=args.timeout, on_event=on_event)
            if args.choose is not None and result.status == "needs_clarification":
                result = result.choose(args.choose)
            elif args.choose is not None:
                Console(stderr=True).print(f"nothing to choose: the run's status is {result.status}")
            result.suggestions  # noqa: B018 - computed while the sources are open (checked in the data)
        finally:
            session.close()
    if args.json:
        sys.stdout.write(result.to_json() + "\n")
    else:
        print_result(console, result)
    return 0 if result.status == "success" else 1


if __name__ == "__main__":
    raise SystemExit(main())
